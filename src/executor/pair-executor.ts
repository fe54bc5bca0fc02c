import { errorMessage } from '../core/index.js';
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
  /**
   * Set when what the book holds may have changed behind our back (the process stood still, the
   * halt was lifted), to when we heard of it: the next step, or the resync queued with it, runs a
   * full sync on reads asked since before any order entry, so the orders cancelled meanwhile are
   * charged to the ratecount first.
   */
  #resyncFrom: number | undefined;
  #stopped = false;
  /**
   * When the newest CancelAll the supervisor told of was done, when this pair heard of it, and the
   * newest one a sync of this pair has read since (a sync reads every CancelAll told before it
   * began).
   */
  #cancelAll = { toldAtMs: -Infinity, heardAtMs: -Infinity, readAtMs: -Infinity };
  /** When the halt in force was set, while this pair follows it. */
  #haltSinceMs: number | undefined;
  /** Ends the halt's delayed sync, which waits on the clock outside the steps, at stop(). */
  readonly #stopping = new AbortController();
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

  /**
   * No step, sync or wake-up starts from now on. Resolves once the work under way has ended: at
   * once when the executor has cut its exchange reads short (Executor.stop), unless an
   * order-entry call is on the wire.
   */
  stop(): Promise<void> {
    this.#stopped = true;
    this.#stopping.abort();
    this.#wake.clear();
    return this.#exclusive.then(() => undefined);
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
      await this.#resyncIfDue();
      if (ctx.now() < ctx.pausedUntilMs) return undefined;
      await this.#view.follow();
      if ((this.#sync.dueAt() ?? Infinity) <= ctx.now()) {
        await this.#syncNow('unknowns', -Infinity);
      }
      // Stopped while the queries waited (REST budget spent by a halt: seconds a call), maybe
      // past the process's bound, after which the supervisor cancels every order: nothing new
      // may follow that cancel.
      if (this.#stopped) return undefined;
      // What the view found cancelled by others is owed before anything is sent.
      await ctx.cancelCharges.charge();
      const drained = await this.#drain.run();
      this.#retryAtMs = drained.retryAtMs;
      // After the drain: the pair's next snapshot is a poll away, so the sync delays no quote.
      if (ctx.now() >= this.#fullSyncAtMs) {
        await this.#syncNow('all', -Infinity, true);
        // What it found (an order filled, so its slot is free) may let a waiting intent go now.
        if (drained.deferred > 0) this.#retryAtMs = ctx.now();
      }
      return drained;
    } catch (err) {
      // The stop cut its reads short: nothing to retry or report.
      if (this.#stopped) return undefined;
      this.#backoffUntilMs = ctx.now() + BACKOFF_MS;
      throw err;
    } finally {
      this.#stepStartedAtMs = undefined;
      this.#arm();
    }
  }

  /**
   * The halt flag was set (at `sinceMs`): the supervisor's CancelAll is taking our orders off. The
   * exchange charges each one's age penalty to the pair; the sync that finds them cancelled (at
   * once when the supervisor confirms the CancelAll, else this one) charges the model, each order
   * once.
   */
  halted(sinceMs: number | undefined): void {
    const ctx = this.ctx;
    this.#haltSinceMs = sinceMs;
    ctx.deps.log.info({}, 'halted: our orders are read again once the CancelAll is done');
    // The supervisor pauses the queues while halted, so no job would run this sync: without it
    // the tracker (and /status, and the risk check) kept every cancelled order for the whole halt.
    // Read already after the supervisor's word, the orders are not read twice: the REST points a
    // second read costs are what a stop right after waits for (the starter tier gives one back
    // every 3 s).
    // Every pair hears of the halt at once: their reads, asked from the same moment, are shared.
    const from = ctx.now() + HALT_SYNC_DELAY_MS;
    void ctx.deps.clock
      .sleep(HALT_SYNC_DELAY_MS, this.#stopping.signal)
      .then(() =>
        this.#oneAtATime(async () => {
          if (!this.#stopped && ctx.orders.size > 0 && !this.#haltRead(sinceMs)) {
            await this.#syncNow('all', from);
          }
        }),
      )
      .catch(this.#failed('sync after the halt failed'));
  }

  /**
   * The supervisor confirmed a CancelAll, or saw the dead-man timer fire: the orders are read
   * now, after the step in progress, so the tracker (and /status, the page, the risk check) drops
   * them within a round trip and the model is charged for them. A failure is logged; the halt's
   * later sync, a resync and the periodic one read again. `atMs`: when the CancelAll was done.
   */
  cancelledAll(atMs = this.ctx.now()): Promise<void> {
    const told = this.#cancelAll;
    told.toldAtMs = Math.max(told.toldAtMs, atMs);
    // Heard after the CancelAll was done: any read asked since shows it, another pair's too.
    told.heardAtMs = Math.max(told.heardAtMs, this.ctx.now());
    return this.#oneAtATime(async () => {
      if (this.#stopped) return;
      // Every CancelAll told so far, read on reads asked since the newest was heard of.
      const [upTo, heardAt] = [told.toldAtMs, told.heardAtMs];
      await this.#syncNow('all', heardAt);
      told.readAtMs = Math.max(told.readAtMs, upTo);
    }).catch(this.#failed('sync after the CancelAll failed'));
  }

  /**
   * Whether a sync has read every CancelAll told of, one of them done since the halt set at
   * `sinceMs`: then the book holds nothing of ours it has not read (the halt's queues send
   * nothing, and what a late order left is the sweep's, told too). Both times are of one clock:
   * whoever set the flag also cancelled (the supervisor, `makerd halt`).
   */
  #haltRead(sinceMs: number | undefined): boolean {
    const { toldAtMs, readAtMs } = this.#cancelAll;
    return readAtMs >= toldAtMs && readAtMs >= (sinceMs ?? Infinity);
  }

  /** A full sync now, after the step in progress (a replay's last look before it stops). */
  syncAll(): Promise<void> {
    return this.#oneAtATime(() => this.#syncNow('all'));
  }

  /**
   * The halt flag was cleared: what the book holds now is read, then the pair drains. Not read
   * again when a sync read the halt's CancelAlls: 3 REST points for two pairs, which a stop
   * right after the resume would wait for.
   */
  async resumed(): Promise<void> {
    if (!this.#haltRead(this.#haltSinceMs)) this.#resyncAfter(this.ctx.now());
    this.#haltSinceMs = undefined;
    await this.wake();
  }

  /**
   * The process stood still: no order entry before a full sync has read the book and charged
   * what the exchange cancelled meanwhile. Resolves once that sync is done (by this call or by
   * the step that came first); rejects if it failed, and the next step tries again.
   */
  resync(): Promise<void> {
    this.#resyncAfter(this.ctx.now());
    return this.#oneAtATime(() => this.#resyncIfDue());
  }

  /** A resync is due on reads asked from `heardAt` on (the later of two due at once). */
  #resyncAfter(heardAt: number): void {
    this.#resyncFrom = Math.max(this.#resyncFrom ?? -Infinity, heardAt);
  }

  async #resyncIfDue(): Promise<void> {
    const from = this.#resyncFrom;
    if (from === undefined || this.#stopped) return;
    await this.#syncNow('all', from);
    // One heard of while this one read stays due.
    if (this.#resyncFrom === from) this.#resyncFrom = undefined;
  }

  /**
   * How long the step in progress has run, ms; 0 when idle. A step that never ends (a hang) stops
   * the executor's liveness beats, and with them the dead-man heartbeats.
   */
  busyForMs(nowMs: number): number {
    return this.#stepStartedAtMs === undefined ? 0 : nowMs - this.#stepStartedAtMs;
  }

  /**
   * `readsFrom`: the reads may be another pair's asked since then (OrderSync.run); without it
   * they are asked now. `periodic`: the interval's own full sync.
   */
  async #syncNow(scope: 'unknowns' | 'all', readsFrom?: number, periodic = false): Promise<void> {
    const ctx = this.ctx;
    if (scope === 'all') {
      // The periodic one keeps its rate rather than restarting from when its step ran: the pairs
      // taken together stay milliseconds apart, within the reads' sharing, however late steps run.
      const interval = ctx.deps.config.reconcile_interval_ms;
      const next = this.#fullSyncAtMs + interval;
      this.#fullSyncAtMs = periodic && next > ctx.now() ? next : ctx.now() + interval;
    }
    let result;
    try {
      result = await this.#sync.run(scope, readsFrom);
    } finally {
      await ctx.cancelCharges.charge();
    }
    if (result.adopted > 0 || result.resolved > 0) {
      ctx.deps.log.info({ scope, ...result }, 'orders reconciled');
    }
    ctx.publishOrderGauges();
    await ctx.publishPosition();
  }

  /** Logs a failure of work outside the steps, unless it failed because the pair stopped. */
  #failed(msg: string): (err: unknown) => void {
    return (err) => {
      if (!this.#stopped) this.ctx.deps.log.error({ err: errorMessage(err) }, msg);
    };
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
