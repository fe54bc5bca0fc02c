import type { SimContext } from '../context.js';
import type { BookEntry } from '../engine/types.js';
import { ok, type Route } from '../http/route.js';
import type { SimPair } from '../markets.js';
import { topLevelEntries } from '../market-data/book-levels.js';
import { formatPrice, formatVolume } from '../market-data/format.js';
import { intOneOf, optString, requiredPair } from './public-params.js';

const DEPTHS = [0, 10, 25, 100, 250, 1000];

/**
 * Level3: every resting order on its own, in queue order. `depth` counts price levels (0 = the
 * whole book), so a level is never cut in half. `pair` echoes the name the request used;
 * `timestamp` is the order's queue time in ns, a bigint the server writes as a bare integer.
 */
export function level3Routes(_ctx: SimContext): Route[] {
  return [
    {
      family: 'private',
      name: 'Level3',
      permission: ['orders-query-open'],
      handle: (req, ctx) => {
        const pair = requiredPair(ctx, req.params);
        const depth = intOneOf(req.params, 'depth', DEPTHS, 100);
        const book = depth === 0 ? ctx.engine.book(pair) : ctx.engine.book(pair, depth);
        return ok({
          pair: optString(req.params, 'pair'),
          bids: entries(pair, topLevelEntries(book.bids, depth)),
          asks: entries(pair, topLevelEntries(book.asks, depth)),
        });
      },
    },
  ];
}

function entries(pair: SimPair, list: readonly BookEntry[]) {
  return list.map((e) => ({
    price: formatPrice(pair, e.price),
    qty: formatVolume(pair, e.qty),
    order_id: e.txid,
    timestamp: e.timestampNs,
  }));
}
