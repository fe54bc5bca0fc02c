import type { OrderIntent } from '../core/index.js';
import type { UnpublishedIntent } from './intent-codec.js';
import type { StoredOrdersView } from './orders-view.js';

export interface PublishResult {
  /** The input intents, in input order, with the generations the bus assigned. */
  readonly published: OrderIntent[];
  /** Pending intents replaced before the executor took them (never sent). */
  readonly coalesced: number;
  readonly byPair: Record<string, { published: number; coalesced: number }>;
}

/** Identifies the one slot entry the executor acted on; a newer generation is left in place. */
export interface SlotPick {
  readonly slot: string;
  readonly generation: number;
}

/** How a pair's steps are run for the executor that holds it. */
export interface ConsumeOptions {
  /** How long a step may run before it counts as stalled (and is failed, never re-run). */
  readonly lockDurationMs: number;
  /** A step that threw, or the consumer's own trouble. */
  readonly onError: (err: Error, where: 'step' | 'consumer') => void;
}

/** The running consumer of one pair's wake-ups. */
export interface PairConsumer {
  /**
   * Stops; with `force` (a lost lease) it does not wait for a step under way, otherwise it
   * finishes first. Either way the step's wake-up ends as done, never held as stalled.
   */
  close(force: boolean): Promise<void>;
}

/**
 * The runner → executor contract (DESIGN.md §3.6): a per-pair register of the latest intent per
 * slot, with generations and coalescing, the orders view beside it, and the wake-ups that make
 * the pair's executor drain it: one step at a time per pair, and one more step after a step when
 * woken meanwhile. Two implementations keep one contract (test/stores): RedisIntentBus (Lua
 * scripts and BullMQ, shared by processes) and MemoryIntentBus (one process: the replay).
 */
export interface IntentBus {
  readonly prefix: string;
  /** Stores the intents as the latest for their slots and wakes each pair's executor. */
  publish(intents: readonly UnpublishedIntent[]): Promise<PublishResult>;
  /** Makes sure a step will run for `pair`. */
  enqueue(pair: string): Promise<void>;
  /** Removes the picked entries still at their generation, and returns them. */
  takeSlots(pair: string, picks: readonly SlotPick[]): Promise<OrderIntent[]>;
  /** Puts taken intents back while their slot is empty and no newer generation exists. */
  restore(pair: string, intents: readonly OrderIntent[]): Promise<string[]>;
  /** The pair's pending intents, left in place, sorted by slot. */
  pending(pair: string): Promise<OrderIntent[]>;
  pendingCount(pair: string): Promise<number>;
  /** Pairs whose register holds at least one intent, sorted. */
  pairsWithPending(): Promise<string[]>;
  /** Writes the key's open orders as the runner saw them (newer than any before) and wakes `pairs`. */
  writeOrdersView(view: StoredOrdersView, pairs: readonly string[]): Promise<void>;
  /** The newest orders view written, or undefined. */
  readOrdersView(): Promise<StoredOrdersView | undefined>;
  /** Runs `step` on each wake-up of `pair` until the consumer is closed. */
  consume(pair: string, step: () => Promise<unknown>, options: ConsumeOptions): PairConsumer;
  /** Holds (or lets go) the pairs' wake-ups: the supervisor's pause of order entry. */
  pause(pair: string): Promise<void>;
  resume(pair: string): Promise<void>;
  close(): Promise<void>;
}
