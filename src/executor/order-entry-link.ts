import { orderEntryRole, type ControlFlags, type OrderEntryReport } from '../bus/index.js';
import type { Clock, Log } from '../core/index.js';
import {
  DeadlineElapsedError,
  ExchangeError,
  RequestTimeoutError,
} from '../exchange/errors/index.js';
import type { ExecutorConfig } from './config.js';
import type { ExecutorMetrics } from './metrics.js';
import { RoundTrips } from './round-trips.js';

/** While failing, the report in Redis is refreshed at most this often... */
const REPORT_EVERY_MS = 5_000;
/** ...and lives this long: a pair nobody sends for (halted, released) stops counting as failing. */
const REPORT_TTL_MS = 60_000;

export interface OrderEntryLinkDeps {
  readonly pair: string;
  readonly label: string;
  readonly config: ExecutorConfig;
  readonly clock: Clock;
  readonly metrics: ExecutorMetrics;
  readonly log: Log;
  readonly flags: ControlFlags | undefined;
}

/** Whether a call's answer (or its absence) shows it reached the engine in time. */
export type Arrival = 'in-time' | 'late';

/**
 * What an order-entry call's end says of the link: `late` when no answer came within our wait, or
 * the engine refused the deadline (read too late, or already past); `in-time` for any other
 * answer; undefined when it says nothing of timing (a refused connection).
 */
export function arrivalOf(err: unknown, timedOut: boolean): Arrival | undefined {
  if (timedOut || err instanceof RequestTimeoutError || err instanceof DeadlineElapsedError) {
    return 'late';
  }
  if (err instanceof ExchangeError) {
    return err.raw.startsWith('EGeneral:Invalid arguments:deadline') ? 'late' : 'in-time';
  }
  return err === undefined ? 'in-time' : undefined;
}

/**
 * A pair's order-entry link: the `deadline` and answer timeout its calls carry, from the recent
 * round trips (round-trips.ts), and whether order entry is failing: a call carrying the longest
 * deadline allowed still arrived late, so no order can reach the engine in time. An episode is
 * told once when it begins (the latency and the deadline) and once when a call arrives in time
 * again; meanwhile the pair's report in Redis says so (/readyz, the supervisor's halt) and
 * makerd_order_entry_failing is 1.
 */
export class OrderEntryLink {
  readonly #d: OrderEntryLinkDeps;
  readonly #trips: RoundTrips;
  #failingSinceMs: number | undefined;
  #reportedAtMs = -Infinity;

  constructor(deps: OrderEntryLinkDeps) {
    this.#d = deps;
    this.#trips = new RoundTrips(deps.config);
    this.#publish(deps.clock.now());
  }

  /** The deadline of a call sent now, in ms from sending. */
  deadlineMs(): number {
    return this.#trips.deadlineMs(this.#d.clock.now());
  }

  /** How long a call sent now waits for its answer. */
  timeoutMs(): number {
    return this.#trips.timeoutMs(this.#d.clock.now());
  }

  get failing(): boolean {
    return this.#failingSinceMs !== undefined;
  }

  /**
   * A call ended after `elapsedMs` (its wait, when unanswered). `deadlineMs` is the deadline it
   * carried, absent for a cancel: a cancel measures the link but cannot arrive late.
   */
  observe(elapsedMs: number, arrival: Arrival, deadlineMs?: number): void {
    const now = this.#d.clock.now();
    this.#trips.add(now, elapsedMs);
    if (deadlineMs !== undefined) {
      if (arrival === 'in-time') this.#recovered(now, elapsedMs);
      else if (deadlineMs >= this.#trips.longestDeadlineMs) this.#failed(now, elapsedMs);
    }
    this.#publish(now);
  }

  #failed(now: number, elapsedMs: number): void {
    if (this.#failingSinceMs === undefined) {
      this.#failingSinceMs = now;
      this.#d.log.warn(
        {
          roundTripMs: Math.round(elapsedMs),
          roundTripP99Ms: this.#p99(now),
          deadlineMs: this.#trips.longestDeadlineMs,
        },
        'order entry failing: the link is too slow for an order to reach the exchange before its deadline',
      );
    }
    if (now - this.#reportedAtMs >= REPORT_EVERY_MS) this.#report(now, true, this.#failingSinceMs);
  }

  #recovered(now: number, elapsedMs: number): void {
    const since = this.#failingSinceMs;
    if (since === undefined) return;
    this.#failingSinceMs = undefined;
    this.#d.log.info(
      { failingForMs: Math.round(now - since), roundTripMs: Math.round(elapsedMs) },
      'order entry recovered: orders reach the exchange in time again',
    );
    this.#report(now, false, now);
  }

  #p99(now: number): number | undefined {
    const p99 = this.#trips.p99(now);
    return p99 === undefined ? undefined : Math.round(p99);
  }

  /** Best effort: a report Redis did not take is written again at the next late call. */
  #report(now: number, failing: boolean, sinceMs: number): void {
    this.#reportedAtMs = now;
    const report: OrderEntryReport = {
      failing,
      sinceMs,
      roundTripP99Ms: this.#p99(now),
      deadlineMs: failing ? this.#trips.longestDeadlineMs : this.#trips.deadlineMs(now),
    };
    void this.#d.flags
      ?.report(orderEntryRole(this.#d.pair), report, REPORT_TTL_MS)
      .catch(() => (this.#reportedAtMs = -Infinity));
  }

  #publish(now: number): void {
    const { metrics, label } = this.#d;
    const p99 = this.#trips.p99(now);
    metrics.orderEntryFailing.set({ pair: label }, this.failing ? 1 : 0);
    metrics.roundTripP99.set({ pair: label }, p99 === undefined ? 0 : p99 / 1000);
    metrics.deadline.set({ pair: label }, this.#trips.deadlineMs(now) / 1000);
  }
}
