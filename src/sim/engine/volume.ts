import { Decimal } from '../../core/index.js';

const WINDOW_MS = 30 * 24 * 60 * 60 * 1000;
/**
 * Fills within one minute share an entry: the recorded participants of a backtest and the
 * background market trade thousands of times an hour, and an entry per fill kept for 30 days grew
 * without bound in a replay of any length.
 */
const BUCKET_MS = 60_000;
const ZERO = new Decimal(0);

interface Bucket {
  readonly minute: number;
  /** The bucket's latest fill: it leaves the window when this one does. */
  atMs: number;
  usd: Decimal;
}

/**
 * An account's traded volume in USD over the last 30 days, the basis of its fee tier. Fills are
 * appended in time order, so expiry is a walk from the front and the running sum stays O(1). The
 * fills of one minute leave the window together, with the latest of them: at most a minute late,
 * 30 days after they were made, and never within a shorter run.
 */
export class VolumeWindow {
  readonly #entries: Bucket[] = [];
  #head = 0;
  #sum = ZERO;

  add(atMs: number, usd: Decimal): void {
    if (usd.isZero()) return;
    const minute = Math.floor(atMs / BUCKET_MS);
    const last = this.#entries[this.#entries.length - 1];
    if (last !== undefined && this.#entries.length > this.#head && last.minute === minute) {
      last.atMs = atMs;
      last.usd = last.usd.plus(usd);
    } else {
      this.#entries.push({ minute, atMs, usd });
    }
    this.#sum = this.#sum.plus(usd);
  }

  total(nowMs: number): Decimal {
    const entries = this.#entries;
    while (this.#head < entries.length) {
      const e = entries[this.#head] as Bucket;
      if (e.atMs > nowMs - WINDOW_MS) break;
      this.#sum = this.#sum.minus(e.usd);
      this.#head += 1;
    }
    if (this.#head > 1024 && this.#head * 2 > entries.length) {
      entries.splice(0, this.#head);
      this.#head = 0;
    }
    return this.#sum;
  }
}
