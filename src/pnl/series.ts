import type { SeriesPoint } from './types.js';

/**
 * Chart points at most one per `everyMs`, bounded: when `maxPoints` are held, every other point
 * goes and the spacing doubles. Memory stays flat however long the run (a 24 h replay ends with
 * between maxPoints / 2 and maxPoints points spread over the whole day).
 */
export class Series {
  #everyMs: number;
  readonly #maxPoints: number;
  #points: SeriesPoint[] = [];
  #nextAtMs = -Infinity;

  constructor(everyMs: number, maxPoints: number) {
    if (!(everyMs > 0)) throw new RangeError(`seriesEveryMs must be positive, got ${everyMs}`);
    if (!(maxPoints >= 2))
      throw new RangeError(`seriesMaxPoints must be at least 2, got ${maxPoints}`);
    this.#everyMs = everyMs;
    this.#maxPoints = maxPoints;
  }

  /** Whether a point at `atMs` would be kept. */
  due(atMs: number): boolean {
    return atMs >= this.#nextAtMs;
  }

  add(point: SeriesPoint): void {
    if (!this.due(point.atMs)) return;
    if (this.#points.length >= this.#maxPoints) {
      this.#points = this.#points.filter((_, i) => i % 2 === 0);
      this.#everyMs *= 2;
    }
    this.#points.push(point);
    this.#nextAtMs = point.atMs + this.#everyMs;
  }

  get everyMs(): number {
    return this.#everyMs;
  }

  points(): readonly SeriesPoint[] {
    return [...this.#points];
  }
}
