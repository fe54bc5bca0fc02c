import { InvalidInputError, systemClock, type Clock } from '../../core/index.js';
import { BudgetWaitTooLongError } from '../errors/client-errors.js';
import { RestCounter, decayedLevel } from './rest-counter.js';
import { REST_COUNTER, type Tier } from './tiers.js';

export type Priority = 'high' | 'normal';

export interface RestLimiterOptions {
  readonly tier: Tier;
  readonly clock?: Clock;
  /** Points never used, to absorb latency jitter and calls the model does not see. */
  readonly headroom?: number;
}

export interface AcquireOptions {
  /** 'high' is for dead-man heartbeats: served before every 'normal' waiter. */
  readonly priority?: Priority;
  readonly signal?: AbortSignal;
  /** Give up (BudgetWaitTooLongError) rather than wait longer than this. */
  readonly maxWaitMs?: number;
  /** Endpoint name for the error message. */
  readonly label?: string;
}

export interface RestLimiterSnapshot {
  readonly level: number;
  readonly max: number;
  /** No counted call leaves before this time (throttle or rate-limit backoff); may be past. */
  readonly blockedUntilMs: number;
  readonly queued: number;
}

/** `cost` points counted (0 when a refusal filled the counter) took the model to `level`. */
export type RaisedListener = (cost: number, level: number, atMs: number) => void;

export const BACKOFF_START_MS = 2_000;
export const BACKOFF_CAP_MS = 60_000;

interface Waiter {
  readonly cost: number;
  readonly deadlineMs: number;
  readonly maxWaitMs: number;
  readonly enqueuedMs: number;
  readonly label: string;
  readonly resolve: () => void;
  readonly reject: (reason: unknown) => void;
  detach: () => void;
}

/**
 * Paces one API key's private calls so its REST call counter stays within the tier maximum.
 * One pump serves the queue: it releases what fits, then sleeps once until the next thing can
 * happen, so there is no polling and nothing is armed while the queue is empty. A sleep made
 * stale by an abort or a new head is cancelled, so it never holds the process open.
 */
export class RestLimiter {
  readonly max: number;
  readonly decayPerSec: number;
  readonly headroom: number;
  readonly #clock: Clock;
  readonly #counter: RestCounter;
  readonly #queues: Record<Priority, Waiter[]> = { high: [], normal: [] };
  /** Cost-0 calls waiting out a throttle; they skip the counter queue. */
  #free: Waiter[] = [];
  #throttledUntil = 0;
  #backoffUntil = 0;
  #backoffMs = 0;
  #sleep: { readonly until: number; readonly controller: AbortController } | undefined;
  readonly #raised = new Set<RaisedListener>();

  constructor(options: RestLimiterOptions) {
    const limits = REST_COUNTER[options.tier];
    const headroom = options.headroom ?? 0;
    if (!Number.isFinite(headroom) || headroom < 0 || headroom >= limits.max) {
      throw new InvalidInputError('headroom', `must be in [0, ${limits.max}), got ${headroom}`);
    }
    this.max = limits.max;
    this.decayPerSec = limits.decayPerSec;
    this.headroom = headroom;
    this.#clock = options.clock ?? systemClock;
    this.#counter = new RestCounter(limits);
  }

  /**
   * Resolves when a call costing `cost` may be sent, and counts it. Cost 0 (order entry) skips
   * the counter and waits only for an `EService:Throttled` block, which the engine would answer
   * with another Throttled anyway.
   */
  async acquire(cost: number, opts: AcquireOptions = {}): Promise<void> {
    const usable = this.max - this.headroom;
    if (!Number.isFinite(cost) || cost < 0 || cost > usable) {
      throw new InvalidInputError('cost', `must be in [0, ${usable}], got ${cost}`);
    }
    const maxWaitMs = opts.maxWaitMs ?? Infinity;
    if (Number.isNaN(maxWaitMs) || maxWaitMs < 0) {
      throw new InvalidInputError('maxWaitMs', `must be >= 0, got ${maxWaitMs}`);
    }
    opts.signal?.throwIfAborted();
    const now = this.#clock.now();
    if (cost === 0 && now >= this.#throttledUntil) return;

    const priority = opts.priority ?? 'normal';
    const label = opts.label ?? 'private call';
    // The estimate walks the whole queue: only worth it when the caller set a limit.
    if (maxWaitMs !== Infinity) {
      const estimate =
        cost === 0
          ? this.#throttledUntil - now
          : this.#releaseAt(cost, this.#aheadOf(priority), now) - now;
      if (estimate > maxWaitMs) throw new BudgetWaitTooLongError(label, estimate, maxWaitMs);
    }

    await new Promise<void>((resolve, reject) => {
      const queue = cost === 0 ? this.#free : this.#queues[priority];
      const waiter: Waiter = {
        cost,
        deadlineMs: now + maxWaitMs,
        maxWaitMs,
        enqueuedMs: now,
        label,
        resolve,
        reject,
        detach: () => {},
      };
      const signal = opts.signal;
      if (signal !== undefined) {
        const onAbort = (): void => {
          this.#remove(waiter);
          // The caller's own reason, as fetch and timers/promises do, whatever its type.
          // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
          reject(signal.reason);
          this.#schedule();
        };
        signal.addEventListener('abort', onAbort, { once: true });
        waiter.detach = () => signal.removeEventListener('abort', onAbort);
      }
      queue.push(waiter);
      this.#schedule();
    });
  }

  /** `EService:Throttled: <ts>`: nothing leaves before `untilMs`. */
  blockUntil(untilMs: number): void {
    this.#throttledUntil = Math.max(this.#throttledUntil, untilMs);
    this.#schedule();
  }

  /**
   * `EAPI:Rate limit exceeded`: the model was wrong (another process on the key, or jitter), so
   * assume the counter is full and back off, longer each time until a call is accepted.
   */
  onRateLimited(): void {
    const now = this.#clock.now();
    this.#backoffMs =
      this.#backoffMs === 0 ? BACKOFF_START_MS : Math.min(this.#backoffMs * 2, BACKOFF_CAP_MS);
    this.#backoffUntil = Math.max(this.#backoffUntil, now + this.#backoffMs);
    this.#counter.fill(now);
    this.#tellRaised(0, now);
    this.#schedule();
  }

  /**
   * Counts what an earlier process on the key left on the exchange's counter: `level` at `atMs`,
   * decayed to now. A restart that began at zero earned `EAPI:Rate limit exceeded` (issue #32).
   */
  seed(level: number, atMs: number): void {
    const now = this.#clock.now();
    this.#counter.atLeast(decayedLevel(level, atMs, this.#counter.decayPerSec, now), now);
    this.#schedule();
  }

  /**
   * Calls `listener` with the level each time a counted call is let go or a refusal fills the
   * counter: synchronously, before the caller sends, so a write the listener starts reaches its
   * socket before the call does. Returns the unsubscribe.
   */
  onRaised(listener: RaisedListener): () => void {
    this.#raised.add(listener);
    return () => this.#raised.delete(listener);
  }

  #tellRaised(cost: number, now: number): void {
    if (this.#raised.size === 0) return;
    const level = this.#counter.decayed(now);
    for (const listener of this.#raised) listener(cost, level, now);
  }

  onAccepted(): void {
    this.#backoffMs = 0;
  }

  snapshot(nowMs: number = this.#clock.now()): RestLimiterSnapshot {
    return {
      level: this.#counter.decayed(nowMs),
      max: this.max,
      blockedUntilMs: this.#gateUntil(),
      queued: this.#queues.high.length + this.#queues.normal.length + this.#free.length,
    };
  }

  #gateUntil(): number {
    return Math.max(this.#throttledUntil, this.#backoffUntil);
  }

  #serviceOrder(): Waiter[] {
    return [...this.#queues.high, ...this.#queues.normal];
  }

  #aheadOf(priority: Priority): readonly Waiter[] {
    return priority === 'high' ? this.#queues.high : this.#serviceOrder();
  }

  /** When a call of `cost` queued behind `ahead` would leave, if nothing else changes. */
  #releaseAt(cost: number, ahead: readonly { cost: number }[], now: number): number {
    const sim = new RestCounter(this.#counter, this.#counter.state);
    let t = Math.max(now, this.#gateUntil());
    for (const w of [...ahead, { cost }]) {
      t += sim.waitMsFor(w.cost, t, this.headroom);
      sim.add(w.cost, t);
    }
    return t;
  }

  #head(): Waiter | undefined {
    return this.#queues.high[0] ?? this.#queues.normal[0];
  }

  #waitMs(cost: number, now: number): number {
    const gate = this.#gateUntil() - now;
    return Math.max(gate, this.#counter.waitMsFor(cost, now, this.headroom));
  }

  #remove(waiter: Waiter): void {
    for (const queue of [this.#queues.high, this.#queues.normal, this.#free]) {
      const i = queue.indexOf(waiter);
      if (i !== -1) queue.splice(i, 1);
    }
    waiter.detach();
  }

  #release(waiter: Waiter, now: number): void {
    this.#remove(waiter);
    if (waiter.cost > 0) {
      this.#counter.add(waiter.cost, now);
      this.#tellRaised(waiter.cost, now);
    }
    waiter.resolve();
  }

  /** Releases every waiter that may go now, then rejects those past their deadline. */
  #drain(now: number): void {
    for (;;) {
      if (now >= this.#throttledUntil) {
        for (const w of [...this.#free]) this.#release(w, now);
      }
      for (let head = this.#head(); head !== undefined; head = this.#head()) {
        if (this.#waitMs(head.cost, now) > 0) break;
        this.#release(head, now);
      }
      // Expiring the head can let the next one go at once, hence the outer loop.
      const overdue = [...this.#serviceOrder(), ...this.#free].filter((w) => w.deadlineMs <= now);
      if (overdue.length === 0) return;
      for (const w of overdue) this.#expire(w, now);
    }
  }

  #expire(waiter: Waiter, now: number): void {
    const ahead = this.#serviceOrder();
    const i = ahead.indexOf(waiter);
    const releaseAt =
      i === -1 ? this.#throttledUntil : this.#releaseAt(waiter.cost, ahead.slice(0, i), now);
    this.#remove(waiter);
    waiter.reject(
      new BudgetWaitTooLongError(waiter.label, releaseAt - waiter.enqueuedMs, waiter.maxWaitMs),
    );
  }

  #schedule(): void {
    const now = this.#clock.now();
    this.#drain(now);
    let wakeAt = Infinity;
    const head = this.#head();
    if (head !== undefined) wakeAt = now + this.#waitMs(head.cost, now);
    if (this.#free.length > 0) wakeAt = Math.min(wakeAt, this.#throttledUntil);
    for (const w of [...this.#serviceOrder(), ...this.#free]) {
      wakeAt = Math.min(wakeAt, w.deadlineMs);
    }
    if (wakeAt === Infinity) {
      // Nothing waits: drop any sleep, so an idle limiter holds no timer.
      this.#cancelSleep();
      return;
    }
    // A pending sleep that ends no later still serves; an earlier need supersedes it.
    if (this.#sleep !== undefined && this.#sleep.until <= wakeAt) return;
    this.#cancelSleep();
    const controller = new AbortController();
    const sleep = { until: wakeAt, controller };
    this.#sleep = sleep;
    this.#clock.sleep(wakeAt - now, controller.signal).then(
      () => {
        if (this.#sleep !== sleep) return;
        this.#sleep = undefined;
        this.#schedule();
      },
      () => {}, // aborted: superseded or no longer needed
    );
  }

  #cancelSleep(): void {
    this.#sleep?.controller.abort();
    this.#sleep = undefined;
  }
}
