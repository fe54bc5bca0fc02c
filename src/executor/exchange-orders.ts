import { dec, decodeUserref, slotKey } from '../core/index.js';
import type { Order } from '../exchange/endpoints/account.js';
import type { PairInfo } from '../core/index.js';
import { UnknownOrderError, type CallOptions, type SpotClient } from '../exchange/index.js';
import { OTHER_LIMITS } from '../exchange/limits/index.js';
import type { OrderState, TrackedOrder } from '../orders/types.js';

/**
 * When the executions an exchange order shows happened, as closely as the exchange says: a closed
 * order's close time bounds them (a filled order closes on its last execution), otherwise we only
 * know they happened by now, when we learned of them. A fill timed when it was learned (up to a
 * reconcile interval late) would measure its spread and markouts against a later mid.
 */
export function executedAtMs(o: Order, nowMs: number): number {
  const closed = o.closetm;
  return closed !== undefined && closed > 0 ? Math.min(nowMs, Math.round(closed * 1000)) : nowMs;
}

/** Our record of what an exchange order looks like now, keeping what only we know (slot...). */
export function viewOf(
  txid: string,
  o: Order,
  known: TrackedOrder | undefined,
  pair: string,
  nowMs: number,
): TrackedOrder {
  const decoded = decodeUserref(o.userref);
  const executed = dec(o.vol_exec);
  const state: OrderState =
    o.status === 'closed'
      ? 'filled'
      : o.status === 'canceled' || o.status === 'expired'
        ? 'canceled'
        : executed.gt(0)
          ? 'partially-filled'
          : 'open';
  const flags = o.oflags.split(',');
  const terminal = state === 'filled' || state === 'canceled';
  return {
    userref: o.userref ?? known?.userref ?? 0,
    txid,
    pair,
    slot: known?.slot ?? (decoded === undefined ? 'foreign' : slotKey(decoded.slot)),
    generation: known?.generation ?? decoded?.generation ?? 0,
    side: o.descr.type === 'sell' ? 'sell' : 'buy',
    price: o.descr.price,
    volume: o.vol,
    volumeExecuted: o.vol_exec,
    cost: o.cost,
    fee: o.fee,
    postOnly: flags.includes('post'),
    feeIn: flags.includes('fcib') ? 'base' : 'quote',
    state,
    // An adopted order's age is counted from a second after the exchange's open time, so clock
    // differences make it look younger (dearer to touch), never older.
    openedAtMs: known?.openedAtMs || Math.min(nowMs, Math.round(o.opentm * 1000) + 1_000),
    sentAtMs: known?.sentAtMs ?? 0,
    deadlineMs: known?.deadlineMs ?? 0,
    updatedAtMs: nowMs,
    pendingCall: null,
    replaces: known?.replaces ?? null,
    reason: terminal ? (o.reason ?? (state === 'filled' ? 'filled' : 'canceled')) : null,
    origin: known?.origin ?? 'adopted',
  };
}

export function isPairOrder(o: Order, pair: PairInfo): boolean {
  return o.descr.pair === pair.altname || o.descr.pair === pair.id;
}

/** An answer to a read, with when it was asked (the asker's clock): it shows nothing later. */
export interface Read<T> {
  readonly atMs: number;
  readonly orders: T;
}

/**
 * A read asked longer ago than this is not handed to another pair's sync: it would hide the fills
 * and cancels since. Long enough for the pairs' periodic syncs, which start milliseconds apart.
 */
export const SHARE_MS = 1_000;

/** A ClosedOrders read: from `startS`, and whether it holds every page. */
interface ClosedRead extends Read<Record<string, Order>> {
  readonly startS: number;
  readonly complete: boolean;
}

/**
 * The key's order reads shared by every pair this process works. OpenOrders and ClosedOrders
 * have no pair filter, so the pairs' syncs, which start milliseconds apart, share one call (and
 * one REST point) when it was asked at or after what the caller needs (`notBeforeMs`: after its
 * pair's last order-entry call was answered) and at most SHARE_MS ago.
 */
export class OrderReads {
  readonly #client: SpotClient;
  readonly #call: CallOptions;
  #open: { atMs: number; result: Promise<Read<Record<string, Order>>> } | undefined;
  #closed: { atMs: number; startS: number; result: Promise<ClosedRead> } | undefined;

  /**
   * `signal` ends every read when the executor stops: after a halt's burst a read waits seconds
   * for REST budget (a point every 3 s on the starter tier), and would hold the stop, then write
   * to the tracker after the pair's lease was given back.
   */
  constructor(client: SpotClient, signal?: AbortSignal) {
    this.#client = client;
    this.#call = signal === undefined ? {} : { signal };
  }

  /** Open orders asked no earlier than `notBeforeMs` (and SHARE_MS before `nowMs`). */
  open(notBeforeMs: number, nowMs: number): Promise<Read<Record<string, Order>>> {
    const cached = this.#open;
    if (cached !== undefined && shareable(cached.atMs, notBeforeMs, nowMs)) return cached.result;
    const result = this.#client
      .openOrders({}, this.#call)
      .then((r) => ({ atMs: nowMs, orders: r.result.open }));
    this.#open = { atMs: nowMs, result };
    result.catch(() => {
      if (this.#open?.result === result) this.#open = undefined;
    });
    return result;
  }

  /**
   * Closed orders opened or closed since `sinceMs`, every page (at most `maxPages`), asked no
   * earlier than `notBeforeMs` (and SHARE_MS before `nowMs`). A read cut short by `maxPages` is
   * not shared.
   */
  async closedSince(
    sinceMs: number,
    notBeforeMs: number,
    nowMs: number,
    maxPages = 10,
  ): Promise<Read<Record<string, Order>>> {
    const startS = Math.floor(sinceMs / 1000);
    const cached = this.#closed;
    if (
      cached !== undefined &&
      cached.startS <= startS &&
      shareable(cached.atMs, notBeforeMs, nowMs)
    ) {
      const read = await cached.result.catch(() => undefined);
      if (read?.complete === true) return read;
    }
    const result = this.#closedPages(startS, nowMs, maxPages);
    this.#closed = { atMs: nowMs, startS, result };
    result.catch(() => {
      if (this.#closed?.result === result) this.#closed = undefined;
    });
    return result;
  }

  async #closedPages(startS: number, atMs: number, maxPages: number): Promise<ClosedRead> {
    const orders: Record<string, Order> = {};
    for (let page = 0; page < maxPages; page++) {
      const ofs = page * OTHER_LIMITS.closedOrdersPageSize;
      const { result } = await this.#client.closedOrders(
        { start: startS, ofs, closetime: 'both' },
        this.#call,
      );
      const entries = Object.entries(result.closed);
      for (const [txid, o] of entries) orders[txid] = o;
      if (
        entries.length < OTHER_LIMITS.closedOrdersPageSize ||
        ofs + entries.length >= result.count
      )
        return { atMs, startS, orders, complete: true };
    }
    return { atMs, startS, orders, complete: false };
  }

  /** QueryOrders in chunks of 50 ids. */
  async query(txids: readonly string[]): Promise<Record<string, Order>> {
    const out: Record<string, Order> = {};
    for (let i = 0; i < txids.length; i += 50) {
      const { result } = await this.#client.queryOrders(
        { txid: txids.slice(i, i + 50) },
        this.#call,
      );
      Object.assign(out, result);
    }
    return out;
  }

  /**
   * QueryOrders where one id the exchange does not know refuses the whole call
   * (`EOrder:Unknown order`): those ids are asked one at a time and the unknown ones left out
   * of the answer. Costs a call per id, only when the batch was refused.
   */
  async queryKnown(txids: readonly string[]): Promise<Record<string, Order>> {
    try {
      return await this.query(txids);
    } catch (err) {
      if (!(err instanceof UnknownOrderError)) throw err;
    }
    const out: Record<string, Order> = {};
    for (const txid of txids) {
      try {
        Object.assign(out, (await this.#client.queryOrders({ txid: [txid] }, this.#call)).result);
      } catch (err) {
        if (!(err instanceof UnknownOrderError)) throw err;
      }
    }
    return out;
  }
}

function shareable(atMs: number, notBeforeMs: number, nowMs: number): boolean {
  return atMs >= notBeforeMs && atMs >= nowMs - SHARE_MS;
}
