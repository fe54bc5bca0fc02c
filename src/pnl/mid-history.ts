import { InvalidInputError, type Decimal } from '../core/index.js';

/** Consecutive samples of one mid, kept as one entry. */
interface Run {
  readonly firstAtMs: number;
  lastAtMs: number;
  readonly mid: Decimal;
}

/**
 * The mid samples of the last `keepMs`, so that a fill reported late is still priced against the
 * mid of its own moment. Samples of an unchanged mid fold into one run: a quiet book costs one
 * entry whatever the sampling rate.
 */
export class MidHistory {
  readonly #keepMs: number;
  #runs: Run[] = [];

  constructor(keepMs: number) {
    this.#keepMs = keepMs;
  }

  get latest(): { readonly atMs: number; readonly mid: Decimal } | undefined {
    const run = this.#runs[this.#runs.length - 1];
    return run === undefined ? undefined : { atMs: run.lastAtMs, mid: run.mid };
  }

  add(atMs: number, mid: Decimal): void {
    const last = this.#runs[this.#runs.length - 1];
    if (last !== undefined && atMs < last.lastAtMs) {
      throw new InvalidInputError(
        'mid.atMs',
        `is ${atMs}, before the latest sample ${last.lastAtMs}`,
      );
    }
    if (last?.mid.eq(mid)) last.lastAtMs = atMs;
    else this.#runs.push({ firstAtMs: atMs, lastAtMs: atMs, mid });
    this.#prune(atMs - this.#keepMs);
  }

  /** The mid of the latest sample at or before `atMs`; the earliest kept one if all are later. */
  atOrBefore(atMs: number): Decimal | undefined {
    const i = this.#firstIndex((r) => r.firstAtMs > atMs);
    return (this.#runs[i - 1] ?? this.#runs[0])?.mid;
  }

  /** The mid of the first sample at or after `atMs`; undefined until one has arrived. */
  atOrAfter(atMs: number): Decimal | undefined {
    return this.#runs[this.#firstIndex((r) => r.lastAtMs >= atMs)]?.mid;
  }

  /** Index of the first run for which `after` holds (runs are in time order); length if none. */
  #firstIndex(after: (run: Run) => boolean): number {
    let lo = 0;
    let hi = this.#runs.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (after(this.#runs[mid] as Run)) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }

  /** Drops runs that ended before `fromMs`, always keeping the newest. */
  #prune(fromMs: number): void {
    const stale = Math.min(
      this.#firstIndex((r) => r.lastAtMs >= fromMs),
      this.#runs.length - 1,
    );
    // Copying the array only once a batch is stale keeps pruning cheap per sample.
    if (stale >= 256 || (stale > 0 && stale * 2 >= this.#runs.length)) {
      this.#runs = this.#runs.slice(stale);
    }
  }
}
