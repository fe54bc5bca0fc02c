import { Decimal } from '../../core/index.js';
import { fromAhead, type QueueRule } from '../../market/index.js';
import type { SimContext } from '../../sim/context.js';
import type { BookEntry, OrderSpec, Side, SimOrder } from '../../sim/engine/types.js';
import { limitSpec } from '../../sim/engine/limit-spec.js';
import { SimError } from '../../sim/errors.js';
import type { SimPair } from '../../sim/markets.js';
import type { Account } from '../../sim/state/accounts.js';
import type { SystemMode } from '../../sim/state/status.js';

/**
 * Recorded participants: the makers of each book side, and one key for recorded takers:
 * self-trade prevention never stops a recorded trade, and recorded bids and asks never meet (a
 * recorded book is not crossed). A side's levels are spread over DEPTH_KEYS keys by price (these
 * are the first), so a deep book (an import of a whole venue's book) stays under each key's
 * open-orders limit, 225 on the pro tier.
 */
export const RECORDED_BID_KEY = '__recorded_bids__';
export const RECORDED_ASK_KEY = '__recorded_asks__';
const DEPTH_KEYS = 8;
export const RECORDED_TAKER_KEY = '__recorded_taker__';
/** Every recorded participant's key starts so; no exchange key does. */
const RECORDED_PREFIX = '__recorded_';
/**
 * Level3 orders are mirrored one by one: spread over this many keys per side, a deep book stays
 * under each key's open-orders limit (225 on the pro tier).
 */
const LEVEL3_KEYS = 8;

export function isRecordedKey(key: string): boolean {
  return key.startsWith(RECORDED_PREFIX);
}

const HUGE = '1000000000000000000';

/** One price level as recorded: price and volume exactly as the exchange wrote them. */
export interface RecordedLevel {
  readonly price: Decimal;
  readonly volume: Decimal;
}

/** One resting order as a Level3 answer lists it, in queue order. */
export interface RecordedOrder {
  readonly id: string;
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
  /** Imported book changes applied (BookUpdate rows: every change, not poll answers). */
  bookUpdates: number;
  /** Level3 answers mirrored (their pair's Depth answers are then not used for its book). */
  level3Updates: number;
  tradesApplied: number;
  /** Recorded trades below the pair's order minimum: no taker order can carry them. */
  tradesTooSmall: number;
  /** Our resting volume filled at once because a recorded trade went through its price. */
  tradeThroughs: number;
  /** Placements the engine refused (a price off the tick grid...): counted, never fatal. */
  refused: number;
  /** The same, by pair altname. */
  readonly refusedByPair: Record<string, number>;
}

/**
 * Drives the simulator's matching engine from a recording instead of the background market.
 *
 * Books: at each recorded Depth answer the recorded participants' volume per level is set to the
 * recorded volume minus the live session's own orders (recorded OpenOrders). Volume added joins
 * the back of its level. Volume removed where none of our replay orders rests is simply taken
 * off; where one rests, it is split between the orders ahead of ours and those behind by the
 * configured queue rule (market.queue.rule: hftbacktest's probabilistic queue models, the same
 * rule the live queue estimator uses), so cancels move us forward by the rule's share. Where Level3 is
 * recorded, the recorded orders are mirrored by id instead (applyLevel3): the queue is exact.
 *
 * Trades: each recorded trade is sent as a taker order of the recorded taker at its price and
 * volume, at its own exchange time; it takes the queue in FIFO order. Recorded volume at prices
 * better than the trade's is taken off first (the print proves it had gone), and our orders at
 * those prices are traded through: the taker order carries their volume too, so they fill at once.
 */
export class RecordedMarket {
  readonly #ctx: SimContext;
  readonly #rule: QueueRule;
  readonly #depthMakers: Record<Side, Account[]>;
  readonly #taker: Account;
  readonly #level3Makers: Record<Side, Account[]>;
  /** The live session's own open volume per pair, side and price (recorded OpenOrders). */
  #own = new Map<string, Map<string, Decimal>>();
  /** The live session's own order ids per pair, left out of Level3 answers. */
  #ownIds = new Map<string, Set<string>>();
  /** Pairs whose book comes from Level3 answers. */
  readonly #level3Pairs = new Set<string>();
  /** Recorded Level3 order id to the engine's txid, and back. */
  readonly #mirror = new Map<string, string>();
  readonly #mirrored = new Map<string, string>();
  readonly stats: RecordedMarketStats = {
    depthUpdates: 0,
    bookUpdates: 0,
    level3Updates: 0,
    tradesApplied: 0,
    tradesTooSmall: 0,
    tradeThroughs: 0,
    refused: 0,
    refusedByPair: {},
  };

  constructor(ctx: SimContext, rule: QueueRule) {
    this.#ctx = ctx;
    this.#rule = rule;
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
    const depthShards = (first: string, side: string): Account[] =>
      Array.from({ length: DEPTH_KEYS }, (_, i) =>
        account(i === 0 ? first : `${RECORDED_PREFIX}${side}_${i}__`),
      );
    this.#depthMakers = {
      buy: depthShards(RECORDED_BID_KEY, 'bids'),
      sell: depthShards(RECORDED_ASK_KEY, 'asks'),
    };
    this.#taker = account(RECORDED_TAKER_KEY);
    const shards = (side: string): Account[] =>
      Array.from({ length: LEVEL3_KEYS }, (_, i) => account(`${RECORDED_PREFIX}l3_${side}_${i}__`));
    this.#level3Makers = { buy: shards('bids'), sell: shards('asks') };
  }

  /** The exchange's status as recorded. */
  setMode(mode: SystemMode): void {
    this.#ctx.status.setMode(mode);
  }

  /**
   * The live session's own open orders (when the recording was made while trading): their volume
   * is in the recorded book and is not the recorded participants'. With `only`, they replace that
   * pair's (an OwnOrders row); without, every pair's (a key-wide OpenOrders answer).
   */
  setOwnOrders(
    orders: readonly { id?: string; pair: SimPair; side: Side; price: Decimal; volume: Decimal }[],
    only?: SimPair,
  ): void {
    const own = new Map<string, Map<string, Decimal>>();
    const ids = new Map<string, Set<string>>();
    if (only !== undefined) {
      for (const [key, byPrice] of this.#own) {
        if (!key.startsWith(`${only.id}:`)) own.set(key, byPrice);
      }
      for (const [pairId, set] of this.#ownIds) if (pairId !== only.id) ids.set(pairId, set);
    }
    this.#ownIds = ids;
    for (const o of orders) {
      if (o.id !== undefined) {
        let set = ids.get(o.pair.id);
        if (set === undefined) ids.set(o.pair.id, (set = new Set<string>()));
        set.add(o.id);
      }
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
    if (this.#level3Pairs.has(pair.id)) return;
    this.stats.depthUpdates += 1;
    this.#setLevels(pair, bids, asks, true);
  }

  /**
   * An imported book's change (a BookUpdate row): each level listed is set to its volume, the
   * others stay as they are; a snapshot is a Depth answer (the levels not listed go). Both sides'
   * removals first, as for Depth.
   */
  applyBookUpdate(
    pair: SimPair,
    bids: readonly RecordedLevel[],
    asks: readonly RecordedLevel[],
    snapshot: boolean,
  ): void {
    this.stats.bookUpdates += 1;
    this.#setLevels(pair, bids, asks, snapshot);
  }

  /**
   * Brings the recorded participants' volume to the levels given: on the whole book (`whole`: a
   * level not given goes), or at the levels given only.
   */
  #setLevels(
    pair: SimPair,
    bids: readonly RecordedLevel[],
    asks: readonly RecordedLevel[],
    whole: boolean,
  ): void {
    const engine = this.#ctx.engine;
    const entries = (side: Side, levels: readonly RecordedLevel[]): readonly BookEntry[] => {
      if (whole || engine.queue === undefined) {
        const view = engine.book(pair);
        const all = side === 'buy' ? view.bids : view.asks;
        return whole ? all : all.filter((e) => levels.some((l) => l.price.eq(e.price)));
      }
      return levels.flatMap((l) => engine.queue?.(pair, side, l.price) ?? []);
    };
    const plans = [
      this.#plan(pair, 'buy', entries('buy', bids), bids),
      this.#plan(pair, 'sell', entries('sell', asks), asks),
    ];
    for (const plan of plans) for (const cut of plan.cuts) cut();
    for (const plan of plans) for (const add of plan.adds) add();
  }

  /** A recorded trade, at its own time. */
  applyTrade(pair: SimPair, trade: RecordedTrade): void {
    const engine = this.#ctx.engine;
    const hit = trade.side === 'buy' ? 'sell' : 'buy';
    const better = (p: Decimal): boolean => (hit === 'buy' ? p.gt(trade.price) : p.lt(trade.price));
    let through = new Decimal(0);
    // Most prints are at the best price: the whole book is listed only when one is not.
    const top = engine.top?.(pair);
    const best = hit === 'buy' ? top?.bid : top?.ask;
    if (top === undefined || (best !== undefined && better(best))) {
      const view = engine.book(pair);
      for (const e of hit === 'buy' ? view.bids : view.asks) {
        if (!better(e.price)) break;
        if (isRecordedKey(e.accountKey)) this.#cancelEntry(e);
        else through = through.plus(e.qty);
      }
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

  /**
   * A recorded Level3 answer: the recorded orders mirrored by id, so the queue is exact. An order
   * gone from the answer is cancelled where it stands, one that shrank is reduced in place, a new
   * one joins the back of its level (in the answer's queue order). Levels beyond the answer's are
   * removed, as for Depth.
   */
  applyLevel3(pair: SimPair, bids: readonly RecordedOrder[], asks: readonly RecordedOrder[]): void {
    this.#level3Pairs.add(pair.id);
    this.stats.level3Updates += 1;
    const view = this.#ctx.engine.book(pair);
    const adds: (() => void)[] = [];
    for (const [side, entries, recorded] of [
      ['buy', view.bids, bids],
      ['sell', view.asks, asks],
    ] as const) {
      const ownIds = this.#ownIds.get(pair.id);
      const orders = recorded.filter((o) => ownIds?.has(o.id) !== true);
      const listed = new Set(orders.map((o) => o.id));
      const resting = new Map<string, BookEntry>();
      for (const e of entries) {
        if (!isRecordedKey(e.accountKey)) continue;
        const id = this.#mirrored.get(e.txid);
        if (id === undefined || !listed.has(id)) this.#cancelEntry(e);
        else resting.set(id, e);
      }
      for (const o of orders) {
        const e = resting.get(o.id);
        if (e === undefined) {
          adds.push(() => this.#mirrorOrder(pair, side, o));
        } else if (o.volume.lt(e.qty)) {
          const order = this.#ctx.engine.order(e.txid);
          const account = this.#ctx.accounts.get(e.accountKey);
          if (order !== undefined && account !== undefined) {
            this.#ctx.engine.reduce(account, order, o.volume);
          }
        }
        // Grown: left as it is; the venue would have sent it to the back, a later answer may.
      }
    }
    for (const add of adds) add();
  }

  #mirrorOrder(pair: SimPair, side: Side, o: RecordedOrder): void {
    const shards = this.#level3Makers[side];
    const maker = shards[hashOf(o.id) % shards.length] as Account;
    const order = this.#rest(maker, pair, side, o.price, o.volume);
    if (order === undefined || order.status !== 'open') return;
    this.#mirror.set(o.id, order.txid);
    this.#mirrored.set(order.txid, o.id);
  }

  #cancelEntry(e: BookEntry): void {
    const account = this.#ctx.accounts.get(e.accountKey);
    if (account !== undefined) this.#cancel(account, e.txid);
    const id = this.#mirrored.get(e.txid);
    if (id !== undefined) {
      this.#mirrored.delete(e.txid);
      this.#mirror.delete(id);
    }
  }

  /** The recorded maker of one price: the same key for a price, neighbours on different keys. */
  #maker(pair: SimPair, side: Side, price: Decimal): Account {
    const ticks = Math.round(price.div(pair.tick).toNumber());
    const shards = this.#depthMakers[side];
    return shards[((ticks % DEPTH_KEYS) + DEPTH_KEYS) % DEPTH_KEYS] as Account;
  }

  /**
   * The cuts and adds that bring a side to the recorded levels: every level of the engine's side
   * when `entries` is its whole view (a level not recorded is removed), else the levels recorded
   * only (`entries` then holds their queues).
   */
  #plan(
    pair: SimPair,
    side: Side,
    entries: readonly BookEntry[],
    recorded: readonly RecordedLevel[],
  ): { cuts: (() => void)[]; adds: (() => void)[] } {
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
      const maker = this.#maker(pair, side, q.price);
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
    let front = fromAhead(this.#rule, a, b, volume).toDecimalPlaces(
      pair.lot_decimals,
      Decimal.ROUND_HALF_EVEN,
    );
    if (volume.minus(front).gt(b)) front = volume.minus(b);
    if (front.gt(a)) front = a;
    // Nearest to ours first on each side: which recorded order shrinks does not move us.
    this.#shrink(maker, [...ahead].reverse(), front);
    this.#shrink(maker, [...behind].reverse(), volume.minus(front));
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
  #rest(
    maker: Account,
    pair: SimPair,
    side: Side,
    price: Decimal,
    volume: Decimal,
  ): SimOrder | undefined {
    const floor = Decimal.max(pair.orderMin, pair.costMin.div(price)).toDecimalPlaces(
      pair.lot_decimals,
      Decimal.ROUND_UP,
    );
    const placed = Decimal.max(volume, floor);
    const order = this.#place(maker, limitSpec(pair, side, placed, price, 'GTC'));
    if (order === undefined || order.status !== 'open' || placed.eq(volume)) return order;
    const left = order.spec.volume.minus(order.volExec);
    if (left.gt(volume)) this.#ctx.engine.reduce(maker, order, volume);
    return order;
  }

  #place(account: Account, spec: OrderSpec): SimOrder | undefined {
    try {
      return this.#ctx.engine.place(account, spec);
    } catch (err) {
      if (!(err instanceof SimError)) throw err;
      this.stats.refused += 1;
      const pair = spec.pair.altname;
      this.stats.refusedByPair[pair] = (this.stats.refusedByPair[pair] ?? 0) + 1;
      return undefined;
    }
  }

  #cancel(account: Account, txid: string): void {
    const order = this.#ctx.engine.order(txid);
    if (order !== undefined) this.#ctx.engine.cancel(account, order);
  }
}

/** A stable spread of ids over the Level3 keys. */
function hashOf(id: string): number {
  let h = 0;
  for (let i = 0; i < id.length; i++) h = (h * 31 + id.charCodeAt(i)) >>> 0;
  return h;
}
