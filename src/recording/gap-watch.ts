import type { RecordedEndpoint, RecordedRow } from './format.js';

/** A source is in a gap once it has not answered for this many of its intervals. */
export const GAP_INTERVALS = 3;

/**
 * Counts gaps as they happen: an error row, trades the Trades poll skipped (a TradesGap row), or
 * a source (endpoint and pair) silent for more than GAP_INTERVALS of its interval. A silence
 * counts once, however long it lasts.
 */
export class GapWatch {
  readonly #intervalsMs: Readonly<Partial<Record<RecordedEndpoint, number>>>;
  readonly #last = new Map<string, { atMs: number; limitMs: number; silent: boolean }>();
  #gaps = 0;

  constructor(intervalsMs: Readonly<Partial<Record<RecordedEndpoint, number>>>) {
    this.#intervalsMs = intervalsMs;
  }

  get gaps(): number {
    return this.#gaps;
  }

  see(row: RecordedRow): void {
    if (row.error !== undefined || row.endpoint === 'TradesGap') {
      this.#gaps++;
      return;
    }
    const interval = this.#intervalsMs[row.endpoint];
    if (interval === undefined) return;
    const key = `${row.endpoint}:${row.pair ?? ''}`;
    const last = this.#last.get(key);
    const limitMs = GAP_INTERVALS * interval;
    if (last !== undefined && !last.silent && row.receivedMs - last.atMs > limitMs) this.#gaps++;
    this.#last.set(key, { atMs: row.receivedMs, limitMs, silent: false });
  }

  /** Counts the sources that have gone silent by `nowMs` (a poll that stopped answering at all). */
  check(nowMs: number): void {
    for (const last of this.#last.values()) {
      if (!last.silent && nowMs - last.atMs > last.limitMs) {
        last.silent = true;
        this.#gaps++;
      }
    }
  }
}
