import { OTHER_LIMITS } from '../exchange/limits/index.js';
import type { ExecutorConfig } from './config.js';

/** Samples kept at most: a p99 over more says nothing new, and memory stays bounded. */
const KEPT = 1_000;

/** The answer timeout is this many times the p99 round trip: a call near the p99 still answers. */
const TIMEOUT_FACTOR = 2;

export type RoundTripConfig = Pick<
  ExecutorConfig,
  | 'deadline_ms'
  | 'deadline_max_ms'
  | 'deadline_margin_ms'
  | 'request_timeout_ms'
  | 'round_trip_window_ms'
>;

/**
 * The recent order-entry round trips of a pair, and the `deadline` and answer timeout they call
 * for. The engine refuses a deadline less than 2 s ahead when it reads the call, so the deadline
 * must cover the way there; only the round trip is measurable, and it stands for the way there
 * (all of it may be: a link slow one way only). A call left unanswered counts with the time it
 * was given: a lower bound, which lengthens the next wait until answers come back.
 */
export class RoundTrips {
  readonly #config: RoundTripConfig;
  /** [atMs, ms], oldest first. */
  readonly #samples: [number, number][] = [];

  constructor(config: RoundTripConfig) {
    this.#config = config;
  }

  add(atMs: number, ms: number): void {
    this.#samples.push([atMs, Math.max(0, ms)]);
    if (this.#samples.length > KEPT) this.#samples.shift();
  }

  /** The p99 of the round trips within the window ending at `nowMs`; undefined without any. */
  p99(nowMs: number): number | undefined {
    const from = nowMs - this.#config.round_trip_window_ms;
    while ((this.#samples[0]?.[0] ?? Infinity) < from) this.#samples.shift();
    if (this.#samples.length === 0) return undefined;
    const sorted = this.#samples.map(([, ms]) => ms).sort((a, b) => a - b);
    return sorted[Math.ceil(sorted.length * 0.99) - 1];
  }

  /**
   * The deadline a call sent now carries, in ms from sending: the p99 round trip, the spec's
   * minimum and the margin, within [deadline_ms, deadline_max_ms].
   */
  deadlineMs(nowMs: number): number {
    const c = this.#config;
    const wanted =
      Math.ceil(this.p99(nowMs) ?? 0) + OTHER_LIMITS.deadlineMinMs + c.deadline_margin_ms;
    return Math.min(this.longestDeadlineMs, Math.max(c.deadline_ms, wanted));
  }

  /** The longest deadline a call may carry: one that fails with it has no longer to try. */
  get longestDeadlineMs(): number {
    return Math.max(this.#config.deadline_max_ms, this.#config.deadline_ms);
  }

  /** How long a call sent now waits for its answer: twice the p99, within [floor, ceiling]. */
  timeoutMs(nowMs: number): number {
    const floor = this.#config.request_timeout_ms;
    const wanted = Math.ceil(TIMEOUT_FACTOR * (this.p99(nowMs) ?? 0));
    return Math.max(floor, Math.min(wanted, this.longestDeadlineMs));
  }
}
