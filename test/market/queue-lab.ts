/**
 * What live trading would see of a simulator's market, read straight from its engine (a Depth
 * answer, the new trades, a Level3 answer, our open orders), beside what only the engine knows: the
 * exact queue around each of our orders. Used by the queue estimator's tests and bench:queue.
 */
import {
  Decimal,
  ManualClock,
  type BookView,
  type Level3View,
  type PriceLevel,
  type PublicTrade,
  type Side,
} from '../../src/core/index.js';
import type { QueueOrder } from '../../src/market/index.js';
import type { SimContext } from '../../src/sim/index.js';
import { createSimContext } from '../../src/sim/index.js';
import { limitSpec } from '../../src/sim/engine/limit-spec.js';
import type { BookEntry } from '../../src/sim/engine/types.js';
import type { SimPair } from '../../src/sim/markets.js';
import type { Account } from '../../src/sim/state/accounts.js';

export const T0 = Date.UTC(2026, 2, 2, 9);

/** One pair of a simulator as our bot's account sees it. */
export class SimQueueView {
  readonly ctx: SimContext;
  readonly pair: SimPair;
  readonly ours: Account;
  #lastTradeId = -1;

  constructor(ctx: SimContext, pair: SimPair, ours: Account) {
    this.ctx = ctx;
    this.pair = pair;
    this.ours = ours;
  }

  /** The Depth answer now: levels by price, best first, every order counted (ours too). */
  depth(levels = 25): BookView {
    const book = this.ctx.engine.book(this.pair);
    return { bids: aggregate(book.bids, levels), asks: aggregate(book.asks, levels) };
  }

  /** The book without our orders (what a strategy prices from). */
  market(levels = 25): BookView {
    const book = this.ctx.engine.book(this.pair);
    const others = (e: BookEntry) => e.accountKey !== this.ours.key;
    return {
      bids: aggregate(book.bids.filter(others), levels),
      asks: aggregate(book.asks.filter(others), levels),
    };
  }

  /** The public trades printed since the last call, oldest first. */
  newTrades(): PublicTrade[] {
    const out: PublicTrade[] = [];
    for (const t of this.ctx.history.trades(this.pair)) {
      if (t.tradeId <= this.#lastTradeId) continue;
      out.push({
        price: t.price,
        volume: t.volume,
        timeMs: t.timeMs,
        side: t.side,
        orderType: t.ordertype === 'm' ? 'market' : 'limit',
        tradeId: t.tradeId,
      });
      this.#lastTradeId = t.tradeId;
    }
    return out;
  }

  /** The Level3 answer now: every order in queue order, ours flagged. */
  level3(): Level3View {
    const book = this.ctx.engine.book(this.pair);
    const order = (e: BookEntry) => ({
      price: e.price,
      volume: e.qty,
      orderId: e.txid,
      timestampNs: e.timestampNs,
      own: e.accountKey === this.ours.key,
    });
    return { bids: book.bids.map(order), asks: book.asks.map(order) };
  }

  /** Our resting orders as the tracker holds them (acknowledged at their open time). */
  ourOrders(): QueueOrder[] {
    return this.ctx.engine.openOrders(this.ours, this.pair).flatMap((o) =>
      o.status !== 'open' || o.limitPrice === undefined
        ? []
        : [
            {
              txid: o.txid,
              side: o.spec.side,
              price: o.limitPrice,
              remaining: o.spec.volume.minus(o.volExec),
              openedAtMs: o.opentmMs,
            },
          ],
    );
  }

  /**
   * The engine's queue at our order's price: the other participants' volume before it and after
   * it (ours in neither); undefined when the order does not rest.
   */
  exact(txid: string): { ahead: Decimal; behind: Decimal } | undefined {
    const order = this.ctx.engine.order(txid);
    if (order === undefined || order.status !== 'open' || order.limitPrice === undefined) {
      return undefined;
    }
    const price = order.limitPrice;
    const book = this.ctx.engine.book(this.pair);
    const queue = (order.spec.side === 'buy' ? book.bids : book.asks).filter((e) =>
      e.price.eq(price),
    );
    const at = queue.findIndex((e) => e.txid === txid);
    if (at < 0) return undefined;
    const sum = (list: readonly BookEntry[]) =>
      list
        .filter((e) => e.accountKey !== this.ours.key)
        .reduce((s, e) => s.plus(e.qty), new Decimal(0));
    return { ahead: sum(queue.slice(0, at)), behind: sum(queue.slice(at + 1)) };
  }
}

function aggregate(entries: readonly BookEntry[], levels: number): PriceLevel[] {
  const out: PriceLevel[] = [];
  for (const e of entries) {
    const last = out[out.length - 1];
    if (last?.price.eq(e.price) === true) {
      out[out.length - 1] = { price: last.price, volume: last.volume.plus(e.qty) };
    } else {
      if (out.length === levels) break;
      out.push({ price: e.price, volume: e.qty });
    }
  }
  return out;
}

/** A simulator without the background market on a manual clock, XBTUSD, our key and others. */
export function queueLab(): {
  lab: SimQueueView;
  clock: ManualClock;
  rest(who: string, side: Side, price: string, volume: string): string;
  take(side: Side, price: string, volume: string): void;
  cancel(txid: string): void;
  step(ms?: number): Promise<number>;
} {
  const clock = new ManualClock(T0);
  const { ctx } = createSimContext({
    clock,
    idSeed: 1,
    config: { background: { enabled: false } },
  });
  const pair = ctx.markets.requirePair('XBTUSD');
  const accounts = new Map<string, Account>();
  const account = (key: string): Account => {
    let a = accounts.get(key);
    if (a === undefined) {
      a = ctx.accounts.upsert(
        {
          key,
          secret: Buffer.from(key).toString('base64'),
          tier: 'pro',
          balances: { ZUSD: '100000000', XXBT: '10000' },
        },
        clock.now(),
      );
      accounts.set(key, a);
    }
    return a;
  };
  const lab = new SimQueueView(ctx, pair, account('ours'));
  const place = (who: string, side: Side, price: string, volume: string, tif: 'GTC' | 'IOC') =>
    ctx.engine.place(
      account(who),
      limitSpec(pair, side, new Decimal(volume), new Decimal(price), tif),
    ).txid;
  return {
    lab,
    clock,
    rest: (who, side, price, volume) => place(who, side, price, volume, 'GTC'),
    take: (side, price, volume) => {
      place('taker', side, price, volume, 'IOC');
    },
    cancel: (txid) => {
      const order = ctx.engine.order(txid);
      if (order === undefined) throw new Error(`no order ${txid}`);
      ctx.engine.cancel(ctx.accounts.get(order.accountKey) as Account, order);
    },
    step: async (ms = 100) => {
      await clock.advance(ms);
      return clock.now();
    },
  };
}
