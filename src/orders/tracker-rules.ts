import { InvalidInputError, dec } from '../core/index.js';
import type { Fence } from './order-tracker.js';
import { TERMINAL_STATES, type TrackedOrder } from './types.js';

/** The decisions both order stores take alike (RedisOrderTracker, MemoryOrderTracker). */

export const DEFAULT_HISTORY_LIMIT = 2000;
export const DEFAULT_FILLS_LIMIT = 10_000;

/** Bids before asks, each by level, then `foreign` and any other slot by name; then userref. */
export function compareOrders(a: TrackedOrder, b: TrackedOrder): number {
  const rank = (slot: string): [number, number] => {
    const m = /^(bid|ask):(\d+)$/.exec(slot);
    if (m === null) return [2, 0];
    return [m[1] === 'bid' ? 0 : 1, Number(m[2])];
  };
  const [sa, la] = rank(a.slot);
  const [sb, lb] = rank(b.slot);
  if (sa !== sb) return sa - sb;
  if (la !== lb) return la - lb;
  if (a.slot !== b.slot) return a.slot < b.slot ? -1 : 1;
  return a.userref - b.userref;
}

export const isTerminal = (order: TrackedOrder): boolean => TERMINAL_STATES.has(order.state);

/** Same order when both txids are known and equal, or when one is not known yet. */
export const sameOrder = (a: TrackedOrder, b: TrackedOrder): boolean =>
  a.txid === null || b.txid === null || a.txid === b.txid;

export function checkLimit(value: number | undefined, fallback: number, field: string): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new InvalidInputError(field, `must be a positive integer, got ${value}`);
  }
  return value;
}

export function checkFence(fence: Fence | undefined): void {
  if (fence === undefined) return;
  if (typeof fence.key !== 'string' || fence.key.length === 0) {
    throw new InvalidInputError('fence.key', 'must be a non-empty string');
  }
  if (typeof fence.token !== 'string' || fence.token.length === 0) {
    throw new InvalidInputError('fence.token', 'must be a non-empty string');
  }
}

export function checkAtMs(atMs: number): void {
  if (typeof atMs !== 'number' || !Number.isFinite(atMs)) {
    throw new InvalidInputError('atMs', `must be a finite number, got ${String(atMs)}`);
  }
}

export function checkRangeLimit(limit: number | undefined): void {
  if (limit !== undefined && (!Number.isSafeInteger(limit) || limit < 0)) {
    throw new InvalidInputError('limit', `must be a non-negative integer, got ${limit}`);
  }
}

/** One settle call is about one pair: its views' pair, or the one-line refusal. */
export function settledPair(views: readonly TrackedOrder[]): string | undefined {
  const pair = views[0]?.pair;
  if (pair === undefined) return undefined;
  const other = views.findIndex((v) => v.pair !== pair);
  if (other !== -1) {
    throw new InvalidInputError(
      `views[${other}].pair`,
      `must be ${pair} like views[0]: one pair's history is settled at a time`,
    );
  }
  return pair;
}

/** A view whose txid is not the stored order's is another order: refused. */
export function checkSameOrder(stored: TrackedOrder, given: TrackedOrder): void {
  if (!sameOrder(stored, given)) {
    throw new InvalidInputError(
      'view.txid',
      `is ${given.txid}, the stored order of userref ${given.userref} is ${stored.txid}`,
    );
  }
}

/**
 * `given`, with the stored record's execution fields when the stored record is the same order
 * and executed more (put never moves execution backwards).
 */
export function keepExecution(given: TrackedOrder, stored: TrackedOrder | undefined): TrackedOrder {
  if (stored === undefined || !sameOrder(stored, given)) return given;
  if (!dec(stored.volumeExecuted).gt(dec(given.volumeExecuted))) return given;
  return {
    ...given,
    volumeExecuted: stored.volumeExecuted,
    cost: stored.cost,
    fee: stored.fee,
  };
}

/** What a settle writes into a history entry from a later, more executed view of its order. */
export function settledEntry(stored: TrackedOrder, view: TrackedOrder, atMs: number): TrackedOrder {
  return {
    ...stored,
    // A record retired without its final view (its order was gone) takes the view's state.
    state: isTerminal(view) ? view.state : stored.state,
    volumeExecuted: view.volumeExecuted,
    cost: view.cost,
    fee: view.fee,
    updatedAtMs: atMs,
  };
}

/** The onChange() listeners of one tracker object. */
export class ChangeListeners {
  readonly #listeners = new Set<(pair: string) => void>();

  listen(listener: (pair: string) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  tell(pair: string): void {
    for (const listener of this.#listeners) listener(pair);
  }
}
