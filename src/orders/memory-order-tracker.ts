import { InvalidInputError, NO_ROUND_TRIP, dec, type RoundTrip } from '../core/index.js';
import { checkOrder, checkPair, encodeOrder } from './codec.js';
import { TrackerError } from './errors.js';
import type { Fence, OrderTracker } from './order-tracker.js';
import { applyFill, deriveFill, emptyPosition } from './position.js';
import {
  ChangeListeners,
  DEFAULT_FILLS_LIMIT,
  DEFAULT_HISTORY_LIMIT,
  checkAtMs,
  checkFence,
  checkLimit,
  checkRangeLimit,
  checkSameOrder,
  compareOrders,
  isTerminal,
  keepExecution,
  settledEntry,
  settledPair,
} from './tracker-rules.js';
import {
  ORDER_STATES,
  type Fill,
  type OrderState,
  type Position,
  type TrackedOrder,
} from './types.js';

export interface MemoryOrderTrackerOptions {
  /** Who holds a fence key now (the in-process leases): writes need the fence's token there. */
  readonly fenceHolder: (key: string) => string | undefined;
  /** Each read answers after one round trip, each write after two (its read and its write). */
  readonly roundTrip?: RoundTrip;
  readonly historyLimit?: number;
  readonly fillsLimit?: number;
}

interface PairBook {
  /** userref → live record. */
  readonly live: Map<number, TrackedOrder>;
  /** Terminal records, newest first. */
  history: TrackedOrder[];
  /** userref → updatedAtMs of the records in the history (done-refs). */
  readonly doneRefs: Map<number, number>;
  /** Newest first. */
  fills: Fill[];
  position: Position | undefined;
}

/**
 * The order tracker of one process (the replay): OrderTracker's contract (test/stores) over
 * maps. Records are held as the frozen values the callers pass (checked copies), so no write can
 * change what a reader holds. Each call runs to its end in one turn, which is what the Redis
 * tracker's transactions guarantee between processes.
 */
export class MemoryOrderTracker implements OrderTracker {
  readonly #books = new Map<string, PairBook>();
  readonly #fenceHolder: (key: string) => string | undefined;
  readonly #historyLimit: number;
  readonly #fillsLimit: number;
  readonly #trip: RoundTrip;
  readonly #changes = new ChangeListeners();
  #writes: Promise<unknown> = Promise.resolve();

  constructor(options: MemoryOrderTrackerOptions) {
    this.#fenceHolder = options.fenceHolder;
    this.#trip = options.roundTrip ?? NO_ROUND_TRIP;
    this.#historyLimit = checkLimit(options.historyLimit, DEFAULT_HISTORY_LIMIT, 'historyLimit');
    this.#fillsLimit = checkLimit(options.fillsLimit, DEFAULT_FILLS_LIMIT, 'fillsLimit');
  }

  async live(pair: string): Promise<TrackedOrder[]> {
    await this.#trip(1);
    checkPair(pair, 'pair');
    return [...(this.#books.get(pair)?.live.values() ?? [])].sort(compareOrders);
  }

  async get(pair: string, userref: number): Promise<TrackedOrder | undefined> {
    await this.#trip(1);
    checkPair(pair, 'pair');
    if (!Number.isSafeInteger(userref)) {
      throw new InvalidInputError('userref', `must be an integer, got ${userref}`);
    }
    return this.#books.get(pair)?.live.get(userref);
  }

  async byTxid(pair: string, txid: string): Promise<TrackedOrder | undefined> {
    if (typeof txid !== 'string' || txid.length === 0) {
      throw new InvalidInputError('txid', 'must be a non-empty string');
    }
    return (await this.live(pair)).find((order) => order.txid === txid);
  }

  async position(pair: string): Promise<Position> {
    await this.#trip(1);
    checkPair(pair, 'pair');
    return this.#books.get(pair)?.position ?? emptyPosition(pair);
  }

  async fills(pair: string, limit?: number): Promise<Fill[]> {
    await this.#trip(1);
    checkPair(pair, 'pair');
    checkRangeLimit(limit);
    return take(this.#books.get(pair)?.fills, limit);
  }

  async recentFills(pair: string, limit: number): Promise<{ total: number; fills: Fill[] }> {
    await this.#trip(1);
    checkPair(pair, 'pair');
    checkRangeLimit(limit);
    const book = this.#books.get(pair);
    return {
      total: book?.position?.fills ?? 0,
      fills: take(book?.fills, limit),
    };
  }

  async history(pair: string, limit?: number): Promise<TrackedOrder[]> {
    await this.#trip(1);
    checkPair(pair, 'pair');
    checkRangeLimit(limit);
    return take(this.#books.get(pair)?.history, limit);
  }

  async countsByState(pair: string): Promise<Record<OrderState, number>> {
    const counts = Object.fromEntries(ORDER_STATES.map((s) => [s, 0])) as Record<
      OrderState,
      number
    >;
    for (const order of await this.live(pair)) counts[order.state] += 1;
    return counts;
  }

  async pairs(): Promise<string[]> {
    await this.#trip(1);
    return [...this.#books]
      .filter(([, b]) => b.live.size > 0 || b.position !== undefined)
      .map(([pair]) => pair)
      .sort();
  }

  async put(orders: TrackedOrder | readonly TrackedOrder[], fence?: Fence): Promise<void> {
    await this.#writeTurn();
    const list: readonly unknown[] = Array.isArray(orders) ? orders : [orders];
    const checked = list.map((order, i) =>
      checkOrder(order, Array.isArray(orders) ? `orders[${i}]` : 'order'),
    );
    checkFence(fence);
    if (checked.length === 0) return;
    this.#checkFenced(fence, `writing orders of ${checked[0]?.pair ?? ''}`);
    for (const given of checked) {
      const book = this.#book(given.pair);
      const record = keepExecution(given, book.live.get(given.userref));
      if (isTerminal(record)) this.#retire(book, record);
      else book.live.set(record.userref, record);
    }
    for (const pair of new Set(checked.map((o) => o.pair))) this.#changes.tell(pair);
  }

  async applyView(view: TrackedOrder, atMs: number, fence?: Fence): Promise<Fill | undefined> {
    await this.#writeTurn();
    const given = checkOrder(view, 'view');
    checkAtMs(atMs);
    checkFence(fence);
    this.#checkFenced(fence, `applying a view to ${given.pair}`);
    const book = this.#book(given.pair);
    const stored = book.live.get(given.userref);
    let record = given;
    let fill: Fill | undefined;
    if (stored === undefined) {
      if (book.doneRefs.has(given.userref)) return undefined;
    } else {
      checkSameOrder(stored, given);
      if (given.txid === null) record = { ...given, txid: stored.txid };
      if (dec(record.volumeExecuted).lt(dec(stored.volumeExecuted))) {
        return undefined;
      }
      fill = deriveFill(stored, record, atMs);
      if (fill === undefined && encodeOrder(record) === encodeOrder(stored)) {
        return undefined;
      }
    }
    if (fill !== undefined) this.#addFill(book, fill);
    if (isTerminal(record)) this.#retire(book, record);
    else book.live.set(record.userref, record);
    this.#changes.tell(given.pair);
    return fill;
  }

  async settle(
    views: readonly TrackedOrder[],
    atMs: number | ((view: TrackedOrder) => number),
    fence?: Fence,
  ): Promise<Fill[]> {
    await this.#writeTurn();
    const given = views.map((v, i) => checkOrder(v, `views[${i}]`));
    const timeOf = typeof atMs === 'number' ? () => atMs : atMs;
    checkFence(fence);
    const pair = settledPair(given);
    if (pair === undefined) return [];
    this.#checkFenced(fence, `settling ${pair}`);
    const book = this.#book(pair);
    const fills: Fill[] = [];
    for (const view of given) {
      if (view.txid === null) continue;
      const index = book.history.findIndex((o) => o.txid === view.txid);
      const stored = book.history[index];
      if (stored === undefined || stored.userref !== view.userref) continue;
      if (!dec(view.volumeExecuted).gt(dec(stored.volumeExecuted))) continue;
      const fill = deriveFill(stored, { ...view, state: stored.state }, timeOf(view));
      if (fill === undefined) continue;
      this.#addFill(book, fill);
      fills.push(fill);
      book.history[index] = settledEntry(stored, view, timeOf(view));
    }
    if (fills.length > 0) this.#changes.tell(pair);
    return fills;
  }

  onChange(listener: (pair: string) => void): () => void {
    return this.#changes.listen(listener);
  }

  close(): Promise<void> {
    return Promise.resolve();
  }

  /**
   * A write's turn: after the writes before it, then its two round trips (as the Redis tracker's
   * transactions run one after the other on their connection, each a read and a write).
   */
  #writeTurn(): Promise<void> {
    const turn = this.#writes.then(() => this.#trip(2));
    this.#writes = turn.catch(() => undefined);
    return turn;
  }

  #book(pair: string): PairBook {
    let book = this.#books.get(pair);
    if (book === undefined) {
      book = { live: new Map(), history: [], doneRefs: new Map(), fills: [], position: undefined };
      this.#books.set(pair, book);
    }
    return book;
  }

  #checkFenced(fence: Fence | undefined, doing: string): void {
    if (fence === undefined) return;
    const held = this.#fenceHolder(fence.key);
    if (held === fence.token) return;
    throw new TrackerError(
      'TRACKER_FENCED',
      fence.key,
      undefined,
      `${doing}: fence ${fence.key} ${held === undefined ? 'is not set' : "holds another writer's token"}; nothing was written`,
    );
  }

  #addFill(book: PairBook, fill: Fill): void {
    book.position = applyFill(book.position ?? emptyPosition(fill.pair), fill);
    book.fills.unshift(fill);
    if (book.fills.length > this.#fillsLimit) book.fills.length = this.#fillsLimit;
  }

  /** Out of the live records, onto the history and the done-refs, both capped. */
  #retire(book: PairBook, record: TrackedOrder): void {
    book.live.delete(record.userref);
    book.history.unshift(record);
    book.doneRefs.set(record.userref, record.updatedAtMs);
    if (book.history.length > this.#historyLimit) book.history.length = this.#historyLimit;
    while (book.doneRefs.size > this.#historyLimit) {
      // Redis's ZREMRANGEBYRANK drops the lowest score first (then the lowest member as text).
      let oldest: [number, number] | undefined;
      for (const entry of book.doneRefs) {
        if (
          oldest === undefined ||
          entry[1] < oldest[1] ||
          (entry[1] === oldest[1] && String(entry[0]) < String(oldest[0]))
        ) {
          oldest = entry;
        }
      }
      book.doneRefs.delete((oldest as [number, number])[0]);
    }
  }
}

function take<T>(list: readonly T[] | undefined, limit: number | undefined): T[] {
  if (list === undefined || limit === 0) return [];
  return limit === undefined ? [...list] : list.slice(0, limit);
}
