import type { Fill, OrderState, Position, TrackedOrder } from './types.js';

export interface Fence {
  /** A lease: writes happen only while the lease's key holds `token`. */
  readonly key: string;
  readonly token: string;
}

/**
 * The shared read model of our orders (DESIGN.md §3.6), as its readers see it: the runner's fills
 * feed, live PnL, the risk inputs, the status report and the console.
 */
export interface OrderReader {
  /** The pair's live (non-terminal) records, sorted by slot (bids, asks, foreign) then userref. */
  live(pair: string): Promise<TrackedOrder[]>;
  /** The live record of (pair, userref); undefined when there is none or it is terminal. */
  get(pair: string, userref: number): Promise<TrackedOrder | undefined>;
  /** The live record of the pair with this txid. */
  byTxid(pair: string, txid: string): Promise<TrackedOrder | undefined>;
  /** The pair's position; emptyPosition(pair) before its first fill. */
  position(pair: string): Promise<Position>;
  /** The pair's fills, newest first; all that are kept unless `limit` is given. */
  fills(pair: string, limit?: number): Promise<Fill[]>;
  /** How many fills the pair has had in all, and its newest `limit` fills, read together. */
  recentFills(pair: string, limit: number): Promise<{ total: number; fills: Fill[] }>;
  /** The pair's terminal records, newest first; all that are kept unless `limit` is given. */
  history(pair: string, limit?: number): Promise<TrackedOrder[]>;
  /** Live records by state; every state is present, terminal states are always 0. */
  countsByState(pair: string): Promise<Record<OrderState, number>>;
  /** Pairs with a live record or a position, sorted. */
  pairs(): Promise<string[]>;
}

/**
 * The order tracker: the executor writes it, everything else reads it. Two implementations keep
 * the same contract (test/stores): RedisOrderTracker (live, shared by processes) and
 * MemoryOrderTracker (one process: the replay). See RedisOrderTracker for what each write does.
 */
export interface OrderTracker extends OrderReader {
  put(orders: TrackedOrder | readonly TrackedOrder[], fence?: Fence): Promise<void>;
  applyView(view: TrackedOrder, atMs: number, fence?: Fence): Promise<Fill | undefined>;
  settle(
    views: readonly TrackedOrder[],
    atMs: number | ((view: TrackedOrder) => number),
    fence?: Fence,
  ): Promise<Fill[]>;
  /**
   * Told the pair after each write this tracker object committed (in this process: the replay's
   * runner learns of the executor's fills this way; across processes the Redis tracker's pub/sub
   * channel tells). Returns the unsubscribe.
   */
  onChange(listener: (pair: string) => void): () => void;
  close(): Promise<void>;
}
