import { errorMessage, MakerdError, type Clock } from '../core/index.js';
import {
  BudgetWaitTooLongError,
  RateLimitExceededError,
  ThrottledError,
} from '../exchange/index.js';
import type { PlannedPoll, PollScope, PollSource } from './budget-planner.js';
import type { Log } from '../core/log.js';

export type PollOutcome = 'ok' | 'error' | 'throttled' | 'skipped';

export interface PollStatus {
  readonly id: string;
  readonly source: PollSource;
  readonly pair: string | undefined;
  readonly scope: PollScope;
  readonly intervalMs: number;
  readonly lastOkAtMs: number | undefined;
  /** The last failure's message; cleared by the next success. */
  readonly lastError: string | undefined;
  readonly lastErrorCode: string | undefined;
  readonly consecutiveFailures: number;
  /** The delay before the next attempt while backing off; 0 otherwise. */
  readonly backoffMs: number;
  readonly nextRunAtMs: number | undefined;
  readonly counts: Readonly<Record<PollOutcome, number>>;
}

/** One iteration: resolves with the REST points (or public calls) it spent. */
export type PollRun = (signal: AbortSignal) => Promise<number>;

export interface PollLoopOptions {
  readonly poll: PlannedPoll;
  readonly clock: Clock;
  readonly run: PollRun;
  readonly log: Log;
}

export const BACKOFF_CAP_MS = 60_000;

/**
 * Runs one planned poll at its planned rate. The schedule is fixed-rate (the next run is due one
 * interval after the previous was due), so latency does not erode the rate the plan promised; a
 * run that spent several calls pushes the next one back by as many intervals, so the poll never
 * spends more than its planned share. Refusals for budget (throttled, rate limited, no budget in
 * time) back off exponentially: retrying them at once only digs the hole deeper.
 */
export class PollLoop {
  readonly poll: PlannedPoll;
  readonly #clock: Clock;
  readonly #run: PollRun;
  readonly #log: Log;
  #lastOkAtMs: number | undefined;
  #lastError: string | undefined;
  #lastErrorCode: string | undefined;
  #failures = 0;
  #backoffMs = 0;
  #nextRunAtMs: number | undefined;
  readonly #counts: Record<PollOutcome, number> = { ok: 0, error: 0, throttled: 0, skipped: 0 };

  constructor(options: PollLoopOptions) {
    this.poll = options.poll;
    this.#clock = options.clock;
    this.#run = options.run;
    this.#log = options.log;
  }

  get lastError(): string | undefined {
    return this.#lastError;
  }

  status(): PollStatus {
    const p = this.poll;
    return {
      id: p.id,
      source: p.source,
      pair: p.pair,
      scope: p.scope,
      intervalMs: p.intervalMs,
      lastOkAtMs: this.#lastOkAtMs,
      lastError: this.#lastError,
      lastErrorCode: this.#lastErrorCode,
      consecutiveFailures: this.#failures,
      backoffMs: this.#backoffMs,
      nextRunAtMs: this.#nextRunAtMs,
      counts: { ...this.#counts },
    };
  }

  /** Resolves when `signal` aborts; never rejects. */
  async loop(signal: AbortSignal, startAtMs: number): Promise<void> {
    const interval = this.poll.intervalMs;
    let next = startAtMs + this.poll.offsetMs;
    while (!signal.aborted) {
      this.#nextRunAtMs = next;
      try {
        await this.#clock.sleep(Math.max(0, next - this.#clock.now()), signal);
      } catch {
        return;
      }
      try {
        const spent = await this.#run(signal);
        if (signal.aborted) return;
        this.#succeeded();
        next = Math.max(next + interval * Math.max(1, spent), this.#clock.now());
      } catch (err) {
        if (signal.aborted) return;
        const outcome = outcomeOf(err);
        this.#failed(err, outcome);
        const now = this.#clock.now();
        if (outcome === 'error') {
          next = Math.max(next + interval, now);
        } else {
          this.#backoffMs = Math.min(
            interval * 2 ** this.#failures,
            Math.max(BACKOFF_CAP_MS, interval),
          );
          const retryAt = err instanceof ThrottledError ? (err.retryAtMs ?? 0) : 0;
          next = Math.max(now + this.#backoffMs, retryAt);
        }
      }
    }
  }

  #succeeded(): void {
    if (this.#failures > 0) {
      this.#log.info(
        { poll: this.poll.id, failures: this.#failures },
        `${this.poll.id} recovered after ${this.#failures} failed polls`,
      );
    }
    this.#counts.ok += 1;
    this.#lastOkAtMs = this.#clock.now();
    this.#lastError = undefined;
    this.#lastErrorCode = undefined;
    this.#failures = 0;
    this.#backoffMs = 0;
  }

  #failed(err: unknown, outcome: PollOutcome): void {
    const code = err instanceof MakerdError ? err.code : 'UNEXPECTED';
    const message = errorMessage(err);
    // One line per change, not one per attempt: a dead endpoint must not flood the log.
    if (this.#failures === 0 || code !== this.#lastErrorCode) {
      const fields = { poll: this.poll.id, code, outcome, err: message };
      if (code === 'UNEXPECTED') this.#log.error(fields, `${this.poll.id} poll failed: ${message}`);
      else this.#log.warn(fields, `${this.poll.id} poll failed: ${message}`);
    }
    this.#counts[outcome] += 1;
    this.#failures += 1;
    this.#lastError = message;
    this.#lastErrorCode = code;
  }
}

export function outcomeOf(err: unknown): PollOutcome {
  if (err instanceof BudgetWaitTooLongError) return 'skipped';
  if (err instanceof ThrottledError || err instanceof RateLimitExceededError) return 'throttled';
  return 'error';
}
