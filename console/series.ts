import type { ChartPoint, ConsoleFill } from '../src/console/state.js';

/** The chart shows the last hour, as the stream's `history` event sends. */
export const WINDOW_MS = 3_600_000;

/**
 * One pair's chart data for the last hour: the `history` event fills it, then each `state` event
 * adds the newest point and any fill not seen yet (by id). Columns as uPlot takes them: time in
 * seconds, then mid, our bid and our ask (null: none at that moment, drawn as a gap).
 */
export class PairSeries {
  readonly t: number[] = [];
  readonly mid: (number | null)[] = [];
  readonly bid: (number | null)[] = [];
  readonly ask: (number | null)[] = [];
  readonly #fills = new Map<string, ConsoleFill>();

  reset(points: readonly ChartPoint[], fills: readonly ConsoleFill[]): void {
    for (const column of [this.t, this.mid, this.bid, this.ask]) column.length = 0;
    this.#fills.clear();
    for (const point of points) this.addPoint(point);
    this.addFills(fills);
  }

  /** Appends a point newer than the last one (a repeat, or one out of order, is dropped). */
  addPoint(point: ChartPoint): void {
    const tSec = point.tMs / 1000;
    const last = this.t.at(-1);
    if (last !== undefined && tSec <= last) return;
    this.t.push(tSec);
    this.mid.push(point.mid ?? null);
    this.bid.push(point.bid ?? null);
    this.ask.push(point.ask ?? null);
    this.#trim(point.tMs);
  }

  addFills(fills: readonly ConsoleFill[]): void {
    for (const fill of fills) if (!this.#fills.has(fill.id)) this.#fills.set(fill.id, fill);
    const newest = this.t.at(-1);
    if (newest !== undefined) this.#trim(newest * 1000);
  }

  /** The fills of the last hour, oldest first. */
  fills(): ConsoleFill[] {
    return [...this.#fills.values()].sort((a, b) => a.tMs - b.tMs);
  }

  #trim(newestMs: number): void {
    const fromSec = (newestMs - WINDOW_MS) / 1000;
    let drop = 0;
    while (drop < this.t.length && (this.t[drop] ?? 0) < fromSec) drop++;
    if (drop > 0)
      for (const column of [this.t, this.mid, this.bid, this.ask]) column.splice(0, drop);
    for (const [id, fill] of this.#fills)
      if (fill.tMs < newestMs - WINDOW_MS) this.#fills.delete(id);
  }
}
