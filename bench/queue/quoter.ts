import { Decimal, type Side } from '../../src/core/index.js';
import { limitSpec } from '../../src/sim/engine/limit-spec.js';
import { SimError } from '../../src/sim/errors.js';
import type { SimQueueView } from '../../test/market/queue-lab.js';

/** Our order per side and level: the level-th best price of the market without us. */
const SLOTS: readonly { side: Side; level: number }[] = [
  { side: 'buy', level: 0 },
  { side: 'buy', level: 1 },
  { side: 'sell', level: 0 },
  { side: 'sell', level: 1 },
];
/** An order more than this many levels behind its slot's price is moved there. */
const DRIFT_LEVELS = 2;

/**
 * A quoting bot of the simplest kind, on the engine directly: one order at each of the two best
 * prices a side of the market (ours left out) shows, joining the back of the queue there; an order
 * that filled or left is replaced, and one the market moved away from by more than two levels is
 * cancelled and placed again. Orders otherwise stay, so each lives long enough to move up its queue.
 */
export class Quoter {
  readonly #view: SimQueueView;
  readonly #volume: Decimal;
  readonly #live = new Map<string, string>();
  refused = 0;

  constructor(view: SimQueueView, notionalUsd: number) {
    this.#view = view;
    const pair = view.pair;
    this.#volume = new Decimal(notionalUsd)
      .div(pair.initialPrice)
      .toDecimalPlaces(pair.lot_decimals, Decimal.ROUND_DOWN);
  }

  /** At each Depth answer. */
  act(): void {
    const { ctx, pair, ours } = this.#view;
    const market = this.#view.market();
    for (const slot of SLOTS) {
      const levels = slot.side === 'buy' ? market.bids : market.asks;
      const target = levels[slot.level]?.price;
      if (target === undefined) continue;
      const key = `${slot.side}:${slot.level}`;
      const live = ctx.engine.order(this.#live.get(key) ?? '');
      if (live?.status === 'open' && live.limitPrice !== undefined) {
        const bound = levels[slot.level + DRIFT_LEVELS]?.price;
        const worse =
          bound !== undefined &&
          (slot.side === 'buy' ? live.limitPrice.lt(bound) : live.limitPrice.gt(bound));
        if (!worse) continue;
        ctx.engine.cancel(ours, live);
      }
      try {
        const placed = ctx.engine.place(
          ours,
          limitSpec(pair, slot.side, this.#volume, target, 'GTC'),
        );
        this.#live.set(key, placed.txid);
      } catch (err) {
        if (!(err instanceof SimError)) throw err;
        this.refused += 1;
      }
    }
  }
}
