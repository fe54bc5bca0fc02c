import { InvalidInputError, type Side } from '../../core/index.js';
import type { PairRulesBook } from '../pair-rules.js';

interface OrderLike {
  readonly type?: Side;
  readonly ordertype?: string;
  readonly volume?: string;
  readonly price?: string;
  readonly price2?: string;
  readonly oflags?: string;
}

/**
 * Checks orders against the pair's rules before the network (issue 2, item 10; the order-entry
 * endpoints' `check`), so an invalid order fails with the exchange's own error text and costs no
 * ratecount. Pairs the book does not
 * know are left to the exchange. EditOrder carries only the fields that change.
 */
export function checkOrderEntry(
  rules: PairRulesBook | undefined,
  endpoint: string,
  pair: string,
  orders: readonly OrderLike[],
): void {
  if (rules === undefined) return;
  const r = rules.get(pair);
  if (r === undefined) return;
  if (endpoint === 'AddOrderBatch' && orders.length > 15) {
    throw new InvalidInputError('orders', `at most 15 orders per batch, got ${orders.length}`);
  }
  for (const o of orders) {
    if (o.volume === undefined) {
      // An edit that moves only the price: the tick is all there is to check.
      if (o.price !== undefined) r.checkPrice(o.price, endpoint);
      continue;
    }
    r.check(
      {
        type: o.type ?? 'buy',
        ordertype: o.ordertype ?? 'limit',
        volume: o.volume,
        ...(o.price === undefined ? {} : { price: o.price }),
        ...(o.price2 === undefined ? {} : { price2: o.price2 }),
        ...(o.oflags === undefined ? {} : { oflags: o.oflags }),
      },
      endpoint,
    );
  }
}
