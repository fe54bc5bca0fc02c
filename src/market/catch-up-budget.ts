import type { BudgetPlan, PlannedPoll } from './budget-planner.js';

/**
 * Public calls per second one Trades poll may spend catching up: what the plan leaves unused of
 * `public_budget.calls_per_sec`, shared equally by the Trades polls. A plan stretched to fit
 * leaves nothing: then only a larger `count` keeps up with a busier pair.
 */
export function catchUpPerSec(plan: BudgetPlan): number {
  const tradesPolls = plan.polls.filter((p) => p.source === 'trades').length;
  if (tradesPolls === 0) return 0;
  return Math.max(0, plan.public.availablePerSec - plan.public.plannedPerSec) / tradesPolls;
}

/**
 * The catch-up calls of one Trades poll, as a token bucket on the feed's clock: it starts empty
 * and fills at `perSec`, so from the first poll on the catch-up calls never outnumber what the
 * unused budget has accrued, and the feed's public calls stay within the budget on average. It
 * holds at most one poll interval's share (at least one call): a burst is caught up over the
 * next polls rather than in one volley.
 */
export class CatchUpBudget {
  readonly perSec: number;
  readonly #capacity: number;
  #tokens = 0;
  #atMs: number;

  constructor(perSec: number, poll: PlannedPoll, startMs: number) {
    this.perSec = perSec;
    this.#capacity = Math.max(1, (perSec * poll.intervalMs) / 1000);
    this.#atMs = startMs;
  }

  /** One call, if the budget has accrued it by `nowMs`. */
  take(nowMs: number): boolean {
    const elapsedMs = Math.max(0, nowMs - this.#atMs);
    this.#tokens = Math.min(this.#capacity, this.#tokens + (this.perSec * elapsedMs) / 1000);
    this.#atMs = Math.max(this.#atMs, nowMs);
    if (this.#tokens < 1) return false;
    this.#tokens -= 1;
    return true;
  }
}
