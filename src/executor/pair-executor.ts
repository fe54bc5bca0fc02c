import { errorMessage } from '../core/index.js';
import { cancelAllPenalty } from '../exchange/index.js';
import { Drain, type DrainResult } from './drain.js';
import { OrderCalls } from './order-calls.js';
import { OrderSync } from './order-sync.js';
import { OrdersViewFollower } from './orders-view.js';
import type { PairContext } from './pair-context.js';
import { WakeTimer } from './wake-timer.js';
import { WireTimes } from './wire-times.js';

/**
 * A halt's CancelAll is followed by the supervisor's sweep; a full sync this long after the halt
 * was seen finds both done.
 */
const HALT_SYNC_DELAY_MS = 2_500;
/** A step or a job add that failed (Redis or the exchange away) is tried again this much later. */
const BACKOFF_MS = 1_000;

/**
 * One pair's order entry while this process holds its lease. All its work happens in step(), the
 * processor of the pair's BullMQ jobs, which the Worker runs one at a time: follow the runner's
 * newest view of our open orders (fills), resolve the unknown outcomes that are due, drain the
 * register, run the periodic full sync when due. A step ends by setting the pair's one timer to
 * the earliest thing it waits for (ratecount budget, an unknown outcome's deadline, the next full
 * sync, the end of a pause); the timer adds a job.
 */
export class PairExecutor {
  readonly ctx: PairContext;
  readonly #drain: Drain;
  readonly #sync: OrderSync;
  readonly #view: OrdersViewFollower;
  readonly #wake: WakeTimer;
  readonly #enqueue: () => Promise<void>;
  /** When the next full sync is due. */
  #fullSyncAtMs = 0;
  /** When the drain last asked to go again: its first intent waiting for budget then fits. */
  #retryAtMs: number | undefined;
  /** After a step failed, no new one before this (a failing query must not run in a loop). */
  #backoffUntilMs = 0;
  #stepStartedAtMs: number | undefined;
  #stopped = false;
  /** Steps and the halt's sync run one at a time: both work the pair's orders. */
  #exclusive: Promise<unknown> = Promise.resolve();

  /** `enqueue` adds a job for the pair (the bus's); every wake-up goes through the queue. */
  constructor(ctx: PairContext, enqueue: () => Promise<void>) {
    this.ctx = ctx;
    const wire = new WireTimes(ctx.id, ctx.label, ctx.deps.metrics, ctx.deps.onWire);
    this.#drain = new Drain(ctx, new OrderCalls(ctx, wire), wire);
    this.#sync = new OrderSync(ctx);
    this.#view = new OrdersViewFollower(ctx);
    this.#enqueue = enqueue;
    this.#wake = new WakeTimer(ctx.deps.clock, () => void this.wake());
  }

  /** Loads the tracker's records and reconciles with the exchange; the first job drains. */
  async start(): Promise<void> {
    this.ctx.orders.clear();
    this.ctx.remember(await this.ctx.deps.tracker.live(this.ctx.id));
    await this.#syncNow('all');
  }

  stop(): void {
    this.#stopped = true;
    this.#wake.clear();
  }

  /** Adds a job for the pair; a failure (Redis away) is logged and tried again in a second. */
  async wake(): Promise<void> {
    if (this.#stopped) return;
    try {
      await this.#enqueue();
    } catch (err) {
      this.ctx.deps.log.error({ err: errorMessage(err) }, 'adding a job for the pair failed');
      this.#wake.set(this.ctx.now() + BACKOFF_MS);
    }
  }

  /** The pair's job: what is due, in order. Returns what the drain did (kept with the job). */
  step(): Promise<DrainResult | undefined> {
    return this.#oneAtATime(() => this.#step());
  }

  async #step(): Promise<DrainResult | undefined> {
    if (this.#stopped) return undefined;
    const ctx = this.ctx;
    ctx.assertHeld();
    this.#stepStartedAtMs = ctx.now();
    try {
      if (ctx.now() < ctx.pausedUntilMs) return undefined;
      await this.#view.follow();
      if ((this.#sync.dueAt() ?? Infinity) <= ctx.now()) await this.#syncNow('unknowns');
      const drained = await this.#drain.run();
      this.#retryAtMs = drained.retryAtMs;
      // After the drain: the pair's next snapshot is a poll away, so the sync delays no quote.
      if (ctx.now() >= this.#fullSyncAtMs) {
        await this.#syncNow('all');
        // What it found (an order filled, so its slot is free) may let a waiting intent go now.
        if (drained.deferred > 0) this.#retryAtMs = ctx.now();
      }
      return drained;
    } catch (err) {
      this.#backoffUntilMs = ctx.now() + BACKOFF_MS;
      throw err;
    } finally {
      this.#stepStartedAtMs = undefined;
      this.#arm();
    }
  }

  /**
   * The halt flag was set: the supervisor's CancelAll is taking our orders off, and charges each
   * one's age penalty to the pair. The model counts those points now, as if every order we know
   * of was cancelled (more is safe), and a full sync soon after records the cancellations.
   */
  async halted(): Promise<void> {
    const ctx = this.ctx;
    const now = ctx.now();
    // Foreign orders too: CancelAll takes every order of the key and charges each one.
    const ages = [...ctx.orders.values()].map((o) => (o.openedAtMs > 0 ? now - o.openedAtMs : 0));
    const points = cancelAllPenalty(ages);
    if (points > 0) {
      const reading = await ctx.deps.ratecount.add(ctx.id, points, now);
      ctx.deps.metrics.ratecountLevel.set({ pair: ctx.label }, reading.level);
    }
    ctx.deps.log.warn(
      { orders: ages.length, points },
      'halted: counting the CancelAll penalty of our orders',
    );
    // The supervisor pauses the queues while halted, so no job would run this sync: without it
    // the tracker (and /status, and the risk check) kept every cancelled order for the whole halt.
    void ctx.deps.clock
      .sleep(HALT_SYNC_DELAY_MS)
      .then(() =>
        this.#oneAtATime(async () => {
          if (!this.#stopped) await this.#syncNow('all');
        }),
      )
      .catch((err: unknown) =>
        ctx.deps.log.error({ err: errorMessage(err) }, 'sync after the halt failed'),
      );
  }

  /** A full sync now, after the step in progress (a replay's last look before it stops). */
  syncAll(): Promise<void> {
    return this.#oneAtATime(() => this.#syncNow('all'));
  }

  /** The halt flag was cleared: what the book holds now is read, then the pair drains. */
  async resumed(): Promise<void> {
    this.#fullSyncAtMs = this.ctx.now();
    await this.wake();
  }

  /**
   * How long the step in progress has run, ms; 0 when idle. A step that never ends (a hang) stops
   * the executor's liveness beats, and with them the dead-man heartbeats.
   */
  busyForMs(nowMs: number): number {
    return this.#stepStartedAtMs === undefined ? 0 : nowMs - this.#stepStartedAtMs;
  }

  async #syncNow(scope: 'unknowns' | 'all'): Promise<void> {
    const ctx = this.ctx;
    if (scope === 'all') {
      this.#fullSyncAtMs = ctx.now() + ctx.deps.config.reconcile_interval_ms;
    }
    const result = await this.#sync.run(scope);
    if (result.adopted > 0 || result.resolved > 0) {
      ctx.deps.log.info({ scope, ...result }, 'orders reconciled');
    }
    ctx.publishOrderGauges();
    await ctx.publishPosition();
  }

  #oneAtATime<T>(work: () => Promise<T>): Promise<T> {
    const run = this.#exclusive.then(work, work);
    this.#exclusive = run.catch(() => undefined);
    return run;
  }

  /** The pair's one timer, at the earliest thing it waits for, but not within a pause. */
  #arm(): void {
    if (this.#stopped) return;
    const dues = [this.#retryAtMs, this.#sync.dueAt(), this.#fullSyncAtMs];
    const earliest = Math.min(...dues.map((d) => d ?? Infinity));
    this.#wake.set(Math.max(earliest, this.ctx.pausedUntilMs, this.#backoffUntilMs));
  }
}
