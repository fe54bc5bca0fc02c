import type { PollScope } from './budget-planner.js';

const WINDOW_MS = 60_000;

/**
 * REST points (private) and calls (public) the feed spent, over a sliding minute: the figure to
 * hold against the plan when the counter misbehaves. Only the feed's own calls are counted.
 */
export class BudgetUsage {
  readonly #events: Record<PollScope, { atMs: number; points: number }[]> = {
    private: [],
    public: [],
  };
  readonly #startedAtMs: number;

  constructor(startedAtMs: number) {
    this.#startedAtMs = startedAtMs;
  }

  record(scope: PollScope, points: number, atMs: number): void {
    this.#events[scope].push({ atMs, points });
    this.#prune(scope, atMs);
  }

  /** Points per second over the last minute (or since start, when younger than a minute). */
  perSecond(scope: PollScope, nowMs: number): number {
    this.#prune(scope, nowMs);
    const windowMs = Math.min(WINDOW_MS, nowMs - this.#startedAtMs);
    if (windowMs <= 0) return 0;
    const points = this.#events[scope].reduce((sum, e) => sum + e.points, 0);
    return (points * 1000) / windowMs;
  }

  #prune(scope: PollScope, nowMs: number): void {
    const events = this.#events[scope];
    let drop = 0;
    while (drop < events.length && (events[drop]?.atMs ?? nowMs) <= nowMs - WINDOW_MS) drop++;
    if (drop > 0) events.splice(0, drop);
  }
}
