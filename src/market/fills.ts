import { dec, Decimal, type PairInfo, type Side } from '../core/index.js';
import type { Order } from '../exchange/index.js';
import { orderInPair } from './snapshot-builder.js';

/** A fill of one of the key's orders, found by comparing successive OpenOrders answers. */
export interface MarketFill {
  /** Pair id. */
  readonly pair: string;
  readonly txid: string;
  readonly userref: number | null;
  readonly side: Side;
  readonly price: Decimal;
  readonly volume: Decimal;
  /** When the fill was seen (or the order's close time, for an order that vanished). */
  readonly timeMs: number;
}

interface Seen {
  readonly pair: PairInfo;
  readonly userref: number | null;
  readonly side: Side;
  readonly limitPrice: Decimal;
  readonly volExec: Decimal;
  /** The order's average fill price so far (`price`), zero before its first fill. */
  readonly average: Decimal;
  readonly postOnly: boolean;
}

const ZERO = new Decimal(0);

/**
 * Polling cannot see trades happen, only their traces: vol_exec grows on an order still open, or
 * an order disappears. A vanished order may have filled before it closed, so its final vol_exec is
 * read with QueryOrders (the feed asks for the ids in pendingQueries()). An order placed and fully
 * filled between two polls is never seen here; the executor's own tracker covers that case.
 */
export class FillTracker {
  readonly #pairs: readonly PairInfo[];
  #seen = new Map<string, Seen>();
  /** Vanished orders still to be read with QueryOrders. */
  readonly #pending = new Map<string, Seen>();
  #baselined = false;

  constructor(pairs: readonly PairInfo[]) {
    this.#pairs = pairs;
  }

  /** Compares a new OpenOrders answer with the previous one. The first answer is the baseline. */
  observeOpen(open: Readonly<Record<string, Order>>, nowMs: number): MarketFill[] {
    const fills: MarketFill[] = [];
    const next = new Map<string, Seen>();
    for (const [txid, order] of Object.entries(open)) {
      const pair = this.#pairs.find((p) => orderInPair(order, p));
      if (pair === undefined) continue;
      const seen = seenOf(pair, order);
      next.set(txid, seen);
      // Orders already partly filled when we start are history, not news.
      const before = this.#seen.get(txid) ?? (this.#baselined ? emptyLike(seen) : seen);
      const fill = fillBetween(txid, before, seen, nowMs);
      if (fill !== undefined) fills.push(fill);
    }
    for (const [txid, seen] of this.#seen) {
      if (!next.has(txid)) this.#pending.set(txid, seen);
    }
    this.#seen = next;
    this.#baselined = true;
    return fills;
  }

  /** Up to `max` vanished order ids whose final state is still unknown. */
  pendingQueries(max = 50): string[] {
    return [...this.#pending.keys()].slice(0, max);
  }

  /** Gives up on vanished orders the venue refuses to describe (EOrder:Unknown order). */
  forget(txids: readonly string[]): void {
    for (const txid of txids) this.#pending.delete(txid);
  }

  /**
   * Settles vanished orders with their QueryOrders records. Ids asked for but missing from the
   * answer are dropped: the venue no longer knows them, so nothing more can be learnt.
   */
  observeQueried(
    asked: readonly string[],
    result: Readonly<Record<string, Order>>,
    nowMs: number,
  ): MarketFill[] {
    const fills: MarketFill[] = [];
    for (const txid of asked) {
      const before = this.#pending.get(txid);
      this.#pending.delete(txid);
      const order = result[txid];
      if (before === undefined || order === undefined) continue;
      const at = order.closetm !== undefined && order.closetm > 0 ? order.closetm * 1000 : nowMs;
      const fill = fillBetween(txid, before, seenOf(before.pair, order), Math.round(at));
      if (fill !== undefined) fills.push(fill);
    }
    return fills;
  }
}

function seenOf(pair: PairInfo, order: Order): Seen {
  return {
    pair,
    userref: order.userref,
    side: order.descr.type === 'sell' ? 'sell' : 'buy',
    limitPrice: dec(order.descr.price),
    volExec: dec(order.vol_exec),
    average: dec(order.price),
    postOnly: order.oflags.split(',').includes('post'),
  };
}

function emptyLike(seen: Seen): Seen {
  return { ...seen, volExec: ZERO, average: ZERO };
}

/**
 * The fill between two observations of one order. A post-only order only ever makes, so it fills
 * at its limit price exactly. Otherwise the price comes from the change of the average fill price
 * (volume-weighted), rounded to the pair's price decimals as the venue rounds its averages; the
 * limit price is the fallback when the venue reports no average.
 */
function fillBetween(
  txid: string,
  before: Seen,
  after: Seen,
  timeMs: number,
): MarketFill | undefined {
  const volume = after.volExec.minus(before.volExec);
  if (volume.lte(0)) return undefined;
  return {
    pair: after.pair.id,
    txid,
    userref: after.userref,
    side: after.side,
    price: fillPrice(before, after, volume),
    volume,
    timeMs,
  };
}

function fillPrice(before: Seen, after: Seen, volume: Decimal): Decimal {
  if (after.postOnly && after.limitPrice.gt(0)) return after.limitPrice;
  if (after.average.gt(0)) {
    if (before.volExec.isZero()) return after.average;
    if (before.average.gt(0)) {
      return after.average
        .times(after.volExec)
        .minus(before.average.times(before.volExec))
        .div(volume)
        .toDecimalPlaces(after.pair.priceDecimals);
    }
  }
  return after.limitPrice.gt(0) ? after.limitPrice : after.average;
}
