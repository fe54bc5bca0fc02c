import { Decimal, type QueuePosition } from '../../core/index.js';
import type { BookEntry, BookView } from '../../sim/engine/types.js';

/**
 * How far the live queue estimator (snapshot.queue) is from the replayed exchange's exact queue:
 * at each of the bot's ticks, for each of our resting orders it places, the market's volume
 * ahead of the order in the engine's queue (other accounts' entries before ours at its price)
 * against the estimate. The error is |estimated − exact| ahead over the market's volume at that
 * price (ahead + behind, exact), the measure bench/queue.ts calibrates the rules with, or over the
 * estimated volume there when that is larger (an order alone at its price, estimated behind
 * others, is wrong by all of it); an order alone and estimated alone is exact.
 */
export interface QueueErrorFigures {
  /** Samples: (tick, order) pairs whose order the engine still held. */
  readonly samples: number;
  /** Of those, the samples where other participants' orders rested at the order's price. */
  readonly shared: number;
  /** Mean relative error, in percent of the level's market volume; null without samples. */
  readonly meanPercent: number | null;
  /** Mean |estimated − exact| ahead, base units; null without samples. */
  readonly meanAbsAhead: number | null;
}

export class QueueCheck {
  readonly #ourKey: string;
  #samples = 0;
  #shared = 0;
  #relative = 0;
  #absolute = 0;

  constructor(ourKey: string) {
    this.#ourKey = ourKey;
  }

  observe(estimates: readonly QueuePosition[], book: () => BookView): void {
    if (estimates.length === 0) return;
    const view = book();
    for (const q of estimates) {
      const exact = this.#exact(q.side === 'buy' ? view.bids : view.asks, q);
      if (exact === undefined) continue;
      const total = exact.ahead.plus(exact.behind);
      const estimated = q.ahead.plus(q.behind);
      const scale = total.gt(estimated) ? total : estimated;
      const miss = q.ahead.minus(exact.ahead).abs();
      this.#samples += 1;
      if (total.gt(0)) this.#shared += 1;
      if (scale.gt(0)) this.#relative += miss.div(scale).toNumber();
      this.#absolute += miss.toNumber();
    }
  }

  figures(): QueueErrorFigures {
    const n = this.#samples;
    return {
      samples: n,
      shared: this.#shared,
      meanPercent: n === 0 ? null : round((100 * this.#relative) / n),
      meanAbsAhead: n === 0 ? null : round(this.#absolute / n, 8),
    };
  }

  #exact(
    entries: readonly BookEntry[],
    q: QueuePosition,
  ): { ahead: Decimal; behind: Decimal } | undefined {
    let ahead = new Decimal(0);
    let behind = new Decimal(0);
    let found = false;
    for (const e of entries) {
      if (!e.price.eq(q.price)) continue;
      if (e.txid === q.txid) {
        found = true;
        continue;
      }
      if (e.accountKey === this.#ourKey) continue;
      if (found) behind = behind.plus(e.qty);
      else ahead = ahead.plus(e.qty);
    }
    return found ? { ahead, behind } : undefined;
  }
}

function round(x: number, places = 2): number {
  const f = 10 ** places;
  return Math.round(x * f) / f;
}
