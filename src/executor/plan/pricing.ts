import { InvalidInputError, dec, type Decimal } from '../../core/index.js';
import { cancelBatchPenalty, cancelPenalty, penalty } from '../../exchange/limits/index.js';
import type { TrackedOrder } from '../../orders/types.js';
import type { BatchRules, SlotWork } from './types.js';

/**
 * Ratecount prices of the planner's options, on the spec's penalty table (src/exchange/limits),
 * so that a change of the table changes the planner's choices without touching this code.
 */

/**
 * openedAtMs is when we learned the order rests, later than the exchange's open time: the age is
 * never older than the exchange's, so a penalty priced on it is never too low.
 */
export function orderAgeMs(order: TrackedOrder, nowMs: number): number {
  return nowMs - order.openedAtMs;
}

export function editCost(order: TrackedOrder, nowMs: number): number {
  return penalty('EditOrder', orderAgeMs(order, nowMs));
}

export function cancelCost(order: TrackedOrder, nowMs: number): number {
  return cancelPenalty(orderAgeMs(order, nowMs));
}

/** An add's price depends only on whether it travels in an AddOrderBatch (n/2) or alone. */
export function addCost(inBatch: boolean): number {
  return penalty(inBatch ? 'AddOrderBatch' : 'AddOrder', 0);
}

export interface AmendOptions {
  /** EditOrder at the order's age. */
  readonly edit: number;
  /** CancelOrder at the order's age, then the replacement add. */
  readonly cancelAdd: number;
}

/** One order on its own; the planner prices the same choice at the margin of the whole plan. */
export function amendOptions(
  order: TrackedOrder,
  nowMs: number,
  addInBatch: boolean,
): AmendOptions {
  return {
    edit: editCost(order, nowMs),
    cancelAdd: cancelCost(order, nowMs) + addCost(addInBatch),
  };
}

/** A tie goes to EditOrder: one call, and the slot never stands empty between cancel and add. */
export function preferEdit(options: AmendOptions): boolean {
  return options.edit <= options.cancelAdd;
}

/**
 * How n adds are grouped, in plan order: each entry is one AddOrderBatch (batch) or a run of single
 * AddOrders. Batches are balanced (16 with addMax 15 → 8 + 8, not 15 + 1) so that no leftover
 * falls under addMin and pays the single AddOrder price.
 */
export function groupAdds(
  n: number,
  rules: BatchRules,
): readonly { readonly batch: boolean; readonly size: number }[] {
  if (n <= 0) return [];
  if (n < rules.addMin) return [{ batch: false, size: n }];
  const count = Math.ceil(n / rules.addMax);
  const small = Math.floor(n / count);
  const groups: { batch: boolean; size: number }[] = [];
  for (let i = 0; i < count; i++) {
    const size = i < n % count ? small + 1 : small;
    groups.push({ batch: size >= rules.addMin, size });
  }
  return groups;
}

/** Points n adds cost once grouped by groupAdds. */
export function addGroupCost(n: number, rules: BatchRules): number {
  return groupAdds(n, rules).reduce(
    (sum, g) => sum + (g.batch ? penalty('AddOrderBatch', 0, g.size) : g.size * addCost(false)),
    0,
  );
}

/** Consecutive runs of at most `size` elements. */
export function chunk<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * Points the plan's cancels cost as CancelOrderBatch(es) of at most cancelMax ids, each capped at
 * max. A lone CancelOrder costs the same (one penalty is far below any max).
 */
export function cancelGroupCost(agesMs: readonly number[], rules: BatchRules, max: number): number {
  return chunk(agesMs, rules.cancelMax).reduce(
    (sum, ages) => sum + cancelBatchPenalty(ages, max),
    0,
  );
}

export function remainingVolume(order: TrackedOrder): Decimal {
  return dec(order.volume).minus(dec(order.volumeExecuted));
}

/**
 * How far a slot is from its desired order; the planner serves the farthest first. A ranking,
 * not an amount of money, so doubles are exact enough.
 */
export interface Distance {
  /** |live price − desired price| / desired price; Infinity when the slot holds nothing usable. */
  readonly price: number;
  /** |live remaining volume − desired volume|, the tie-break. */
  readonly volume: number;
}

export function distance(work: SlotWork): Distance {
  const desired = work.intent.desired;
  if (desired === undefined) {
    throw new InvalidInputError(
      'intent.desired',
      `${work.intent.action} of ${work.intent.slot} has none`,
    );
  }
  const want = Number(desired.volume);
  const live = work.live;
  // An order on the other side is no part of the desired quote: the slot holds none of it.
  if (live === undefined || live.side !== desired.side) return { price: Infinity, volume: want };
  const target = Number(desired.price);
  const price = target === 0 ? Infinity : Math.abs(Number(live.price) - target) / target;
  const remaining = Number(live.volume) - Number(live.volumeExecuted);
  return { price, volume: Math.abs(remaining - want) };
}

/** Sort order: negative when `a` is farther than `b` (served first), 0 on a tie. */
export function compareDistance(a: Distance, b: Distance): number {
  return cmp(b.price, a.price) || cmp(b.volume, a.volume);
}

function cmp(a: number, b: number): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
