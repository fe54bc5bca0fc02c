import { Decimal } from '../../core/index.js';
import type { SimContext } from '../../sim/context.js';
import type { BookEntry, OrderSpec, Side } from '../../sim/engine/types.js';
import { SimError } from '../../sim/errors.js';
import type { SimPair } from '../../sim/markets.js';
import type { Account } from '../../sim/state/accounts.js';
import type { SystemMode } from '../../sim/state/status.js';

/**
 * Recorded participants, one key per book side (each side's resting orders stay under the
 * exchange's open-orders limit) and one for recorded takers: self-trade prevention never stops a
 * recorded trade, and recorded bids and asks never meet (a recorded book is not crossed).
 */
export const RECORDED_BID_KEY = '__recorded_bids__';
export const RECORDED_ASK_KEY = '__recorded_asks__';
export const RECORDED_TAKER_KEY = '__recorded_taker__';

const HUGE = '1000000000000000000';

/** One price level as recorded: price and volume exactly as the exchange wrote them. */
export interface RecordedLevel {
  readonly price: Decimal;
  readonly volume: Decimal;
}

export interface RecordedTrade {
  readonly price: Decimal;
  readonly volume: Decimal;
  /** The taker's side. */
  readonly side: Side;
}

/** What the recorded market did to the engine, for the summary. */
export interface RecordedMarketStats {
  depthUpdates: number;
  tradesApplied: number;
  /** Recorded trades below the pair's order minimum: no taker order can carry them. */
  tradesTooSmall: number;
  /** Our resting volume filled at once because a recorded trade went through its price. */
  tradeThroughs: number;
  /** Placements the engine refused (a price off the tick grid...): counted, never fatal. */
  refused: number;
}

/**
 * Drives the simulator's matching engine from a recording instead of the background market.
 *
 * Books: at each recorded Depth answer the recorded participants' volume per level is set to the
 * recorded volume minus the live session's own orders (recorded OpenOrders). Volume added joins
 * the back of its level. Volume removed where none of our replay orders rests is simply taken
 * off; where one rests, it is taken from the orders ahead of ours and from those behind in
 * proportion to the volume on each side (hftbacktest's probabilistic queue model, linear shape),
 * so cancels move us forward by the share of the level that was ahead of us.
 *
 * Trades: each recorded trade is sent as a taker order of the recorded taker at its price and
 * volume, at its own exchange time; it takes the queue in FIFO order. Recorded volume at prices
 * better than the trade's is taken off first (the print proves it had gone), and our orders at
 * those prices are traded through: the taker order carries their volume too, so they fill at once.
 */
export class RecordedMarket {
  readonly #ctx: SimContext;
  readonly #bids: Account;
  readonly #asks: Account;
  readonly #taker: Account;
  /** The live session's own open volume per pair, side and price (recorded OpenOrders). */
  #own = new Map<string, Map<string, Decimal>>();
  readonly stats: RecordedMarketStats = {
    depthUpdates: 0,
    tradesApplied: 0,
    tradesTooSmall: 0,
    tradeThroughs: 0,
    refused: 0,
  };

  constructor(ctx: SimContext) {
    this.#ctx = ctx;
    const assets = [...new Set(ctx.markets.pairs.flatMap((p) => [p.base, p.quote]))];
    const balances = Object.fromEntries(assets.map((a) => [a, HUGE]));
    const account = (key: string): Account =>
      ctx.accounts.upsert(
        {
          key,
          secret: Buffer.from(key).toString('base64'),
          tier: 'pro',
          permissions: [],
          kind: 'background',
          balances,
        },
        ctx.clock.now(),
      );
    this.#bids = account(RECORDED_BID_KEY);
    this.#asks = account(RECORDED_ASK_KEY);
    this.#taker = account(RECORDED_TAKER_KEY);
  }

  /** The exchange's status as recorded. */
  setMode(mode: SystemMode): void {
    this.#ctx.status.setMode(mode);
  }

  /**
   * The live session's own open orders (when the recording was made while trading): their volume
   * is in the recorded book and is not the recorded participants'.
   */
  setOwnOrders(
    orders: readonly { pair: SimPair; side: Side; price: Decimal; volume: Decimal }[],
  ): void {
    const own = new Map<string, Map<string, Decimal>>();
    for (const o of orders) {
      const key = `${o.pair.id}:${o.side}`;
      let byPrice = own.get(key);
      if (byPrice === undefined) own.set(key, (byPrice = new Map<string, Decimal>()));
      const price = o.price.toFixed();
      byPrice.set(price, (byPrice.get(price) ?? new Decimal(0)).plus(o.volume));
    }
    this.#own = own;
  }

  /** A recorded Depth answer: both sides' removals first, so the sides never cross. */
  applyDepth(pair: SimPair, bids: readonly RecordedLevel[], asks: readonly RecordedLevel[]): void {
    this.stats.depthUpdates += 1;
    const view = this.#ctx.engine.book(pair);
    const plans = [
      this.#plan(pair, 'buy', view.bids, bids),
      this.#plan(pair, 'sell', view.asks, asks),
    ];
    for (const plan of plans) for (const cut of plan.cuts) cut();
    for (const plan of plans) for (const add of plan.adds) add();
  }

  /** A recorded trade, at its own time. */
  applyTrade(pair: SimPair, trade: RecordedTrade): void {
    const engine = this.#ctx.engine;
    const hit = trade.side === 'buy' ? 'sell' : 'buy';
    const maker = this.#maker(hit);
    const view = engine.book(pair);
    const entries = hit === 'buy' ? view.bids : view.asks;
    const better = (p: Decimal): boolean => (hit === 'buy' ? p.gt(trade.price) : p.lt(trade.price));
    let through = new Decimal(0);
    for (const e of entries) {
      if (!better(e.price)) break;
      if (e.accountKey === maker.key) this.#cancel(maker, e.txid);
      else if (e.accountKey !== this.#taker.key) through = through.plus(e.qty);
    }
    if (through.gt(0)) this.stats.tradeThroughs += 1;
    if (trade.volume.lt(pair.orderMin)) {
      this.stats.tradesTooSmall += 1;
      if (through.isZero()) return;
    }
    const volume = trade.volume.lt(pair.orderMin) ? through : trade.volume.plus(through);
    this.stats.tradesApplied += 1;
    this.#place(this.#taker, limitSpec(pair, trade.side, volume, trade.price, 'IOC'));
  }

  #maker(side: Side): Account {
    return side === 'buy' ? this.#bids : this.#asks;
  }

  #plan(
    pair: SimPair,
    side: Side,
    entries: readonly BookEntry[],
    recorded: readonly RecordedLevel[],
  ): { cuts: (() => void)[]; adds: (() => void)[] } {
    const maker = this.#maker(side);
    const own = this.#own.get(`${pair.id}:${side}`);
    const target = new Map<string, Decimal>();
    for (const level of recorded) {
      const price = level.price.toFixed();
      const volume = level.volume.minus(own?.get(price) ?? 0);
      if (volume.gt(0)) target.set(price, volume);
    }
    // The engine's queue per price, in time priority.
    const queues = new Map<string, { price: Decimal; entries: BookEntry[] }>();
    for (const e of entries) {
      const price = e.price.toFixed();
      let q = queues.get(price);
      if (q === undefined) queues.set(price, (q = { price: e.price, entries: [] }));
      q.entries.push(e);
    }
    for (const level of recorded) {
      const price = level.price.toFixed();
      if (!queues.has(price) && target.has(price)) {
        queues.set(price, { price: level.price, entries: [] });
      }
    }
    const cuts: (() => void)[] = [];
    const adds: (() => void)[] = [];
    for (const [key, q] of queues) {
      const want = target.get(key) ?? new Decimal(0);
      const foreign = q.entries.filter((e) => e.accountKey === maker.key);
      const have = foreign.reduce((sum, e) => sum.plus(e.qty), new Decimal(0));
      if (want.eq(have)) continue;
      const oursAt = q.entries.findIndex(
        (e) => e.accountKey !== maker.key && e.accountKey !== this.#taker.key,
      );
      if (oursAt < 0) {
        // Nobody of ours in this queue: its order does not matter, one order holds the level.
        cuts.push(() => {
          for (const e of foreign) this.#cancel(maker, e.txid);
        });
        if (want.gt(0)) adds.push(() => this.#rest(maker, pair, side, q.price, want));
      } else if (want.gt(have)) {
        adds.push(() => this.#rest(maker, pair, side, q.price, want.minus(have)));
      } else {
        cuts.push(() => this.#cutAround(maker, pair, q.entries, oursAt, have.minus(want)));
      }
    }
    return { cuts, adds };
  }

  /**
   * Takes `volume` off a queue holding one of our orders at `oursAt`: from ahead of it and from
   * behind it in proportion to the recorded volume on each side.
   */
  #cutAround(
    maker: Account,
    pair: SimPair,
    entries: readonly BookEntry[],
    oursAt: number,
    volume: Decimal,
  ): void {
    const ahead = entries.slice(0, oursAt).filter((e) => e.accountKey === maker.key);
    const behind = entries.slice(oursAt + 1).filter((e) => e.accountKey === maker.key);
    const a = ahead.reduce((sum, e) => sum.plus(e.qty), new Decimal(0));
    const b = behind.reduce((sum, e) => sum.plus(e.qty), new Decimal(0));
    let fromAhead = volume
      .times(a)
      .div(a.plus(b))
      .toDecimalPlaces(pair.lot_decimals, Decimal.ROUND_HALF_EVEN);
    if (volume.minus(fromAhead).gt(b)) fromAhead = volume.minus(b);
    if (fromAhead.gt(a)) fromAhead = a;
    // Nearest to ours first on each side: which recorded order shrinks does not move us.
    this.#shrink(maker, [...ahead].reverse(), fromAhead);
    this.#shrink(maker, [...behind].reverse(), volume.minus(fromAhead));
  }

  #shrink(maker: Account, entries: readonly BookEntry[], volume: Decimal): void {
    let left = volume;
    for (const e of entries) {
      if (!left.gt(0)) return;
      if (e.qty.lte(left)) {
        this.#cancel(maker, e.txid);
        left = left.minus(e.qty);
      } else {
        const order = this.#ctx.engine.order(e.txid);
        if (order !== undefined) this.#ctx.engine.reduce(maker, order, e.qty.minus(left));
        left = new Decimal(0);
      }
    }
  }

  /**
   * Recorded volume joins the back of its level. Below the order minimum it is placed at the
   * minimum and shrunk at once: recorded remainders are that small, a new order cannot be.
   */
  #rest(maker: Account, pair: SimPair, side: Side, price: Decimal, volume: Decimal): void {
    const floor = Decimal.max(pair.orderMin, pair.costMin.div(price)).toDecimalPlaces(
      pair.lot_decimals,
      Decimal.ROUND_UP,
    );
    const placed = Decimal.max(volume, floor);
    const order = this.#place(maker, limitSpec(pair, side, placed, price, 'GTC'));
    if (order === undefined || order.status !== 'open' || placed.eq(volume)) return;
    const left = order.spec.volume.minus(order.volExec);
    if (left.gt(volume)) this.#ctx.engine.reduce(maker, order, volume);
  }

  #place(account: Account, spec: OrderSpec): ReturnType<SimContext['engine']['place']> | undefined {
    try {
      return this.#ctx.engine.place(account, spec);
    } catch (err) {
      if (!(err instanceof SimError)) throw err;
      this.stats.refused += 1;
      return undefined;
    }
  }

  #cancel(account: Account, txid: string): void {
    const order = this.#ctx.engine.order(txid);
    if (order !== undefined) this.#ctx.engine.cancel(account, order);
  }
}

function limitSpec(
  pair: SimPair,
  side: Side,
  volume: Decimal,
  price: Decimal,
  timeinforce: 'GTC' | 'IOC',
): OrderSpec {
  return {
    pair,
    side,
    ordertype: 'limit',
    volume,
    price: { kind: 'abs', value: price },
    trigger: 'last',
    flags: { post: false, fcib: false, fciq: false, nompp: false, viqc: false },
    timeinforce,
    starttmMs: 0,
    expiretmMs: 0,
    userref: 0,
    stptype: 'cancel-newest',
    reduceOnly: false,
  };
}
