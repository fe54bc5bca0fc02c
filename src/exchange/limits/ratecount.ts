import { InvalidInputError } from '../../core/index.js';
import { decayedLevel, FIT_EPSILON, msUntilFits } from './rest-counter.js';
import {
  AGE_BUCKET_BOUNDS_MS,
  MATCHING_ENGINE,
  PENALTY_PER_ORDER,
  type MatchingEngineLimits,
  type OrderEntryAction,
  type Tier,
} from './tiers.js';

/**
 * Index of the spec's age column for an order `ageMs` old. A negative age (clocks disagree about
 * when the order opened) counts as brand new, the column with the highest penalties.
 */
export function ageBucket(ageMs: number): number {
  if (Number.isNaN(ageMs)) throw new InvalidInputError('orderAgeMs', 'must be a number, got NaN');
  const i = AGE_BUCKET_BOUNDS_MS.findIndex((bound) => ageMs < bound);
  return i === -1 ? AGE_BUCKET_BOUNDS_MS.length : i;
}

const BATCH_ACTIONS: ReadonlySet<OrderEntryAction> = new Set(['AddOrderBatch', 'CancelOrderBatch']);

/**
 * Ratecount points one call adds. `n` is the number of orders a batch carries (all `orderAgeMs`
 * old); single-order actions take n = 1. Age does not matter for AddOrder/AddOrderBatch. A
 * CancelOrderBatch with orders of different ages, and its cap, is `cancelBatchPenalty`.
 */
export function penalty(action: OrderEntryAction, orderAgeMs: number, n = 1): number {
  if (!Number.isInteger(n) || n < 1) {
    throw new InvalidInputError('n', `must be a positive integer, got ${n}`);
  }
  if (n !== 1 && !BATCH_ACTIONS.has(action)) {
    throw new InvalidInputError('n', `${action} carries one order, got n = ${n}`);
  }
  const perOrder = PENALTY_PER_ORDER[action][ageBucket(orderAgeMs)] ?? 0;
  return perOrder * n;
}

export function cancelPenalty(orderAgeMs: number): number {
  return penalty('CancelOrder', orderAgeMs);
}

/**
 * CancelOrderBatch: the sum of its orders' cancel penalties, accumulated up to `max` (the tier's
 * max ratecount). The exchange accepts the batch even when this would take the counter past max.
 */
export function cancelBatchPenalty(agesMs: readonly number[], max: number): number {
  let sum = 0;
  for (const age of agesMs) {
    sum += penalty('CancelOrderBatch', age);
    if (sum >= max) return max;
  }
  return sum;
}

/** CancelAll, or CancelAllOrdersAfter firing: each cancelled order's age penalty, uncapped. */
export function cancelAllPenalty(agesMs: readonly number[]): number {
  return agesMs.reduce((sum, age) => sum + cancelPenalty(age), 0);
}

/** What the executor keeps in Redis per (key, pair): the count at `atMs`, before decay since. */
export interface RatecountState {
  readonly count: number;
  readonly atMs: number;
}

export const EMPTY_RATECOUNT: RatecountState = { count: 0, atMs: 0 };

export function ratecountLevel(
  state: RatecountState,
  limits: MatchingEngineLimits,
  nowMs: number,
): number {
  return decayedLevel(state.count, state.atMs, limits.decayPerSec, nowMs);
}

/** New state after `points` land at `nowMs`. The time never moves back, so no decay is invented. */
export function ratecountAdd(
  state: RatecountState,
  limits: MatchingEngineLimits,
  points: number,
  nowMs: number,
): RatecountState {
  return {
    count: ratecountLevel(state, limits, nowMs) + points,
    atMs: Math.max(state.atMs, nowMs),
  };
}

/**
 * One (key, pair) ratecount. The simulator rejects a call when `wouldExceed` and otherwise `add`s
 * (CancelOrderBatch, CancelAll and CancelAllOrdersAfter are always added); the executor waits
 * `waitMsFor` before sending, so the same arithmetic decides on both sides.
 */
export class RatecountMeter {
  readonly limits: MatchingEngineLimits;
  #state: RatecountState;

  constructor(tier: Tier | MatchingEngineLimits, state: RatecountState = EMPTY_RATECOUNT) {
    this.limits = typeof tier === 'string' ? MATCHING_ENGINE[tier] : tier;
    this.#state = state;
  }

  get max(): number {
    return this.limits.max;
  }

  get state(): RatecountState {
    return this.#state;
  }

  toJSON(): RatecountState {
    return this.#state;
  }

  level(nowMs: number): number {
    return ratecountLevel(this.#state, this.limits, nowMs);
  }

  /** Points that still fit under the max now; negative after an over-max batch cancel. */
  headroom(nowMs: number): number {
    return this.max - this.level(nowMs);
  }

  /** Ms until `points` fit under the max; Infinity if they never can. */
  waitMsFor(points: number, nowMs: number): number {
    return msUntilFits(this.level(nowMs), this.limits.decayPerSec, points, this.max);
  }

  wouldExceed(points: number, nowMs: number): boolean {
    return this.level(nowMs) + points > this.max + FIT_EPSILON;
  }

  /** Returns the level after adding. */
  add(points: number, nowMs: number): number {
    this.#state = ratecountAdd(this.#state, this.limits, points, nowMs);
    return this.#state.count;
  }

  /** The engine said the ratecount is over: assume it is at least full. */
  fill(nowMs: number): void {
    const count = Math.max(this.level(nowMs), this.max);
    this.#state = { count, atMs: Math.max(this.#state.atMs, nowMs) };
  }
}
