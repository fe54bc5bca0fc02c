import {
  Decimal,
  type BookView,
  type Level3Order,
  type Level3View,
  type PriceLevel,
  type PublicTrade,
  type Side,
} from '../core/index.js';
import { fromAhead, type QueueRule } from './queue-rule.js';

const ZERO = new Decimal(0);

/** One of our resting orders as the estimator is told of it. */
export interface QueueOrder {
  readonly txid: string;
  readonly side: Side;
  readonly price: Decimal;
  /** What still rests. */
  readonly remaining: Decimal;
  /** When the exchange acknowledged it (local clock); 0 while not yet. */
  readonly openedAtMs: number;
}

/** Where one of our orders stands, as the events so far say. */
export interface Place {
  readonly order: QueueOrder;
  /** Our volume still resting: the tracker's, less what trades at our price have filled since. */
  readonly remaining: Decimal;
  /** The market's volume ahead; undefined while no answer has shown the level since we joined. */
  readonly ahead: Decimal | undefined;
  readonly behind: Decimal;
  readonly source: 'level3' | 'depth';
  readonly asOfMs: number;
}

/**
 * The queue places of our orders in one pair, moved on by one event at a time in exchange-time
 * order (QueueEstimator decides the order). Plain state: `copy()` gives an independent one, so an
 * estimate can be folded forward from it and thrown away.
 */
export class QueueBook {
  readonly #rule: QueueRule;
  readonly places = new Map<string, Place>();
  /** The last Depth answer folded (our orders included, as the venue shows them) and its time. */
  #book: BookView | undefined;
  #bookAtMs = -Infinity;
  /** Trades since that answer: volume per side and price, and the furthest price traded through. */
  #traded = new Map<string, Decimal>();
  #lowestSell: Decimal | undefined;
  #highestBuy: Decimal | undefined;

  constructor(rule: QueueRule) {
    this.#rule = rule;
  }

  get bookAtMs(): number {
    return this.#bookAtMs;
  }

  copy(): QueueBook {
    const out = new QueueBook(this.#rule);
    for (const [txid, p] of this.places) out.places.set(txid, p);
    out.#book = this.#book;
    out.#bookAtMs = this.#bookAtMs;
    out.#traded = new Map(this.#traded);
    out.#lowestSell = this.#lowestSell;
    out.#highestBuy = this.#highestBuy;
    return out;
  }

  /**
   * Our order joins the back of its level: ahead of it is the market's volume there now, the last
   * Depth answer's less our own orders it held and less the trades at that price since; behind it
   * nothing yet. A price that answer did not reach stays unknown until one shows it.
   */
  place(order: QueueOrder, atMs: number): void {
    this.places.set(order.txid, {
      order,
      remaining: order.remaining,
      ahead: this.#marketAt(order),
      behind: ZERO,
      source: 'depth',
      asOfMs: atMs,
    });
  }

  drop(txid: string): void {
    this.places.delete(txid);
  }

  /** The tracker saw a fill of ours: whatever was ahead has traded. */
  filled(txid: string, remaining: Decimal, atMs: number): void {
    const p = this.places.get(txid);
    if (p !== undefined)
      this.#set(p, { ahead: ZERO, remaining: Decimal.min(p.remaining, remaining) }, atMs);
  }

  /**
   * A public trade takes the front of the queue it hits: at our price the volume ahead first, then
   * ours (in time priority when several of ours share the price), then what is behind; a trade
   * through our price (a sell below our bid, a buy above our ask) emptied our level.
   */
  trade(t: PublicTrade): void {
    const hit: Side = t.side === 'buy' ? 'sell' : 'buy';
    this.#noteTrade(hit, t);
    const atPrice: Place[] = [];
    for (const p of this.places.values()) {
      // An order acknowledged after the print (told late, folded at once) was not in the queue.
      if (p.order.side !== hit || p.order.openedAtMs > t.timeMs) continue;
      if (p.order.price.eq(t.price)) atPrice.push(p);
      else if (through(hit, p.order.price, t.price)) {
        this.#set(p, { ahead: ZERO, behind: ZERO, remaining: ZERO }, t.timeMs);
      }
    }
    atPrice.sort(queueOrder);
    let oursFilled = ZERO;
    for (const p of atPrice) {
      if (p.ahead === undefined) continue;
      const volume = t.volume.minus(oursFilled);
      if (!volume.gt(0)) break;
      const fromAhead = Decimal.min(volume, p.ahead);
      const reaching = volume.minus(fromAhead);
      const ours = Decimal.min(reaching, p.remaining);
      const past = Decimal.min(reaching.minus(ours), p.behind);
      oursFilled = oursFilled.plus(ours);
      this.#set(
        p,
        {
          ahead: p.ahead.minus(fromAhead),
          behind: p.behind.minus(past),
          remaining: p.remaining.minus(ours),
        },
        t.timeMs,
      );
    }
  }

  /**
   * A Depth answer (the venue's levels, ours included). At each of our prices the market's volume
   * is the level's less our orders there. Against what the queue held after the trades since the
   * last answer, a decrease is cancels: split between ahead and behind by the rule; an increase
   * joined behind us. A level missing within the range shown is empty. A price beyond that range
   * says nothing.
   */
  depth(book: BookView, atMs: number): void {
    for (const p of [...this.places.values()]) {
      const now = marketVolume(book, p.order, this.#oursAt(p.order, Infinity));
      if (now === undefined) continue;
      if (p.ahead === undefined) {
        this.#set(p, { ahead: now, behind: ZERO }, atMs);
        continue;
      }
      const before = p.ahead.plus(p.behind);
      if (now.gt(before)) {
        this.#set(p, { behind: p.behind.plus(now.minus(before)) }, atMs);
      } else if (now.lt(before)) {
        const gone = before.minus(now);
        const front = fromAhead(this.#rule, p.ahead, p.behind, gone);
        this.#set(
          p,
          { ahead: p.ahead.minus(front), behind: p.behind.minus(gone.minus(front)) },
          atMs,
        );
      }
    }
    this.#book = book;
    this.#bookAtMs = atMs;
    this.#traded = new Map();
    this.#lowestSell = undefined;
    this.#highestBuy = undefined;
  }

  /**
   * A Level3 answer: for each of our orders it lists, the volume of the other orders at its price
   * before it in the queue (earlier time, or the same time listed before it) and after it, exactly.
   * Orders of ours it lists are in neither.
   */
  level3(view: Level3View, atMs: number): void {
    for (const p of this.places.values()) {
      const entries = p.order.side === 'buy' ? view.bids : view.asks;
      const queue = entries.filter((e) => e.price.eq(p.order.price));
      const index = queue.findIndex((e) => e.orderId === p.order.txid);
      const ours = queue[index];
      if (ours === undefined) continue;
      let ahead = ZERO;
      let behind = ZERO;
      for (const [i, e] of queue.entries()) {
        if (e.own || this.places.has(e.orderId)) continue;
        if (before(e, i, ours, index)) ahead = ahead.plus(e.volume);
        else behind = behind.plus(e.volume);
      }
      this.places.set(p.order.txid, {
        ...p,
        ahead,
        behind,
        remaining: ours.volume,
        source: 'level3',
        asOfMs: atMs,
      });
    }
  }

  #set(
    p: Place,
    change: { ahead?: Decimal; behind?: Decimal; remaining?: Decimal },
    atMs: number,
  ): void {
    const next: Place = {
      ...p,
      ahead: change.ahead ?? p.ahead,
      behind: Decimal.max(change.behind ?? p.behind, ZERO),
      remaining: Decimal.max(change.remaining ?? p.remaining, ZERO),
    };
    const same =
      sameAmount(next.ahead, p.ahead) && next.behind.eq(p.behind) && next.remaining.eq(p.remaining);
    if (!same) this.places.set(p.order.txid, { ...next, asOfMs: atMs });
  }

  /** Our volume resting at `order`'s price, of orders acknowledged by `untilMs`. */
  #oursAt(order: QueueOrder, untilMs: number): Decimal {
    let sum = ZERO;
    for (const p of this.places.values()) {
      const o = p.order;
      if (o.side === order.side && o.price.eq(order.price) && o.openedAtMs <= untilMs) {
        sum = sum.plus(p.remaining);
      }
    }
    return sum;
  }

  #noteTrade(hit: Side, t: PublicTrade): void {
    const key = `${hit}:${t.price.toFixed()}`;
    this.#traded.set(key, (this.#traded.get(key) ?? ZERO).plus(t.volume));
    if (hit === 'buy') {
      if (this.#lowestSell === undefined || t.price.lt(this.#lowestSell))
        this.#lowestSell = t.price;
    } else if (this.#highestBuy === undefined || t.price.gt(this.#highestBuy)) {
      this.#highestBuy = t.price;
    }
  }

  /** The market's volume at an order's price now, as far as the last answer and trades since say. */
  #marketAt(order: QueueOrder): Decimal | undefined {
    if (this.#book === undefined) return undefined;
    // Our orders that answer held: those acknowledged before it, the one joining included.
    let ours = this.#oursAt(order, this.#bookAtMs);
    if (order.openedAtMs <= this.#bookAtMs) ours = ours.plus(order.remaining);
    const level = marketVolume(this.#book, order, ours);
    if (level === undefined) return undefined;
    const swept = order.side === 'buy' ? this.#lowestSell : this.#highestBuy;
    if (swept !== undefined && through(order.side, order.price, swept)) return ZERO;
    const traded = this.#traded.get(`${order.side}:${order.price.toFixed()}`) ?? ZERO;
    return Decimal.max(level.minus(traded), ZERO);
  }
}

/** Whether a trade at `tradePrice` went past an order of `side` at `price`. */
function through(side: Side, price: Decimal, tradePrice: Decimal): boolean {
  return side === 'buy' ? price.gt(tradePrice) : price.lt(tradePrice);
}

/**
 * The market's volume at `order`'s price in a Depth answer: the level less `ours` (our volume
 * there); 0 when the level is missing within the range shown; undefined beyond it.
 */
function marketVolume(book: BookView, order: QueueOrder, ours: Decimal): Decimal | undefined {
  const levels = order.side === 'buy' ? book.bids : book.asks;
  const level = levels.find((l) => l.price.eq(order.price));
  if (level === undefined) return within(levels, order) ? ZERO : undefined;
  return Decimal.max(level.volume.minus(ours), ZERO);
}

function within(levels: readonly PriceLevel[], order: QueueOrder): boolean {
  const deepest = levels[levels.length - 1];
  if (deepest === undefined) return false;
  return order.side === 'buy' ? order.price.gte(deepest.price) : order.price.lte(deepest.price);
}

/** Time priority among our orders at one price. */
function queueOrder(a: Place, b: Place): number {
  return (
    a.order.openedAtMs - b.order.openedAtMs ||
    (a.order.txid < b.order.txid ? -1 : a.order.txid > b.order.txid ? 1 : 0)
  );
}

/** Whether `e` (listed at `i`) comes before `ours` (listed at `index`) in the queue. */
function before(e: Level3Order, i: number, ours: Level3Order, index: number): boolean {
  return e.timestampNs < ours.timestampNs || (e.timestampNs === ours.timestampNs && i < index);
}

function sameAmount(a: Decimal | undefined, b: Decimal | undefined): boolean {
  return a === undefined || b === undefined ? a === b : a.eq(b);
}
