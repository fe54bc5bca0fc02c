import { Decimal, TimerQueue } from '../../core/index.js';
import { MATCHING_ENGINE } from '../../exchange/limits/index.js';
import { invalidArguments, SimError } from '../errors.js';
import type { SimPair } from '../markets.js';
import type { Account } from '../state/accounts.js';
import { BookSide, type PriceLevel } from './book.js';
import { costHold, feeInBase, restingHold, volumeHold, type Hold } from './holds.js';
import type { AccountBook, LiveOrder, PairBook } from './live-order.js';
import { ERR, REASON } from './messages.js';
import {
  becomesLimit,
  isStopType,
  isTickMultiple,
  isTrailing,
  limitDirection,
  priceDirection,
  resolvePrice,
  toTicks,
  trailingStop,
  triggerDirection,
  type Direction,
} from './prices.js';
import { legOf, type Leg } from './settlement.js';
import type {
  BookEntry,
  BookView,
  EditSpec,
  Engine,
  EngineOptions,
  OrderSpec,
  OrderStatus,
  PlaceOptions,
  PriceSpec,
  PublicTrade,
  Side,
  SimOrder,
  SimTrade,
  TopOfBook,
} from './types.js';
import { checkSpec } from './validation.js';
import { VolumeWindow } from './volume.js';

const ZERO = new Decimal(0);
const HUNDRED = new Decimal(100);
const PROTECTION_UP = new Decimal('1.01');
const PROTECTION_DOWN = new Decimal('0.99');
const NS_PER_MS = 1_000_000n;
const USD = 'ZUSD';

type RelPrice = Extract<PriceSpec, { kind: 'rel' }>;

/** Executed amounts an edited order takes over from the one it replaces. */
interface Carry {
  readonly volExec: Decimal;
  readonly cost: Decimal;
  readonly fee: Decimal;
}

/** An order that passed every check, not yet admitted. */
interface Draft {
  readonly account: Account;
  readonly spec: OrderSpec;
  readonly pb: PairBook;
  readonly limitPrice: Decimal | undefined;
  readonly stopPrice: Decimal | undefined;
  readonly extreme: Decimal | undefined;
  readonly reservePrice: Decimal | undefined;
  readonly waiting: 'start' | 'trigger' | undefined;
  readonly remaining: Decimal;
  readonly hold: Hold;
  readonly refid: string | undefined;
  readonly carry: Carry | undefined;
}

interface PrepareContext {
  /** EditOrder: the order being replaced; its hold counts as available, its slot as free. */
  readonly replacing?: LiveOrder;
  readonly refid?: string;
  readonly carry?: Carry;
}

type MatchEnd = 'filled' | 'exhausted' | 'bound' | 'gone';

/**
 * The exchange's matching engine: per-pair books with price-time priority, stop and trailing
 * triggers on the last trade (or index) price, holds, fees, trades and ledgers.
 *
 * Every public call is one operation: work it sets off (fired stops, conditional closes) runs
 * before it returns, and listeners hear about prints and book changes once it is complete, so
 * they never see a half-matched book.
 *
 * Icebergs: only the current slice (`displayvol`) is visible and matchable at its queue place.
 * When a slice is used up the next one joins the back of the queue with a new timestamp, so
 * hidden volume trades after every order that was visible at that price before it.
 *
 * Conditional close orders are created once, when the primary has executed and leaves the book
 * on its own (filled, expired, or an IOC or market remainder lapsing), for the whole executed
 * volume. Cancelling or editing a primary creates none. A close order that fails the checks of a
 * new order (order minimum, funds...) is not created.
 */

/** Closed orders, fills and ledger entries kept per background account (see #trimHistory). */
const BACKGROUND_HISTORY = 1000;

export class MatchingEngine implements Engine {
  readonly #options: EngineOptions;
  readonly #pairs = new Map<string, PairBook>();
  readonly #usdPair = new Map<string, SimPair | undefined>();
  readonly #accounts = new Map<string, AccountBook>();
  readonly #orders = new Map<string, SimOrder>();
  readonly #live = new Map<string, LiveOrder>();
  readonly #tradesById = new Map<string, SimTrade>();
  readonly #timers = new TimerQueue<{ live: LiveOrder; kind: 'start' | 'expire' }>();
  readonly #fees = new Map<string, Decimal>();

  #depth = 0;
  #now = 0;
  #draining = false;
  readonly #work: (() => void)[] = [];
  readonly #prints: PublicTrade[] = [];
  readonly #dirty = new Set<PairBook>();
  /** Set when a trigger check was skipped because trading was off. */
  #recheckTriggers = false;

  constructor(options: EngineOptions) {
    this.#options = options;
    for (const pair of options.markets.pairs) this.#pairBook(pair);
  }

  // ---- order entry ---------------------------------------------------------------------------

  place(account: Account, spec: OrderSpec, options?: PlaceOptions): SimOrder {
    return this.#op(() => {
      const draft = this.#prepare(account, spec, {});
      if (options?.validateOnly === true) return this.#preview(draft);
      const live = this.#admit(draft);
      this.#enter(live);
      return live.order;
    });
  }

  /**
   * Each order is placed (and its consequences run) before the next is looked at, so a later
   * order sees the holds and fills of earlier ones. With `validateOnly` nothing is placed, so each
   * order is checked against the account as it is.
   */
  placeBatch(
    account: Account,
    specs: readonly OrderSpec[],
    options?: PlaceOptions,
  ): (SimOrder | SimError)[] {
    const pairId = specs[0]?.pair.id;
    if (specs.some((s) => s.pair.id !== pairId)) throw invalidArguments('pair');
    return this.#op(() =>
      specs.map((spec) => {
        try {
          return this.place(account, spec, options);
        } catch (err) {
          if (err instanceof SimError) return err;
          throw err;
        }
      }),
    );
  }

  edit(account: Account, order: SimOrder, changes: EditSpec, options?: PlaceOptions): SimOrder {
    return this.#op(() => {
      const live = this.#live.get(order.txid);
      if (live === undefined || live.account.key !== account.key) {
        throw new SimError(ERR.editNotOpen);
      }
      const o = live.order;
      if (o.triggered) throw new SimError(ERR.editTriggered);
      if (o.spec.close !== undefined) throw new SimError(ERR.editCloseTerms);
      const volume = changes.volume ?? o.spec.volume;
      if (o.volExec.gte(volume)) throw new SimError(ERR.editVolume);
      const spec: OrderSpec = {
        ...o.spec,
        volume,
        displayvol: changes.displayvol ?? o.spec.displayvol,
        price: changes.price ?? keptPrice(o),
        price2: changes.price2 ?? o.spec.price2,
        userref: changes.userref ?? 0,
        flags: { ...o.spec.flags, post: changes.post },
      };
      const draft = this.#prepare(account, spec, {
        replacing: live,
        refid: o.txid,
        carry: { volExec: o.volExec, cost: o.cost, fee: o.fee },
      });
      if (options?.validateOnly === true) return this.#preview(draft);
      this.#finish(live, 'canceled', REASON.replaced);
      const next = this.#admit(draft);
      this.#enter(next);
      return next.order;
    });
  }

  cancel(account: Account, order: SimOrder, reason: string = REASON.user): void {
    this.#op(() => {
      const live = this.#live.get(order.txid);
      if (live === undefined) return;
      if (live.account.key !== account.key) {
        throw new Error(`order ${order.txid} does not belong to ${account.key}`);
      }
      this.#finish(live, 'canceled', reason);
    });
  }

  reduce(account: Account, order: SimOrder, remaining: Decimal): void {
    this.#op(() => {
      const live = this.#live.get(order.txid);
      if (live === undefined) return;
      if (live.account.key !== account.key) {
        throw new Error(`order ${order.txid} does not belong to ${account.key}`);
      }
      if (live.node === undefined || order.spec.displayvol !== undefined) {
        throw new Error(`order ${order.txid} is not a resting plain limit order`);
      }
      if (!remaining.gt(0) || !remaining.lt(live.remaining)) {
        throw new Error(`order ${order.txid}: ${remaining.toFixed()} is not a smaller remainder`);
      }
      live.remaining = remaining;
      live.node.qty = remaining;
      this.#setHold(live, this.#restingHoldOf(live));
      this.#touch(live.book);
    });
  }

  cancelAll(account: Account, reason: string = REASON.user): SimOrder[] {
    return this.#op(() => {
      const book = this.#accounts.get(account.key);
      if (book === undefined) return [];
      const lives = [...book.live.values()];
      for (const live of lives) this.#finish(live, 'canceled', reason);
      return lives.map((l) => l.order);
    });
  }

  tick(nowMs: number): void {
    this.#op(() => {
      for (;;) {
        const due = this.#timers.popDue(nowMs);
        if (due === undefined) break;
        const { live, kind } = due;
        if (this.#live.get(live.order.txid) !== live) continue;
        if (kind === 'expire') this.#finish(live, 'expired', undefined);
        else if (live.waiting === 'start') this.#activate(live);
      }
      if (!this.#canTrade()) return;
      const recheck = this.#recheckTriggers;
      this.#recheckTriggers = false;
      for (const pb of this.#pairs.values()) {
        if (pb.triggers.size === 0) continue;
        const last = this.#lastPrice(pb);
        const index = this.#options.indexPrice?.(pb.pair) ?? last;
        for (const t of pb.triggers) {
          if (t.order.spec.trigger === 'index') this.#checkAndTrip(t, index);
          else if (recheck) this.#checkAndTrip(t, last);
        }
      }
    }, nowMs);
  }

  // ---- queries -------------------------------------------------------------------------------

  find(account: Account, txidOrUserref: string | number): SimOrder[] {
    const book = this.#accounts.get(account.key);
    if (book === undefined) return [];
    const ref = txidOrUserref;
    if (typeof ref === 'number' || /^[+-]?\d+$/.test(ref)) {
      const userref = Number(ref);
      const out: SimOrder[] = [];
      for (const live of book.live.values()) {
        if (live.order.spec.userref === userref) out.push(live.order);
      }
      return out;
    }
    const live = book.live.get(ref);
    return live === undefined ? [] : [live.order];
  }

  order(txid: string): SimOrder | undefined {
    return this.#orders.get(txid);
  }

  openOrders(account: Account, pair?: SimPair): SimOrder[] {
    const book = this.#accounts.get(account.key);
    if (book === undefined) return [];
    const out: SimOrder[] = [];
    for (const live of book.live.values()) {
      if (pair === undefined || live.order.pair.id === pair.id) out.push(live.order);
    }
    return out;
  }

  closedOrders(account: Account): SimOrder[] {
    return (this.#accounts.get(account.key)?.closed ?? []).slice().reverse();
  }

  trades(account: Account): SimTrade[] {
    return (this.#accounts.get(account.key)?.trades ?? []).slice();
  }

  trade(id: string): SimTrade | undefined {
    return this.#tradesById.get(id);
  }

  book(pair: SimPair, maxLevels?: number): BookView {
    const pb = this.#pairBook(pair);
    if (maxLevels !== undefined) {
      return { bids: sideView(pb.bids, maxLevels), asks: sideView(pb.asks, maxLevels) };
    }
    if (pb.view?.version !== pb.version) {
      pb.view = {
        version: pb.version,
        view: { bids: sideView(pb.bids, Infinity), asks: sideView(pb.asks, Infinity) },
      };
    }
    return pb.view.view;
  }

  queue(pair: SimPair, side: Side, price: Decimal): BookEntry[] {
    const pb = this.#pairBook(pair);
    const level = (side === 'buy' ? pb.bids : pb.asks).at(toTicks(price, pb.pair.tick));
    return level === undefined ? [] : levelEntries(level);
  }

  top(pair: SimPair): TopOfBook {
    const pb = this.#pairBook(pair);
    return { bid: pb.bids.best()?.price, ask: pb.asks.best()?.price };
  }

  lastTrade(pair: SimPair): PublicTrade | undefined {
    return this.#pairBook(pair).last;
  }

  volumeUsd(account: Account): Decimal {
    return this.#accountBook(account).volume.total(this.#depth > 0 ? this.#now : this.#clock());
  }

  creditVolumeUsd(account: Account, usd: Decimal): void {
    this.#accountBook(account).volume.add(this.#clock(), usd);
  }

  /** Fees collected by the exchange so far, per asset (for reconciliation). */
  collectedFees(): ReadonlyMap<string, Decimal> {
    return this.#fees;
  }

  // ---- operations ----------------------------------------------------------------------------

  #op<T>(fn: () => T, nowMs?: number): T {
    const outer = this.#depth === 0;
    if (outer) this.#now = nowMs ?? this.#clock();
    this.#depth += 1;
    try {
      const result = fn();
      this.#drain();
      return result;
    } finally {
      this.#depth -= 1;
      if (outer) {
        this.#work.length = 0;
        this.#flush();
      }
    }
  }

  #drain(): void {
    if (this.#draining) return;
    this.#draining = true;
    try {
      // Items may push more items (a fired stop's prints fire the next stop).
      for (let i = 0; i < this.#work.length; i++) (this.#work[i] as () => void)();
    } finally {
      this.#work.length = 0;
      this.#draining = false;
    }
  }

  #flush(): void {
    const { trade, book } = this.#options.listeners ?? {};
    const prints = this.#prints.splice(0);
    const dirty = [...this.#dirty];
    this.#dirty.clear();
    if (trade !== undefined) for (const p of prints) trade(p);
    if (book !== undefined) for (const pb of dirty) book(pb.pair);
  }

  // ---- checks --------------------------------------------------------------------------------

  #prepare(account: Account, spec: OrderSpec, ctx: PrepareContext): Draft {
    const now = this.#now;
    checkSpec(spec, now);
    const pb = this.#pairBook(spec.pair);
    const pair = pb.pair;
    const { side, ordertype, flags } = spec;

    if (!flags.viqc && spec.volume.lt(pair.orderMin)) throw new SimError(ERR.orderMinimum);

    const last = this.#lastPrice(pb);
    let limitPrice: Decimal | undefined;
    let stopPrice: Decimal | undefined;
    let extreme: Decimal | undefined;
    if (ordertype === 'limit') {
      limitPrice = orderPrice(spec.price, last, priceDirection(ordertype, side), pair, 'price');
    } else if (isStopType(ordertype)) {
      if (isTrailing(ordertype)) {
        extreme = this.#triggerPrice(pb, spec.trigger);
        stopPrice = trailingStop(side, extreme, spec.price as RelPrice, pair.tick);
        if (!stopPrice.gt(0)) throw invalidArguments('price');
      } else {
        stopPrice = orderPrice(spec.price, last, priceDirection(ordertype, side), pair, 'price');
      }
      if (becomesLimit(ordertype)) {
        limitPrice = orderPrice(spec.price2, stopPrice, limitDirection(side), pair, 'price2');
      }
    }

    const priced = limitPrice ?? stopPrice;
    const belowCostMin = flags.viqc
      ? spec.volume.lt(pair.costMin)
      : priced !== undefined && priced.times(spec.volume).lt(pair.costMin);
    if (belowCostMin) throw new SimError(ERR.costMinimum);

    if (
      ctx.replacing === undefined &&
      this.#liveCount(account, pair) >= MATCHING_ENGINE[account.tier].maxOpenOrders
    ) {
      throw new SimError(ERR.ordersLimit);
    }

    const waiting = spec.starttmMs > now ? 'start' : isStopType(ordertype) ? 'trigger' : undefined;
    const remaining = flags.viqc ? spec.volume : spec.volume.minus(ctx.carry?.volExec ?? ZERO);
    let hold: Hold;
    let reservePrice: Decimal | undefined;
    if (ordertype === 'market') {
      if (waiting === undefined) {
        hold = this.#marketHold(pb, account, spec, remaining);
      } else {
        reservePrice = last;
        hold = waitingMarketHold(spec, remaining, last);
      }
    } else {
      hold = restingHold(pair, side, flags, remaining, (limitPrice ?? stopPrice) as Decimal);
    }
    const replaced = ctx.replacing?.hold;
    const credit = replaced !== undefined && replaced.asset === hold.asset ? replaced.amount : ZERO;
    if (hold.amount.gt(account.wallet.available(hold.asset).plus(credit))) {
      throw new SimError(ERR.insufficientFunds);
    }

    if (waiting === undefined) {
      const crosses = ordertype === 'market' || this.#crosses(pb, side, limitPrice as Decimal);
      if (crosses && flags.post) throw new SimError(ERR.postOnly);
      if (crosses && !this.#canTrade()) throw new SimError(ERR.postOnlyMode);
    }

    return {
      account,
      spec,
      pb,
      limitPrice,
      stopPrice,
      extreme,
      reservePrice,
      waiting,
      remaining,
      hold,
      refid: ctx.refid,
      carry: ctx.carry,
    };
  }

  /** The cost a market order will run up (buy) or the volume it will give (sell), as a hold. */
  #marketHold(pb: PairBook, account: Account, spec: OrderSpec, remaining: Decimal): Hold {
    const { side, flags } = spec;
    const pair = pb.pair;
    if (side === 'buy' && flags.viqc) return costHold(pair, flags, remaining);
    if (side === 'sell' && !flags.viqc) return volumeHold(pair, flags, remaining);
    const bound = this.#protectionBound(pb, side, flags.nompp);
    const opposite = side === 'buy' ? pb.asks : pb.bids;
    // Walks the book as matching will: own orders are skipped because self-trade prevention
    // removes them or stops the order there, so they never add to what it pays.
    let left = remaining;
    let total = ZERO;
    for (const level of opposite.levels()) {
      if (left.isZero() || !reaches(side, level, bound)) break;
      for (let node = level.head; node !== undefined && !left.isZero(); node = node.next) {
        const maker = node.payload;
        if (maker.account.key === account.key) continue;
        if (side === 'buy') {
          const take = Decimal.min(maker.remaining, left);
          total = total.plus(take.times(level.price));
          left = left.minus(take);
        } else {
          const take = Decimal.min(maker.remaining, lotsFor(left, level.price, pair));
          if (take.isZero()) {
            left = ZERO;
            break;
          }
          total = total.plus(take);
          left = left.minus(take.times(level.price));
        }
      }
    }
    return side === 'buy' ? costHold(pair, flags, total) : volumeHold(pair, flags, total);
  }

  #crosses(pb: PairBook, side: OrderSpec['side'], limitPrice: Decimal): boolean {
    const best = (side === 'buy' ? pb.asks : pb.bids).best();
    return best !== undefined && reaches(side, best, toTicks(limitPrice, pb.pair.tick));
  }

  /**
   * Market price protection: without `nompp` a market order trades no further than 1 % from the
   * best opposite price when it starts. In ticks, inclusive.
   */
  #protectionBound(pb: PairBook, side: OrderSpec['side'], nompp: boolean): number {
    const best = (side === 'buy' ? pb.asks : pb.bids).best();
    if (nompp || best === undefined) return side === 'buy' ? Infinity : -Infinity;
    const tick = pb.pair.tick;
    return side === 'buy'
      ? best.price.times(PROTECTION_UP).div(tick).floor().toNumber()
      : best.price.times(PROTECTION_DOWN).div(tick).ceil().toNumber();
  }

  // ---- lifecycle -----------------------------------------------------------------------------

  #preview(d: Draft): SimOrder {
    return this.#newOrder(d, '', msToNs(this.#now));
  }

  #newOrder(d: Draft, txid: string, opentmNs: bigint): SimOrder {
    const { spec } = d;
    const inBase = feeInBase(spec.side, spec.flags);
    return {
      txid,
      accountKey: d.account.key,
      pair: d.pb.pair,
      spec,
      status: d.waiting === undefined ? 'open' : 'pending',
      reason: undefined,
      opentmMs: this.#now,
      opentmNs,
      closetmMs: undefined,
      limitPrice: d.limitPrice,
      stopPrice: d.stopPrice,
      triggered: false,
      volExec: d.carry?.volExec ?? ZERO,
      cost: d.carry?.cost ?? ZERO,
      fee: d.carry?.fee ?? ZERO,
      trades: [],
      refid: d.refid,
      oflags: [
        spec.flags.post ? 'post' : '',
        inBase ? 'fcib' : 'fciq',
        spec.flags.nompp ? 'nompp' : '',
        spec.flags.viqc ? 'viqc' : '',
      ]
        .filter((f) => f !== '')
        .join(','),
      misc: '',
    };
  }

  #admit(d: Draft): LiveOrder {
    const order = this.#newOrder(d, this.#options.ids.order(), this.#nextNs(d.pb));
    const live: LiveOrder = {
      order,
      account: d.account,
      book: d.pb,
      feeInBase: feeInBase(d.spec.side, d.spec.flags),
      remaining: d.remaining,
      hold: { asset: d.hold.asset, amount: ZERO },
      node: undefined,
      waiting: d.waiting,
      marketExec: d.spec.ordertype === 'market' && d.waiting === undefined,
      extreme: d.extreme,
      reservePrice: d.reservePrice,
    };
    this.#orders.set(order.txid, order);
    this.#live.set(order.txid, live);
    const book = this.#accountBook(d.account);
    book.live.set(order.txid, live);
    const pairId = d.pb.pair.id;
    book.livePerPair.set(pairId, (book.livePerPair.get(pairId) ?? 0) + 1);
    this.#setHold(live, d.hold);
    return live;
  }

  #enter(live: LiveOrder): void {
    const spec = live.order.spec;
    if (spec.expiretmMs > 0) this.#timers.push(spec.expiretmMs, { live, kind: 'expire' });
    if (live.waiting === 'start') {
      this.#timers.push(spec.starttmMs, { live, kind: 'start' });
    } else if (live.waiting === 'trigger') {
      this.#arm(live);
    } else {
      this.#execute(live, live.order.opentmNs);
    }
  }

  /** starttm reached. */
  #activate(live: LiveOrder): void {
    const o = live.order;
    const spec = o.spec;
    if (isStopType(spec.ordertype)) {
      live.waiting = 'trigger';
      this.#arm(live);
      return;
    }
    const pb = live.book;
    const crosses =
      spec.ordertype === 'market' || this.#crosses(pb, spec.side, o.limitPrice as Decimal);
    if (crosses && spec.flags.post) {
      this.#finish(live, 'canceled', REASON.postOnly);
      return;
    }
    if (crosses && !this.#canTrade()) {
      // Try again at the next tick: the order cannot enter a book it would cross.
      this.#timers.push(this.#now + 1, { live, kind: 'start' });
      return;
    }
    live.waiting = undefined;
    o.status = 'open';
    if (spec.ordertype === 'market' && !this.#becomeMarket(live)) return;
    this.#execute(live, this.#nextNs(pb));
  }

  #arm(live: LiveOrder): void {
    live.book.triggers.add(live);
    if (!this.#canTrade()) {
      this.#recheckTriggers = true;
      return;
    }
    this.#checkAndTrip(live, this.#triggerPrice(live.book, live.order.spec.trigger));
  }

  /**
   * Moves a trailing stop with `price`, then fires the order if `price` reached its stop. A fired
   * order leaves the armed set at once (so it cannot fire twice) and executes after the work in
   * progress.
   */
  #checkAndTrip(live: LiveOrder, price: Decimal): void {
    if (live.waiting !== 'trigger') return;
    const o = live.order;
    const { side, ordertype } = o.spec;
    if (isTrailing(ordertype)) {
      const extreme = live.extreme ?? price;
      if (live.extreme === undefined || (side === 'sell' ? price.gt(extreme) : price.lt(extreme))) {
        live.extreme = price;
        o.stopPrice = trailingStop(side, price, o.spec.price as RelPrice, o.pair.tick);
        if (becomesLimit(ordertype)) o.limitPrice = this.#triggeredLimit(o);
        this.#setHold(live, this.#restingHoldOf(live));
      }
    }
    const stop = o.stopPrice as Decimal;
    const fired = triggerDirection(ordertype, side) === 'up' ? price.gte(stop) : price.lte(stop);
    if (!fired) return;
    live.book.triggers.delete(live);
    live.waiting = undefined;
    o.triggered = true;
    o.misc = ordertype.startsWith('take-profit') ? 'touched' : 'stopped';
    this.#work.push(() => this.#fire(live));
  }

  #fire(live: LiveOrder): void {
    if (this.#live.get(live.order.txid) !== live) return;
    const o = live.order;
    o.status = 'open';
    if (becomesLimit(o.spec.ordertype)) {
      o.limitPrice = this.#triggeredLimit(o);
      this.#setHold(live, this.#restingHoldOf(live));
    } else if (!this.#becomeMarket(live)) {
      return;
    }
    this.#execute(live, this.#nextNs(live.book));
  }

  /** Re-estimates a market execution's hold from the book now; false if it cannot be paid. */
  #becomeMarket(live: LiveOrder): boolean {
    const need = this.#marketHold(live.book, live.account, live.order.spec, live.remaining);
    const own = live.hold.asset === need.asset ? live.hold.amount : ZERO;
    if (need.amount.gt(live.account.wallet.available(need.asset).plus(own))) {
      this.#finish(live, 'canceled', REASON.insufficientFunds);
      return false;
    }
    live.marketExec = true;
    this.#setHold(live, need);
    return true;
  }

  #triggeredLimit(o: SimOrder): Decimal {
    const dir: Direction = limitDirection(o.spec.side);
    return orderPrice(o.spec.price2, o.stopPrice as Decimal, dir, o.pair, 'price2');
  }

  /** Matches an order that is due to trade now, then rests, lapses or closes what is left. */
  #execute(live: LiveOrder, restNs: bigint): void {
    const o = live.order;
    const pb = live.book;
    const side = o.spec.side;
    const bound = live.marketExec
      ? this.#protectionBound(pb, side, o.spec.flags.nompp)
      : toTicks(o.limitPrice as Decimal, pb.pair.tick);
    const prices: Decimal[] = [];
    const end = this.#match(live, bound, prices);
    if (end !== 'gone') {
      if (end === 'filled') this.#finish(live, 'closed', undefined);
      else if (live.marketExec) {
        const reason = end === 'bound' ? REASON.priceProtection : REASON.noLiquidity;
        this.#finish(live, 'canceled', reason);
      } else if (o.spec.timeinforce === 'IOC')
        this.#finish(live, 'canceled', REASON.immediateOrCancel);
      else this.#rest(live, restNs);
    }
    this.#afterPrints(pb, prices);
  }

  #match(live: LiveOrder, bound: number, prices: Decimal[]): MatchEnd {
    const o = live.order;
    const pb = live.book;
    const side = o.spec.side;
    const opposite = side === 'buy' ? pb.asks : pb.bids;
    for (;;) {
      if (live.remaining.isZero()) return 'filled';
      const level = opposite.best();
      if (level === undefined) return 'exhausted';
      if (!reaches(side, level, bound)) return 'bound';
      const node = level.head as NonNullable<typeof level.head>;
      const maker = node.payload;
      if (maker.account.key === live.account.key) {
        const stp = o.spec.stptype;
        if (stp !== 'cancel-newest') this.#finish(maker, 'canceled', REASON.selfTrade);
        if (stp !== 'cancel-oldest') {
          this.#finish(live, 'canceled', REASON.selfTrade);
          return 'gone';
        }
        continue;
      }
      const vol = o.spec.flags.viqc
        ? Decimal.min(node.qty, lotsFor(live.remaining, level.price, pb.pair))
        : Decimal.min(node.qty, live.remaining);
      // A quote amount too small to buy one lot is what a viqc order cannot spend: it is done.
      if (vol.isZero()) return 'filled';
      const unpaid = this.#settle(live, maker, level.price, vol);
      if (unpaid === 'maker') {
        this.#finish(maker, 'canceled', REASON.insufficientFunds);
        continue;
      }
      if (unpaid === 'taker') {
        this.#finish(live, 'canceled', REASON.insufficientFunds);
        return 'gone';
      }
      const lastPrice = prices[prices.length - 1];
      if (lastPrice === undefined || !lastPrice.eq(level.price)) prices.push(level.price);
      node.qty = node.qty.minus(vol);
      this.#touch(pb);
      if (maker.remaining.isZero()) {
        this.#finish(maker, 'closed', undefined);
      } else if (node.qty.isZero()) {
        const slice = Decimal.min(maker.order.spec.displayvol ?? maker.remaining, maker.remaining);
        opposite.requeue(node, slice, this.#nextNs(pb));
      }
    }
  }

  #rest(live: LiveOrder, ns: bigint): void {
    const o = live.order;
    const pb = live.book;
    const side = o.spec.side === 'buy' ? pb.bids : pb.asks;
    const price = o.limitPrice as Decimal;
    const slice = Decimal.min(o.spec.displayvol ?? live.remaining, live.remaining);
    live.node = side.add(toTicks(price, pb.pair.tick), price, slice, ns, live);
    o.status = 'open';
    this.#touch(pb);
  }

  /**
   * Books one fill between an incoming order and a resting one at the resting order's price.
   * Returns which side could not pay (its hold or balance falls short), having changed nothing.
   */
  #settle(
    taker: LiveOrder,
    maker: LiveOrder,
    price: Decimal,
    vol: Decimal,
  ): 'taker' | 'maker' | undefined {
    const pb = taker.book;
    const pair = pb.pair;
    const cost = price.times(vol);
    const takerLeg = legOf(
      taker.order.spec.side,
      taker.feeInBase,
      vol,
      cost,
      this.#rate(taker, false),
    );
    const makerLeg = legOf(
      maker.order.spec.side,
      maker.feeInBase,
      vol,
      cost,
      this.#rate(maker, true),
    );
    if (!canPay(maker, makerLeg)) return 'maker';
    if (!canPay(taker, takerLeg)) return 'taker';

    const publicTrade: PublicTrade = {
      tradeId: pb.nextTradeId++,
      pair,
      price,
      volume: vol,
      timeMs: this.#now,
      side: taker.order.spec.side,
      ordertype: taker.marketExec ? 'm' : 'l',
      misc: '',
    };
    const usd = this.#usdValue(pair, cost);
    for (const [live, leg, other, isMaker] of [
      [taker, takerLeg, maker, false],
      [maker, makerLeg, taker, true],
    ] as const) {
      const o = live.order;
      const id = this.#options.ids.trade();
      const wallet = live.account.wallet;
      const entry = { refid: id, timeMs: this.#now, type: 'trade' as const };
      const ledgers = [
        wallet.post({ ...entry, asset: pair.base, ...leg.base }).id,
        wallet.post({ ...entry, asset: pair.quote, ...leg.quote }).id,
      ];
      const feeAsset = leg.feeIn === 'base' ? pair.base : pair.quote;
      this.#fees.set(feeAsset, (this.#fees.get(feeAsset) ?? ZERO).plus(leg.fee));
      const trade: SimTrade = {
        id,
        accountKey: live.account.key,
        ordertxid: o.txid,
        postxid: other.order.txid,
        pair,
        timeMs: this.#now,
        side: o.spec.side,
        ordertype: o.spec.ordertype,
        price,
        vol,
        cost,
        fee: leg.fee,
        feeAsset,
        maker: isMaker,
        ledgers,
        tradeId: publicTrade.tradeId,
      };
      this.#tradesById.set(id, trade);
      const book = this.#accountBook(live.account);
      book.trades.push(trade);
      this.#trimHistory(live.account, book);
      book.volume.add(this.#now, usd);
      o.volExec = o.volExec.plus(vol);
      o.cost = o.cost.plus(cost);
      o.fee = o.fee.plus(leg.fee);
      o.trades.push(id);
      live.remaining = live.remaining.minus(o.spec.flags.viqc ? cost : vol);
      this.#setHold(
        live,
        live.marketExec
          ? { asset: live.hold.asset, amount: live.hold.amount.minus(leg.debit) }
          : this.#restingHoldOf(live),
      );
    }
    pb.last = publicTrade;
    this.#prints.push(publicTrade);
    return undefined;
  }

  /** Fires armed stops the prints of one execution reached, in print order. */
  #afterPrints(pb: PairBook, prices: readonly Decimal[]): void {
    if (prices.length === 0 || pb.triggers.size === 0) return;
    if (!this.#canTrade()) {
      this.#recheckTriggers = true;
      return;
    }
    for (const price of prices) {
      for (const t of pb.triggers) {
        if (t.order.spec.trigger === 'last') this.#checkAndTrip(t, price);
      }
    }
  }

  /** Takes an order off the book and out of the open set, releasing its hold. */
  #finish(live: LiveOrder, status: OrderStatus, reason: string | undefined): void {
    const o = live.order;
    if (this.#live.get(o.txid) !== live) return;
    this.#live.delete(o.txid);
    const pb = live.book;
    if (live.node !== undefined) {
      (o.spec.side === 'buy' ? pb.bids : pb.asks).remove(live.node);
      live.node = undefined;
      this.#touch(pb);
    }
    pb.triggers.delete(live);
    live.waiting = undefined;
    this.#setHold(live, { asset: live.hold.asset, amount: ZERO });
    o.status = status;
    o.reason = reason;
    o.closetmMs = this.#now;
    const book = this.#accountBook(live.account);
    book.live.delete(o.txid);
    book.livePerPair.set(pb.pair.id, (book.livePerPair.get(pb.pair.id) ?? 1) - 1);
    book.closed.push(o);
    this.#trimHistory(live.account, book);
    if (o.spec.close !== undefined && o.volExec.gt(0) && lapsedOnItsOwn(status, reason)) {
      this.#work.push(() => this.#placeClose(live));
    }
  }

  #placeClose(primary: LiveOrder): void {
    const p = primary.order;
    const close = p.spec.close as NonNullable<OrderSpec['close']>;
    const spec: OrderSpec = {
      pair: p.pair,
      side: p.spec.side === 'buy' ? 'sell' : 'buy',
      ordertype: close.ordertype,
      volume: p.volExec,
      price: close.price,
      price2: close.price2,
      trigger: p.spec.trigger,
      flags: { post: false, fcib: false, fciq: false, nompp: false, viqc: false },
      timeinforce: 'GTC',
      starttmMs: 0,
      expiretmMs: 0,
      userref: p.spec.userref,
      stptype: 'cancel-newest',
      reduceOnly: false,
    };
    try {
      const live = this.#admit(this.#prepare(primary.account, spec, { refid: p.txid }));
      this.#enter(live);
    } catch (err) {
      if (!(err instanceof SimError)) throw err;
    }
  }

  #setHold(live: LiveOrder, next: Hold): void {
    const wallet = live.account.wallet;
    const prev = live.hold;
    if (prev.asset === next.asset) {
      const diff = next.amount.minus(prev.amount);
      if (!diff.isZero()) wallet.addHold(next.asset, diff);
    } else {
      wallet.releaseHold(prev.asset, prev.amount);
      wallet.addHold(next.asset, next.amount);
    }
    live.hold = next;
  }

  /** The hold rule of holds.ts for an order that is not executing as a market order. */
  #restingHoldOf(live: LiveOrder): Hold {
    const o = live.order;
    const spec = o.spec;
    if (spec.ordertype === 'market') {
      return waitingMarketHold(
        spec,
        live.remaining,
        live.reservePrice ?? this.#lastPrice(live.book),
      );
    }
    const price = (o.limitPrice ?? o.stopPrice) as Decimal;
    return restingHold(o.pair, spec.side, spec.flags, live.remaining, price);
  }

  // ---- state helpers -------------------------------------------------------------------------

  #clock(): number {
    return this.#options.clock.now();
  }

  #canTrade(): boolean {
    return this.#options.canTrade?.() ?? true;
  }

  #pairBook(pair: SimPair): PairBook {
    let pb = this.#pairs.get(pair.id);
    if (pb === undefined) {
      pb = {
        pair,
        bids: new BookSide<LiveOrder>(true),
        asks: new BookSide<LiveOrder>(false),
        last: undefined,
        nextTradeId: 1,
        lastNs: 0n,
        triggers: new Set(),
        version: 0,
        view: undefined,
      };
      this.#pairs.set(pair.id, pb);
      this.#usdPair.set(
        pair.id,
        this.#options.markets.pairs.find((p) => p.base === pair.quote && p.quote === USD),
      );
    }
    return pb;
  }

  /**
   * The background participants (and a backtest's recorded ones) place about a million orders a
   * day; nobody queries their history, so only the most recent is kept and a long paper-trading
   * run or replay stays flat in memory. User accounts keep everything unless the engine was told
   * a bound (a backtest's: the bot asks only about its last minutes). Trimmed at twice the bound,
   * so the cost is paid once per `kept` entries.
   */
  #trimHistory(account: Account, book: AccountBook): void {
    const kept = account.kind === 'background' ? BACKGROUND_HISTORY : this.#options.userHistoryKept;
    if (kept === undefined) return;
    const ledger = account.wallet.ledger;
    if (ledger.length > 2 * kept) {
      ledger.splice(0, ledger.length - kept);
    }
    if (book.closed.length > 2 * kept) {
      for (const o of book.closed.splice(0, book.closed.length - kept)) {
        this.#orders.delete(o.txid);
      }
    }
    if (book.trades.length > 2 * kept) {
      for (const t of book.trades.splice(0, book.trades.length - kept)) {
        this.#tradesById.delete(t.id);
      }
    }
  }

  #accountBook(account: Account): AccountBook {
    let book = this.#accounts.get(account.key);
    if (book === undefined) {
      book = {
        live: new Map(),
        livePerPair: new Map(),
        closed: [],
        trades: [],
        volume: new VolumeWindow(),
      };
      this.#accounts.set(account.key, book);
    }
    return book;
  }

  #liveCount(account: Account, pair: SimPair): number {
    return this.#accounts.get(account.key)?.livePerPair.get(pair.id) ?? 0;
  }

  #lastPrice(pb: PairBook): Decimal {
    return pb.last?.price ?? pb.pair.initialPrice;
  }

  /** The price stops compare against: last trade, or the index when asked and available. */
  #triggerPrice(pb: PairBook, trigger: OrderSpec['trigger']): Decimal {
    const last = this.#lastPrice(pb);
    return trigger === 'index' ? (this.#options.indexPrice?.(pb.pair) ?? last) : last;
  }

  #rate(live: LiveOrder, maker: boolean): Decimal {
    const volume = this.#accountBook(live.account).volume.total(this.#now);
    return this.#options.markets.feePercent(live.book.pair, volume, maker).div(HUNDRED);
  }

  /** Quote value in USD: ZUSD as is, other quotes at the last price of `<quote>ZUSD`. */
  #usdValue(pair: SimPair, cost: Decimal): Decimal {
    if (pair.quote === USD) return cost;
    const via = this.#usdPair.get(pair.id);
    return via === undefined ? ZERO : cost.times(this.#lastPrice(this.#pairBook(via)));
  }

  /** Level3 timestamps: the clock in ns, bumped by one when an instant sees several entries. */
  #nextNs(pb: PairBook): bigint {
    const base = msToNs(this.#now);
    pb.lastNs = base > pb.lastNs ? base : pb.lastNs + 1n;
    return pb.lastNs;
  }

  #touch(pb: PairBook): void {
    pb.version += 1;
    this.#dirty.add(pb);
  }
}

// ---- pure helpers ----------------------------------------------------------------------------

/**
 * A clock reading in ms (possibly fractional, e.g. performance.timeOrigin + performance.now()) as
 * whole nanoseconds: the whole ms exactly, plus the fraction's ns (truncated). BigInt() of a
 * fractional number would throw.
 */
export function msToNs(ms: number): bigint {
  const whole = Math.floor(ms);
  return BigInt(whole) * NS_PER_MS + BigInt(Math.floor((ms - whole) * 1e6));
}

/** Whether an order on `side` with a bound of `bound` ticks may take from `level`. */
function reaches(side: OrderSpec['side'], level: PriceLevel<LiveOrder>, bound: number): boolean {
  return side === 'buy' ? level.ticks <= bound : level.ticks >= bound;
}

/** Whole lots a quote amount buys at `price`, rounded down. */
function lotsFor(quote: Decimal, price: Decimal, pair: SimPair): Decimal {
  return quote.div(price).toDecimalPlaces(pair.lot_decimals, Decimal.ROUND_DOWN);
}

/** A price as given (tick-checked) or resolved against `ref`; at or below zero is refused. */
function orderPrice(
  spec: PriceSpec | undefined,
  ref: Decimal,
  dir: Direction,
  pair: SimPair,
  field: string,
): Decimal {
  if (spec === undefined) throw invalidArguments(field);
  const price = resolvePrice(spec, ref, dir, pair.tick);
  if (spec.kind === 'abs' && !isTickMultiple(price, pair.tick)) throw new SimError(ERR.tickSize);
  if (!price.gt(0)) throw invalidArguments(field);
  return price;
}

/** Market orders waiting for starttm hold as if they traded at the last price at placement. */
function waitingMarketHold(spec: OrderSpec, remaining: Decimal, ref: Decimal): Hold {
  const { pair, flags } = spec;
  if (spec.side === 'buy') {
    return flags.viqc
      ? costHold(pair, flags, remaining)
      : restingHold(pair, 'buy', flags, remaining, ref);
  }
  const volume = flags.viqc
    ? remaining.div(ref).toDecimalPlaces(pair.lot_decimals, Decimal.ROUND_UP)
    : remaining;
  return volumeHold(pair, flags, volume);
}

function canPay(live: LiveOrder, leg: Leg): boolean {
  return (
    live.hold.amount.gte(leg.debit) && live.account.wallet.balance(live.hold.asset).gte(leg.debit)
  );
}

/** Closes a primary leaving on its own: filled, expired, or an unfilled remainder lapsing. */
function lapsedOnItsOwn(status: OrderStatus, reason: string | undefined): boolean {
  return (
    status === 'closed' ||
    status === 'expired' ||
    reason === REASON.immediateOrCancel ||
    reason === REASON.priceProtection ||
    reason === REASON.noLiquidity
  );
}

/** EditOrder keeps the price the original resolved to, not its relative form. */
function keptPrice(o: SimOrder): PriceSpec | undefined {
  const t = o.spec.ordertype;
  if (t === 'limit' && o.limitPrice !== undefined) return { kind: 'abs', value: o.limitPrice };
  if (isStopType(t) && !isTrailing(t) && o.stopPrice !== undefined) {
    return { kind: 'abs', value: o.stopPrice };
  }
  return o.spec.price;
}

function sideView(side: BookSide<LiveOrder>, maxLevels: number): BookEntry[] {
  const out: BookEntry[] = [];
  let levels = 0;
  for (const level of side.levels()) {
    if (levels++ >= maxLevels) break;
    out.push(...levelEntries(level));
  }
  return out;
}

function levelEntries(level: PriceLevel<LiveOrder>): BookEntry[] {
  const out: BookEntry[] = [];
  for (let node = level.head; node !== undefined; node = node.next) {
    out.push({
      txid: node.payload.order.txid,
      accountKey: node.payload.account.key,
      price: level.price,
      qty: node.qty,
      timestampNs: node.timestampNs,
    });
  }
  return out;
}
