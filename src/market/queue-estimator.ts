import type { BookView, Decimal, Level3View, PublicTrade, QueuePosition } from '../core/index.js';
import { QueueBook, type Place, type QueueOrder } from './queue-book.js';
import { queueRuleName, type QueueRule } from './queue-rule.js';

export interface QueueEstimatorOptions {
  readonly rule: QueueRule;
  /**
   * How long an answer waits for the trades before it to arrive before it is folded without
   * them; 0 when trades are not followed (every answer is final as it arrives).
   */
  readonly tradesWaitMs: number;
}

type QueueEvent =
  | { readonly kind: 'place'; readonly order: QueueOrder }
  | { readonly kind: 'fill'; readonly txid: string; readonly remaining: Decimal }
  | { readonly kind: 'trade'; readonly trade: PublicTrade }
  | { readonly kind: 'depth'; readonly book: BookView }
  | { readonly kind: 'level3'; readonly view: Level3View };

interface Timed {
  readonly atMs: number;
  readonly seq: number;
  readonly event: QueueEvent;
}

/** At one instant: our order joins, then trades print, then a book answer shows the result. */
const RANK: Readonly<Record<QueueEvent['kind'], number>> = {
  place: 0,
  trade: 1,
  fill: 2,
  depth: 3,
  level3: 3,
};

export interface QueueEstimatorStats {
  /** Trades that arrived after a Depth answer later than them was final: left out. */
  lateTrades: number;
}

/**
 * Where each of our resting orders in one pair stands in its price's queue (DESIGN.md §3.17):
 * exact from each Level3 answer that lists it, otherwise estimated from Depth answers and the
 * public trades, a Depth decrease the trades do not explain being split between ahead and behind
 * by the queue rule. Pure: no I/O and no clock; every time is passed in.
 *
 * Order of events. A Depth answer shows the level after every trade before it, but the trades
 * arrive later (Trades is polled less often). So events are folded in exchange-time order: each
 * trade at its own time, a Depth or Level3 answer at its arrival (the moment restingInBook also
 * uses to decide which of our orders an answer holds), our order at its acknowledgement. What is
 * known through the trades' horizon (`trades(…, completeThroughMs)`) is final; answers after it
 * wait for their trades, and until then the estimate folds them without those trades (a trade's
 * decrease then counts as cancels) and folds them again once the trades are in. An answer waits
 * at most `tradesWaitMs`; a trade older than a final answer is left out (counted in `stats`): that
 * answer has split its volume by the rule already.
 */
export class QueueEstimator {
  readonly #ruleName: string;
  readonly #waitMs: number;
  readonly #final: QueueBook;
  /** Not yet final, in order. */
  #pending: Timed[] = [];
  /** Everything up to this time is final. */
  #finalMs = -Infinity;
  /** Our orders as last told, with the tracker's remaining volume. */
  readonly #orders = new Map<string, QueueOrder>();
  #seq = 0;
  #positions: readonly QueuePosition[] | undefined;
  readonly stats: QueueEstimatorStats = { lateTrades: 0 };

  constructor(options: QueueEstimatorOptions) {
    this.#ruleName = queueRuleName(options.rule);
    this.#waitMs = options.tradesWaitMs;
    this.#final = new QueueBook(options.rule);
  }

  /**
   * Our resting orders now (those not yet acknowledged, openedAtMs 0, are not in a queue yet). A
   * new one joins its level at its acknowledgement; one whose remaining volume shrank was filled,
   * so the front of its queue has traded; one missing has left the book.
   */
  orders(list: readonly QueueOrder[], nowMs: number): void {
    const seen = new Set<string>();
    for (const o of list) {
      if (o.openedAtMs <= 0) continue;
      seen.add(o.txid);
      const known = this.#orders.get(o.txid);
      this.#orders.set(o.txid, o);
      if (known === undefined) {
        this.#add(o.openedAtMs, { kind: 'place', order: o });
      } else if (o.remaining.lt(known.remaining)) {
        // Told now; the trades that filled it may come later, and are folded before it.
        this.#add(Math.max(nowMs, o.openedAtMs), {
          kind: 'fill',
          txid: o.txid,
          remaining: o.remaining,
        });
      }
    }
    for (const txid of [...this.#orders.keys()]) {
      if (seen.has(txid)) continue;
      this.#orders.delete(txid);
      this.#final.drop(txid);
      this.#pending = this.#pending.filter((t) => txidOf(t.event) !== txid);
      this.#positions = undefined;
    }
  }

  /** A Depth answer (the venue's levels, our orders included) that arrived at `atMs`. */
  depth(book: BookView, atMs: number): void {
    this.#add(atMs, { kind: 'depth', book });
    this.#settle(atMs - this.#waitMs);
  }

  /** A Level3 answer that arrived at `atMs`; its orders of ours are flagged `own` or are ours. */
  level3(view: Level3View, atMs: number): void {
    this.#add(atMs, { kind: 'level3', view });
    this.#settle(atMs - this.#waitMs);
  }

  /**
   * Public trades not given before, each at its exchange time; none is missing up to
   * `completeThroughMs`.
   */
  trades(trades: readonly PublicTrade[], completeThroughMs: number): void {
    for (const trade of trades) {
      if (trade.timeMs > this.#finalMs) this.#add(trade.timeMs, { kind: 'trade', trade });
      else if (trade.timeMs >= this.#final.bookAtMs) {
        this.#final.trade(trade);
        this.#positions = undefined;
      } else this.stats.lateTrades += 1;
    }
    this.#settle(completeThroughMs);
  }

  /** The estimate now: every event so far, those not final included. Best price first per side. */
  positions(): readonly QueuePosition[] {
    if (this.#positions !== undefined) return this.#positions;
    const book = this.#final.copy();
    for (const t of this.#pending) apply(book, t);
    const out: QueuePosition[] = [];
    for (const p of book.places.values()) {
      if (p.ahead === undefined) continue;
      out.push(this.#position(p, p.ahead));
    }
    out.sort(
      (a, b) =>
        (a.side === b.side ? 0 : a.side === 'buy' ? -1 : 1) ||
        (a.side === 'buy' ? b.price.comparedTo(a.price) : a.price.comparedTo(b.price)),
    );
    this.#positions = out;
    return out;
  }

  #position(p: Place, ahead: QueuePosition['ahead']): QueuePosition {
    return {
      txid: p.order.txid,
      side: p.order.side,
      price: p.order.price,
      ahead,
      behind: p.behind,
      source: p.source,
      rule: this.#ruleName,
      asOfMs: p.asOfMs,
    };
  }

  /** An event at `atMs`: folded at once when that moment is final already, else kept in order. */
  #add(atMs: number, event: QueueEvent): void {
    this.#positions = undefined;
    const timed: Timed = { atMs, seq: this.#seq++, event };
    if (atMs <= this.#finalMs) {
      apply(this.#final, timed);
      return;
    }
    const list = this.#pending;
    let i = list.length;
    while (i > 0 && later(list[i - 1] as Timed, timed)) i--;
    list.splice(i, 0, timed);
  }

  /** Folds every pending event up to `untilMs` into the final state. */
  #settle(untilMs: number): void {
    if (untilMs <= this.#finalMs) return;
    this.#finalMs = untilMs;
    let n = 0;
    for (const t of this.#pending) {
      if (t.atMs > untilMs) break;
      apply(this.#final, t);
      n++;
    }
    if (n > 0) this.#pending = this.#pending.slice(n);
  }
}

function txidOf(e: QueueEvent): string | undefined {
  return e.kind === 'place' ? e.order.txid : e.kind === 'fill' ? e.txid : undefined;
}

function later(a: Timed, b: Timed): boolean {
  return (
    a.atMs > b.atMs ||
    (a.atMs === b.atMs &&
      (RANK[a.event.kind] > RANK[b.event.kind] ||
        (RANK[a.event.kind] === RANK[b.event.kind] && a.seq > b.seq)))
  );
}

function apply(book: QueueBook, t: Timed): void {
  const e = t.event;
  switch (e.kind) {
    case 'place':
      book.place(e.order, t.atMs);
      return;
    case 'fill':
      book.filled(e.txid, e.remaining, t.atMs);
      return;
    case 'trade':
      book.trade(e.trade);
      return;
    case 'depth':
      book.depth(e.book, t.atMs);
      return;
    case 'level3':
      book.level3(e.view, t.atMs);
      return;
  }
}
