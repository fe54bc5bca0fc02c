import {
  InvalidInputError,
  dec,
  sameAmount,
  toWire,
  type DesiredOrder,
  type OrderIntent,
} from '../../core/index.js';
import { FIT_EPSILON, cancelBatchPenalty, msUntilFits } from '../../exchange/limits/index.js';
import { RESTING_STATES, type TrackedOrder } from '../../orders/types.js';
import {
  addCost,
  addGroupCost,
  cancelCost,
  cancelGroupCost,
  chunk,
  compareDistance,
  distance,
  editCost,
  groupAdds,
  orderAgeMs,
  preferEdit,
  remainingVolume,
  type Distance,
} from './pricing.js';
import type {
  AddItem,
  CancelItem,
  DeferReason,
  DropReason,
  EditItem,
  Plan,
  PlanInput,
  PlannedCall,
  SlotWork,
} from './types.js';

/** States in which nothing is in doubt about the order: the only ones a call may touch. */

/** Modes in which only cancels are planned (src/executor/plan/types.ts, PlanInput.mode). */
const CANCELS_ONLY = new Set<PlanInput['mode']>(['cancel_only', 'maintenance', 'halted']);

/** Whether the mode lets only cancels through. */
export function cancelsOnly(mode: PlanInput['mode']): boolean {
  return CANCELS_ONLY.has(mode);
}

/** A place or amend that passed the drop rules and now competes for the budget. */
interface Candidate {
  readonly intent: OrderIntent;
  readonly desired: DesiredOrder;
  /** The order to amend; undefined for a placement into an empty slot. */
  readonly order: TrackedOrder | undefined;
  readonly distance: Distance;
}

/** The plan under construction; rebuilt (never mutated) as candidates are taken. */
interface Draft {
  readonly cancels: readonly CancelItem[];
  readonly edits: readonly { readonly item: EditItem; readonly cost: number }[];
  readonly adds: readonly AddItem[];
}

function draftOf(cancels: Draft['cancels'], edits: Draft['edits'], adds: Draft['adds']): Draft {
  return { cancels, edits, adds };
}

const EMPTY: Draft = draftOf([], [], []);

type Classified =
  | { readonly drop: DropReason }
  | { readonly cancel: CancelItem }
  | { readonly candidate: Candidate };

export function planCalls(input: PlanInput): Plan {
  checkRules(input);
  const budget = input.limits.max - input.headroom - input.level;
  const dropped: { intent: OrderIntent; reason: DropReason }[] = [];
  const deferred: { intent: OrderIntent; reason: DeferReason }[] = [];
  const cancels: CancelItem[] = [];
  const candidates: Candidate[] = [];

  // The work arrives in any order; sorting by slot makes everything below deterministic.
  const work = [...input.work].sort((a, b) => compareText(a.intent.slot, b.intent.slot));
  for (const w of work) {
    const c = classify(w, input);
    if ('drop' in c) dropped.push({ intent: w.intent, reason: c.drop });
    else if ('cancel' in c) cancels.push(c.cancel);
    else candidates.push(c.candidate);
  }
  candidates.sort(
    (a, b) => compareDistance(a.distance, b.distance) || compareText(a.intent.slot, b.intent.slot),
  );

  // Cancels reduce risk and never wait: they are all in the draft whatever the budget says.
  let draft = draftOf(cancels, [], []);

  // Cancels planned now free their orders' places before the adds that follow them go out.
  let freeOpen = Math.max(0, input.limits.maxOpenOrders - input.openOrders + cancels.length);
  /** Set when the budget ran out: the first deferred candidate's cost. */
  let retryCost: number | undefined;
  for (const cand of candidates) {
    if (cand.order === undefined && freeOpen <= 0) {
      deferred.push({ intent: cand.intent, reason: 'open-orders' });
      continue;
    }
    if (retryCost !== undefined) {
      deferred.push({ intent: cand.intent, reason: 'budget' });
      continue;
    }
    const next = cheapest(options(draft, cand, input), input);
    const total = draftCost(next, input);
    // Strict priority: the first candidate that does not fit stops the plan, so a nearer slot never
    // takes the points the farthest one is waiting for.
    if (total > budget + FIT_EPSILON) {
      // Priced as the first call of an empty plan, which is what it will be when retried: this
      // plan's cancels (and a capped batch that would carry a replacement cancel free) and adds
      // (that would make its add a cheap batch member) will have gone by then.
      retryCost = draftCost(cheapest(options(EMPTY, cand, input), input), input);
      deferred.push({ intent: cand.intent, reason: 'budget' });
      continue;
    }
    draft = next;
    if (cand.order === undefined) freeOpen -= 1;
  }

  const calls = buildCalls(draft, budget, input);
  const cost = calls.reduce((sum, call) => sum + call.cost, 0);
  const retryInMs =
    retryCost === undefined
      ? undefined
      : msUntilFits(
          input.level + cost,
          input.limits.decayPerSec,
          retryCost,
          input.limits.max - input.headroom,
        );
  return { calls, deferred, dropped, cost, retryInMs };
}

function classify(w: SlotWork, input: PlanInput): Classified {
  const { intent, live } = w;
  if (live !== undefined && (live.pendingCall !== null || !RESTING_STATES.has(live.state))) {
    return { drop: 'busy' };
  }
  if (intent.action === 'cancel') {
    return live === undefined
      ? { drop: 'gone' }
      : { cancel: { intent, order: live, purpose: 'cancel' } };
  }
  // An amend whose order vanished (filled, cancelled) is planned as a placement: the runner asked
  // for that quote in this slot, and waiting for its next poll to say so again leaves it empty.
  if (cancelsOnly(input.mode)) return { drop: 'mode' };
  const desired = intent.desired;
  if (desired === undefined) {
    throw new InvalidInputError('intent.desired', `${intent.action} of ${intent.slot} has none`);
  }
  if (live !== undefined && holds(live, desired)) return { drop: 'unchanged' };
  return { candidate: { intent, desired, order: live, distance: distance(w) } };
}

function holds(order: TrackedOrder, desired: DesiredOrder): boolean {
  return (
    order.side === desired.side &&
    order.postOnly === desired.postOnly &&
    sameAmount(order.price, desired.price) &&
    (order.volumeExecuted === '0'
      ? sameAmount(order.volume, desired.volume)
      : remainingVolume(order).eq(dec(desired.volume)))
  );
}

/** The drafts a candidate can be planned as, EditOrder first (it wins ties, see preferEdit). */
function options(draft: Draft, cand: Candidate, input: PlanInput): Draft[] {
  const { intent, desired, order } = cand;
  const add = (replacing: TrackedOrder | undefined): AddItem => ({
    intent,
    side: desired.side,
    price: desired.price,
    volume: desired.volume,
    postOnly: desired.postOnly,
    replacing,
  });
  if (order === undefined) {
    return [draftOf(draft.cancels, draft.edits, [...draft.adds, add(undefined)])];
  }
  const replace = draftOf([...draft.cancels, { intent, order, purpose: 'replace' }], draft.edits, [
    ...draft.adds,
    add(order),
  ]);
  // EditOrder cannot move an order to the other side.
  if (order.side !== desired.side) return [replace];
  const item: EditItem = {
    intent,
    order,
    // EditOrder's volume is the total, executed part included (and must exceed it).
    volume:
      order.volumeExecuted === '0'
        ? desired.volume
        : toWire(dec(order.volumeExecuted).plus(dec(desired.volume))),
    price: desired.price,
    postOnly: desired.postOnly,
  };
  const edit = draftOf(
    draft.cancels,
    [...draft.edits, { item, cost: editCost(order, input.nowMs) }],
    draft.adds,
  );
  return [edit, replace];
}

/**
 * Priced at the margin of the whole draft rather than per order, so a replacement add that turns
 * the adds into a batch, or a cancel that the batch cap makes free, is priced right.
 */
function cheapest(drafts: readonly Draft[], input: PlanInput): Draft {
  const [first, second] = drafts;
  if (first === undefined) throw new Error('planner: a candidate has no option');
  if (second === undefined) return first;
  const edit = draftCost(first, input);
  const cancelAdd = draftCost(second, input);
  return preferEdit({ edit, cancelAdd }) ? first : second;
}

function draftCost(draft: Draft, input: PlanInput): number {
  const ages = draft.cancels.map((c) => orderAgeMs(c.order, input.nowMs));
  return (
    cancelGroupCost(ages, input.batch, input.limits.max) +
    draft.edits.reduce((sum, e) => sum + e.cost, 0) +
    addGroupCost(draft.adds.length, input.batch)
  );
}

/**
 * A lone cancel goes as CancelOrder only when it fits the budget: the venue refuses a CancelOrder
 * over max but accepts a CancelOrderBatch, even of one id, so cancels never wait.
 */
function buildCalls(draft: Draft, budget: number, input: PlanInput): PlannedCall[] {
  const { nowMs, batch } = input;
  const calls: PlannedCall[] = [];
  const [lone] = draft.cancels;
  const loneFits = lone !== undefined && cancelCost(lone.order, nowMs) <= budget + FIT_EPSILON;
  if (lone !== undefined && draft.cancels.length === 1 && loneFits) {
    calls.push({ kind: 'CancelOrder', item: lone, cost: cancelCost(lone.order, nowMs) });
  } else {
    for (const items of chunk(draft.cancels, batch.cancelMax)) {
      const ages = items.map((c) => orderAgeMs(c.order, nowMs));
      calls.push({
        kind: 'CancelOrderBatch',
        items,
        cost: cancelBatchPenalty(ages, input.limits.max),
      });
    }
  }
  for (const { item, cost } of draft.edits) calls.push({ kind: 'EditOrder', item, cost });
  let at = 0;
  for (const group of groupAdds(draft.adds.length, batch)) {
    const items = draft.adds.slice(at, at + group.size);
    at += group.size;
    if (group.batch) {
      calls.push({ kind: 'AddOrderBatch', items, cost: items.length * addCost(true) });
    } else {
      for (const item of items) calls.push({ kind: 'AddOrder', item, cost: addCost(false) });
    }
  }
  return calls;
}

function checkRules(input: PlanInput): void {
  for (const field of ['addMin', 'addMax', 'cancelMax'] as const) {
    const v = input.batch[field];
    if (!Number.isInteger(v) || v < 1) {
      throw new InvalidInputError(`batch.${field}`, `must be a positive integer, got ${v}`);
    }
  }
}

/** Code-unit order: locale-independent, so the plan is the same on every host. */
function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
