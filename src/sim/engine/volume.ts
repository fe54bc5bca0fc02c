import { Decimal } from '../../core/index.js';

const WINDOW_MS = 30 * 24 * 60 * 60 * 1000;
const ZERO = new Decimal(0);

/**
 * An account's traded volume in USD over the last 30 days, the basis of its fee tier. Fills are
 * appended in time order, so expiry is a walk from the front and the running sum stays O(1).
 */
export class VolumeWindow {
  readonly #entries: { atMs: number; usd: Decimal }[] = [];
  #head = 0;
  #sum = ZERO;

  add(atMs: number, usd: Decimal): void {
    if (usd.isZero()) return;
    this.#entries.push({ atMs, usd });
    this.#sum = this.#sum.plus(usd);
  }

  total(nowMs: number): Decimal {
    const entries = this.#entries;
    while (this.#head < entries.length) {
      const e = entries[this.#head] as { atMs: number; usd: Decimal };
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
