import { Decimal } from '../core/index.js';
import { isOurResting, type TrackedOrder } from './types.js';

/** Our best quotes in a pair: the highest of our resting buys, the lowest of our resting sells. */
export interface PairQuotes {
  readonly bid?: string;
  readonly ask?: string;
}

/** Our best bid and ask among a pair's tracked orders (foreign and gone ones left out). */
export function bestQuotes(orders: readonly TrackedOrder[]): PairQuotes {
  let bid: Decimal | undefined;
  let ask: Decimal | undefined;
  for (const o of orders) {
    if (!isOurResting(o)) continue;
    const price = new Decimal(o.price);
    if (o.side === 'buy' && (bid === undefined || price.gt(bid))) bid = price;
    if (o.side === 'sell' && (ask === undefined || price.lt(ask))) ask = price;
  }
  return {
    ...(bid === undefined ? {} : { bid: bid.toFixed() }),
    ...(ask === undefined ? {} : { ask: ask.toFixed() }),
  };
}
