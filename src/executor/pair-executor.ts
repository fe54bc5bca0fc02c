import pLimit, { type LimitFunction } from 'p-limit';
import type { SlotPick } from '../bus/index.js';
import {
  SCAVENGE_QUIET_MS,
  endQuietWindow,
  errorMessage,
  missingFromDepth,
  quietWindow,
  scavengeIfFilling,
  type OrderIntent,
} from '../core/index.js';
import { cancelAllPenalty } from '../exchange/index.js';
import { ExecutorError, NotSentError } from './errors.js';
import type { RatecountReading } from './ratecount-store.js';
import { OrderCalls, type ReadyCall } from './order-calls.js';
import { retiredAsGone } from './records.js';
import { OrderSync } from './order-sync.js';
import { intentKey as keyOf, type PairContext, type WireStart } from './pair-context.js';
import { cancelsOnly, planCalls, type Plan, type PlannedCall } from './plan/index.js';
import { OrderTracker } from './tracker/index.js';
import { SYNC_DEFER_MAX_MS, syncStartsNow } from './sync-timing.js';
import { until } from './due-wait.js';
import type { TrackedOrder } from './types.js';

/**
 * A halt's CancelAll is followed by the supervisor's sweep; a full sync this long after the halt
 * was seen finds both done.
 */
const HALT_SYNC_DELAY_MS = 2_500;
/** Plans are re-made at most this often when another process moved the ratecount meanwhile. */
const MAX_REPLANS = 3;
/** How long an intent keeps the time its budget was due, for tick-to-wire. */
const BUDGET_CREDIT_MS = 60_000;

export interface DrainStats {
  readonly sent: number;
  readonly deferred: number;
  readonly dropped: number;
}

/**
 * One pair's order entry while this process holds its lease: drains the pair's intents into
 * planned calls, keeps unknown outcomes resolved and the records reconciled. Everything runs on
 * one promise chain, so the pair never has two drains, or a drain and a sync, at once.
 */
export class PairExecutor {
  readonly ctx: PairContext;
  readonly #calls: OrderCalls;
  readonly #sync: OrderSync;
  #chain: Promise<unknown> = Promise.resolve();
  #resolveTimer: NodeJS.Timeout | undefined;
  #reconcileTimer: NodeJS.Timeout | undefined;
  #wakeTimer: NodeJS.Timeout | undefined;
  /** When the budget wake set by #wakeAt is due; undefined when none is set. */
  #wakeDueMs: number | undefined;
  /** The due a budget wake fired ahead of: the next drain plans as of then (plan_ahead_ms). */
  #planAheadMs: number | undefined;
  /** When the periodic full sync came due, until it starts (sync-timing.ts). */
  #syncDueSinceMs: number | undefined;
  #syncDeferTimer: NodeJS.Timeout | undefined;
  #haltSyncTimer: NodeJS.Timeout | undefined;
  #stepStartedAtMs: number | undefined;
  /**
   * Calls sent and not answered yet. Drains do not wait for answers (the slots of calls in flight
   * are busy to the planner); syncs and stop do, so a reconciliation never reads the exchange
   * while one of our calls may still change it.
   */
  readonly #flying = new Set<Promise<void>>();
  /** At most max_calls_in_flight sends at once, started in call order (so are their nonces). */
  readonly #lanes: LimitFunction;
  /** The drain queued on the chain and not started yet: further wake-ups join it. */
  #queued: Promise<DrainStats | undefined> | undefined;
  /**
   * Work of the pair on its way to the wire: a drain queued or running, calls until their outcome
   * is recorded (an order found gone is placed again at once). While there is any, no early
   * collection starts (core/idle-scavenge.ts): a scavenge of 1–5 ms would hold it.
   */
  #toWire = 0;
  /** Owns the quiet window before the budget wake's due (`this` owns the one for work under way). */
  readonly #dueWindow = {};
  #stopped = false;
  /** The last drain left intents in the register for slots with a call in flight or in doubt. */
  #busyWaiting = false;
  /**
   * When the ratecount budget was due for intents that waited for it (slot#generation → epoch
   * ms, the latest due of each): their tick-to-wire counts from then, not from their snapshot,
   * since the wait was the exchange's. Kept past the send, so an intent given back keeps the
   * credit (one given back by an answer that found its order gone counts from that answer:
   * #startOf); entries expire after BUDGET_CREDIT_MS.
   */
  readonly #budgetDue = new Map<string, { readonly dueAt: number; readonly sinceMs: number }>();
  /** The newest snapshot any intent of the pair came from (#creditOf). */
  #newestSnapshotAtMs = 0;
  /**
   * The pair's register as this process knows it (slot → latest intent), so a drain plans
   * without reading it back: every write to it goes through this process's bus (runner publishes,
   * our restores) and is told to published(), and our takes remove what they took. Undefined
   * means unknown (start, a queue job from a runner elsewhere, a take that found the register
   * otherwise, each full sync as a safety net): the next drain reads it.
   */
  #register: Map<string, OrderIntent> | undefined;
  /** Writes told while a read of the register is in flight, applied on top of what it returns. */
  #told: OrderIntent[] | undefined;

  constructor(ctx: PairContext) {
    this.ctx = ctx;
    // A slot emptied outside a drain (an answer, a sync) may let a waiting intent go now.
    ctx.onSlotFreed = () => void this.wake();
    this.#calls = new OrderCalls(ctx);
    this.#sync = new OrderSync(ctx);
    this.#lanes = pLimit(ctx.deps.config.max_calls_in_flight);
  }

  /** Loads the tracker's records, reconciles with the exchange, then drains what is pending. */
  async start(): Promise<void> {
    const { tracker, ratecount } = this.ctx.deps;
    // Another process may have held the pair and spent points since this one last knew.
    await ratecount.claim(this.ctx.id, this.ctx.now());
    this.ctx.orders.clear();
    this.ctx.remember(await tracker.live(this.ctx.id));
    await this.#serial(() => this.#syncNow('all'));
    this.#reconcileTimer = setInterval(() => {
      this.#syncDueSinceMs ??= this.ctx.now();
      this.#syncIfQuiet();
    }, this.ctx.deps.config.reconcile_interval_ms);
    this.#reconcileTimer.unref();
    await this.drain();
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#resolveTimer);
    clearInterval(this.#reconcileTimer);
    clearTimeout(this.#syncDeferTimer);
    clearTimeout(this.#haltSyncTimer);
    this.#clearWake();
    endQuietWindow(this);
  }

  /** Waits for the drain or sync in progress and the calls in flight. */
  async idle(): Promise<void> {
    await this.#chain;
    await this.#landed();
  }

  #landed(): Promise<unknown> {
    return Promise.all(this.#flying);
  }

  /**
   * The halt flag was set: the supervisor's CancelAll is taking our orders off, and charges each
   * one's age penalty to the pair. The model counts those points now, as if every order we know
   * of was cancelled (more is safe: the first calls after a resume would otherwise find the
   * exchange's count higher than ours), and a full sync soon after records the cancellations.
   */
  halted(): Promise<void> {
    return this.#serial(async () => {
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
      clearTimeout(this.#haltSyncTimer);
      this.#haltSyncTimer = setTimeout(() => void this.reconcile(), HALT_SYNC_DELAY_MS);
      this.#haltSyncTimer.unref();
    });
  }

  /** The halt flag was cleared: what the book holds now is read, then the pair drains. */
  async resumed(): Promise<void> {
    clearTimeout(this.#haltSyncTimer);
    await this.reconcile();
    await this.wake();
  }

  /** A full reconciliation now (start-up runs one; so does the periodic timer). */
  reconcile(): Promise<void> {
    return this.#serial(() => this.#syncNow('all'));
  }

  drain(): Promise<DrainStats | undefined> {
    return this.#serial(() => this.#drain());
  }

  /**
   * A drain soon: joins the one queued and not started yet, if any, so a burst of publishes costs
   * one drain. What every wake-up calls (publish in this process, queue job, budget timer).
   */
  wake(): Promise<DrainStats | undefined> {
    if (this.#queued !== undefined) return this.#queued;
    this.#wireWorkStarts();
    // A lost lease is the Executor's to handle (its renewal lets the pair go); a wake-up has no
    // caller to tell.
    const queued = this.#serial(() => {
      this.#queued = undefined;
      return this.#drain();
    })
      .catch(() => undefined)
      .finally(() => this.#wireWorkEnds());
    this.#queued = queued;
    return queued;
  }

  #wireWorkStarts(): void {
    if (this.#toWire++ === 0) quietWindow(this, 0, Infinity);
  }

  #wireWorkEnds(): void {
    if (--this.#toWire > 0) return;
    endQuietWindow(this);
    // The pair's way to the wire is clear: the quietest moment it knows for an early collection,
    // once what this turn writes has been written.
    setImmediate(scavengeIfFilling);
  }

  /** Intents this process wrote to the register (publish, restore): noted, then a drain. */
  published(intents: readonly OrderIntent[]): Promise<DrainStats | undefined> {
    this.#noteSnapshots(intents);
    if (this.#told !== undefined) this.#told.push(...intents);
    if (this.#register !== undefined) note(this.#register, intents);
    return this.wake();
  }

  /** A queue job: a runner in another process wrote the register, so it is read again. */
  wakeFromQueue(): Promise<DrainStats | undefined> {
    this.#register = undefined;
    return this.wake();
  }

  #noteSnapshots(intents: readonly OrderIntent[]): void {
    for (const i of intents)
      if (i.snapshotAtMs > this.#newestSnapshotAtMs) this.#newestSnapshotAtMs = i.snapshotAtMs;
  }

  /** The pending intents: the copy in memory, or the register read back (and kept). */
  async #pending(): Promise<OrderIntent[]> {
    if (this.#register !== undefined) return [...this.#register.values()];
    this.#told = [];
    try {
      const read = await this.ctx.deps.bus.pending(this.ctx.id);
      this.#noteSnapshots(read);
      const register = new Map<string, OrderIntent>();
      note(register, read);
      note(register, this.#told);
      this.#register = register;
      return [...register.values()];
    } finally {
      this.#told = undefined;
    }
  }

  /**
   * Drains for `atMs`: plan_ahead_ms before it, planned as of then, its calls made ready and held
   * until then (#send). Node's timers round to whole milliseconds and fire late; the last stretch
   * is waited out on the event loop, right before each call takes its nonce.
   */
  #wakeAt(atMs: number): void {
    this.#clearWake();
    if (this.#stopped || !Number.isFinite(atMs)) return;
    this.#wakeTimer = setTimeout(
      () => {
        this.#wakeTimer = undefined;
        if (this.#stopped) return;
        this.#planAheadMs = atMs;
        void this.wake();
        // The drain now holds collections off, and its calls until they leave at the due.
        endQuietWindow(this.#dueWindow);
      },
      Math.max(0, atMs - this.ctx.now() - this.ctx.deps.config.plan_ahead_ms),
    );
    this.#wakeDueMs = atMs;
    quietWindow(this.#dueWindow, atMs - this.ctx.now() - SCAVENGE_QUIET_MS, Infinity);
  }

  #clearWake(): void {
    clearTimeout(this.#wakeTimer);
    this.#wakeTimer = undefined;
    this.#wakeDueMs = undefined;
    endQuietWindow(this.#dueWindow);
  }

  /**
   * Starts the periodic full sync if it is due and the moment is quiet (sync-timing.ts): checked
   * when it comes due and after every step of the pair; a timer makes sure it waits no longer than the bound.
   */
  #syncIfQuiet(): void {
    const dueSinceMs = this.#syncDueSinceMs;
    if (dueSinceMs === undefined || this.#stopped) return;
    const nowMs = this.ctx.now();
    const start = syncStartsNow({
      nowMs,
      dueSinceMs,
      nextWakeMs: this.#wakeDueMs,
      newestSnapshotAtMs: this.#newestSnapshotAtMs,
    });
    if (!start) {
      if (this.#syncDeferTimer === undefined) {
        this.#syncDeferTimer = setTimeout(
          () => {
            this.#syncDeferTimer = undefined;
            this.#syncIfQuiet();
          },
          Math.max(0, dueSinceMs + SYNC_DEFER_MAX_MS - nowMs),
        );
        this.#syncDeferTimer.unref();
      }
      return;
    }
    this.#syncDueSinceMs = undefined;
    clearTimeout(this.#syncDeferTimer);
    this.#syncDeferTimer = undefined;
    void this.#serial(() => this.#syncNow('all')).then(() => this.wake());
  }

  /**
   * How long the step in progress (drain or sync) has run, ms; 0 when idle. A step that never
   * ends (a hang) stops the executor's liveness beats, and with them the dead-man heartbeats.
   */
  busyForMs(nowMs: number): number {
    return this.#stepStartedAtMs === undefined ? 0 : nowMs - this.#stepStartedAtMs;
  }

  #serial<T>(fn: () => Promise<T>): Promise<T | undefined> {
    const run = this.#chain.then(async () => {
      if (this.#stopped) return undefined;
      this.#stepStartedAtMs = this.ctx.now();
      try {
        return await fn();
      } catch (err) {
        if (err instanceof ExecutorError && err.code === 'EXECUTOR_LEASE_LOST') throw err;
        this.ctx.deps.log.error({ err: errorMessage(err) }, 'pair executor step failed');
        return undefined;
      } finally {
        this.#stepStartedAtMs = undefined;
        // A due periodic sync goes behind the step that found the moment quiet.
        this.#syncIfQuiet();
      }
    });
    this.#chain = run.catch(() => undefined);
    return run;
  }

  async #syncNow(scope: 'unknowns' | 'all'): Promise<void> {
    await this.#landed();
    this.ctx.assertHeld();
    if (scope === 'all') this.#register = undefined;
    const result = await this.#sync.run(scope);
    if (result.adopted > 0 || result.resolved > 0) {
      this.ctx.deps.log.info({ scope, ...result }, 'orders reconciled');
    }
    this.#armResolve();
    this.ctx.publishOrderGauges();
    await this.ctx.publishPosition();
  }

  /** A timer for the next record whose outcome can be resolved. */
  #armResolve(): void {
    clearTimeout(this.#resolveTimer);
    const due = this.#sync.dueAt();
    if (due === undefined || this.#stopped) return;
    this.#resolveTimer = setTimeout(
      () => {
        void this.#serial(() => this.#syncNow('unknowns')).then(() => this.wake());
      },
      Math.max(0, due - this.ctx.now()),
    );
    this.#resolveTimer.unref();
  }

  async #drain(): Promise<DrainStats> {
    const ctx = this.ctx;
    const { bus, ratecount, metrics, config, limits } = ctx.deps;
    const none: DrainStats = { sent: 0, deferred: 0, dropped: 0 };
    ctx.assertHeld();
    this.#clearWake();
    const pair = ctx.id;
    // A budget wake plans as of its due, a few ms off (plan_ahead_ms).
    const ahead = this.#planAheadMs;
    this.#planAheadMs = undefined;
    const clock = (): number => Math.max(ctx.now(), ahead ?? 0);
    let now = clock();
    if (now < ctx.pausedUntilMs) {
      this.#wakeAt(ctx.pausedUntilMs);
      return none;
    }
    if ((this.#sync.dueAt() ?? Infinity) <= now) await this.#syncNow('unknowns');

    // Kept in the order they were last set, so the ones set long ago are at the front: a drain
    // looks only at those, not at the minute of entries a chasing strategy leaves behind.
    for (const [k, credit] of this.#budgetDue) {
      if (credit.sinceMs >= now - BUDGET_CREDIT_MS) break;
      if (credit.dueAt < now - BUDGET_CREDIT_MS) this.#budgetDue.delete(k);
    }

    // Both from memory when this process has seen every write; else one round trip for both.
    const known = ratecount.estimate(pair, now);
    const fromMemory = this.#register !== undefined;
    const [pending, levelNow] = await Promise.all([
      this.#pending(),
      known ?? ratecount.level(pair, now),
    ]);
    if (pending.length === 0) return none;
    now = clock();
    const expired = pending.filter((i) => i.deadlineMs <= now);
    const fresh = pending.filter((i) => i.deadlineMs > now);
    // Retired in memory now, so the plan places their slots; written with the calls' records.
    const vanished = this.#vanished(fresh, now);
    ctx.remember(vanished);

    let level = levelNow;
    for (let attempt = 0; attempt < MAX_REPLANS; attempt++) {
      const plan = this.#plan(fresh, level, now);
      const limit = limits.max - config.headroom_points;
      const picked = picksOf(plan, expired);
      const picks = picked.map((i) => ({ slot: i.slot, generation: i.generation }));
      // Fast: this process knows the level (the lease holder is the pair's only writer, unless
      // another bot on the key spends its points too: sole()) and every intent in the register
      // (it saw each write), so the decision needs no reply: the points are charged and the
      // intents taken in Redis behind the calls, which go out once their lease is checked (the
      // gate in #send). Otherwise the reserve and the take are answered first, back to back on
      // one connection with the records' write and the nonces: one round trip before the first
      // call is signed. A call is then signed only if the reserve held and its intents were
      // taken (a newer publish replaced them, or another writer spent the points).
      const fast =
        known !== undefined && fromMemory && ratecount.sole(pair, now) && ctx.deps.fastPath();
      const decided: Promise<Decision> = fast
        ? Promise.resolve(this.#decideHere(plan.cost, level, now, picks, picked))
        : Promise.all([
            plan.cost === 0
              ? undefined
              : plan.cost > limit - level
                ? ratecount.add(pair, plan.cost, now)
                : ratecount.reserve(pair, plan.cost, limit, now),
            bus.takeSlots(pair, picks),
          ]).then(([reading, took]) => ({
            reading,
            took,
            taken: new Set(took.map(keyOf)),
          }));
      this.#calls.cancelled.clear();
      // Cancels, edits and independent adds first; adds that replace a cancelled order after it.
      const first = plan.calls.filter((c) => !OrderCalls.replaces(c));
      const then = plan.calls.filter((c) => OrderCalls.replaces(c));
      const launched = this.#send(first, decided, { fast, now, ahead, retired: vanished });
      const { reading, took, taken } = await decided;
      this.#tookFromRegister(picks, took);
      if (reading !== undefined && !reading.ok) {
        // Nothing of this plan goes out: its intents go back, and it is made again from the
        // level Redis reported once the calls stopped at their gates have put their records back.
        await bus.restore(pair, took);
        await Promise.all((await launched).answered);
        level = reading.level;
        continue;
      }
      if (reading !== undefined) metrics.ratecountLevel.set({ pair: ctx.label }, reading.level);
      const dropped = plan.dropped.filter((d) => d.reason !== 'busy');
      this.#busyWaiting = dropped.length < plan.dropped.length;
      const isTaken = (i: OrderIntent): boolean => taken.has(keyOf(i));
      for (const i of expired)
        if (isTaken(i)) metrics.intents.inc({ pair: ctx.label, outcome: 'expired' });
      for (const d of dropped)
        if (isTaken(d.intent)) metrics.intents.inc({ pair: ctx.label, outcome: d.reason });

      // First calls whose intents were not taken stop at their gate and give their points back
      // themselves; replacement adds whose intents were not taken are never prepared.
      const sendable = plan.calls.filter((c) => intentsOf(c).every(isTaken));
      const thenSendable = then.filter((c) => sendable.includes(c));
      const sent = await launched;
      let refund =
        sent.unsent + then.filter((c) => !sendable.includes(c)).reduce((sum, c) => sum + c.cost, 0);
      if (thenSendable.length > 0) {
        await Promise.all(sent.answered);
        refund += (await this.#send(thenSendable, decided, { fast, now: clock(), ahead })).unsent;
        await this.#giveBackOrphans(thenSendable);
      }
      if (refund > 0) await ctx.refund(refund);
      if (first.length === 0) await ctx.persist(vanished);
      const count = sendable.reduce((n, c) => n + intentsOf(c).length, 0);

      if (plan.retryInMs !== undefined) {
        const due = now + plan.retryInMs;
        for (const d of plan.deferred) {
          if (d.reason !== 'budget') continue;
          const key = keyOf(d.intent);
          this.#budgetDue.delete(key);
          this.#budgetDue.set(key, { dueAt: due, sinceMs: now });
        }
        this.#wakeAt(Math.max(due, ctx.pausedUntilMs));
      } else if (clock() < ctx.pausedUntilMs) this.#wakeAt(ctx.pausedUntilMs);
      // Points came back, or calls stopped because the register held newer intents than the plan
      // (a publish this process was not told of first): drain again, reading the register.
      else if (refund > 0 || sendable.length < plan.calls.length) void this.wake();
      this.#armResolve();
      ctx.publishOrderGauges();
      return { sent: count, deferred: plan.deferred.length, dropped: dropped.length };
    }
    this.#wakeAt(clock() + 100);
    return { sent: 0, deferred: fresh.length, dropped: 0 };
  }

  /**
   * Writes the calls' records (one tracker write for all of them), then hands the calls to the
   * lanes and returns once the records are written, without waiting for answers. Each call is
   * signed only once its records are written and `decided` says its plan holds; one stopped at
   * its gate gives its points back if they were reserved. Returns the points of calls never
   * prepared (nothing left to send: their replaced order's cancel failed; the lease is gone), and
   * the answers to come. Calls planned ahead of a budget due wait for it in their lanes, before
   * their nonce is taken; one that is no longer allowed then (a halt, cancel-only) is not sent.
   */
  async #send(
    calls: readonly PlannedCall[],
    decided: Promise<Decision>,
    how: {
      readonly fast: boolean;
      /** The drain's planning time (ahead of the clock when planned ahead). */
      readonly now: number;
      readonly ahead: number | undefined;
      readonly retired?: readonly TrackedOrder[];
    },
  ): Promise<{ unsent: number; answered: Promise<void>[] }> {
    const ctx = this.ctx;
    const { fast, now, ahead, retired = [] } = how;
    if (calls.length === 0) return { unsent: 0, answered: [] };
    if (!ctx.deps.lease.held()) {
      return { unsent: calls.reduce((sum, c) => sum + c.cost, 0), answered: [] };
    }
    const ready: ReadyCall[] = [];
    let unsent = 0;
    for (const call of calls) {
      const r = this.#calls.prepare(call);
      if (r === undefined) unsent += call.cost;
      else ready.push(r);
    }
    // The calls take their nonces right behind the records' write on the same connection and go
    // out once it has landed (CallOptions.gate): write-ahead without a round trip of its own. On
    // the fast path a write made by one script is handed to Redis's socket before the calls
    // leave, and not waited for: the lease, checked at the gate with a third of its TTL to spare,
    // is the fence then. The orders the drain retired as gone go in the same script. Records
    // that need the tracker's transaction (two for one userref) are waited for, so they are in
    // Redis before the calls go, as on the other path.
    const records = [...retired, ...ready.flatMap((r) => r.records)];
    const behind = fast && OrderTracker.journalsInOneScript(records);
    const journaled = ctx.journal(records, behind);
    const { metrics, log, lease } = ctx.deps;
    const due =
      ahead === undefined
        ? undefined
        : until(
            ahead,
            () => ctx.now(),
            () => ctx.deps.client.warm(),
          );
    const answered = ready.map((r) => {
      this.#wireWorkStarts();
      const gateOf = (): Promise<void> =>
        decided.then(
          async (d) => {
            const held = d.reading === undefined || d.reading.ok;
            if (behind) {
              if (!lease.held()) throw new NotSentError('its pair lease is no longer held', true);
            } else {
              try {
                await journaled;
              } catch (err) {
                throw new NotSentError('its records could not be written', held, err);
              }
            }
            if (!held) throw new NotSentError('its ratecount points were spent elsewhere', false);
            if (!intentsOf(r.call).every((i) => d.taken.has(keyOf(i)))) {
              throw new NotSentError('its intent was replaced', true);
            }
            // Built at the due for a call held until then: the mode may have changed meanwhile.
            if (due !== undefined && !isCancel(r.call) && cancelsOnly(ctx.mode())) {
              throw new NotSentError(`the pair turned ${ctx.mode()} before its due`, true);
            }
            metrics.ratecountPoints.inc({ pair: ctx.label, action: r.call.kind }, r.call.cost);
            for (const _ of intentsOf(r.call))
              metrics.intents.inc({ pair: ctx.label, outcome: 'sent' });
          },
          (err: unknown) => {
            // Redis failed the reserve or the take: whether the points were taken is not known, and
            // our model keeping them is the safe side.
            throw new NotSentError('its reserve could not be made', false, err);
          },
        );
      const send = (): Promise<void> => {
        const gate = gateOf();
        // The client awaits the gate only once it has its nonce; a gate shut before then is not
        // an unhandled rejection.
        gate.catch(() => undefined);
        return r.send(start, gate);
      };
      const start = this.#startOf(intentsOf(r.call), now);
      const launchedAtMs = ctx.now();
      const flight: Promise<void> = this.#lanes(() => (due === undefined ? send() : due.then(send)))
        .catch((err: unknown) => {
          log.error(
            { call: r.call.kind, err: errorMessage(err) },
            'recording an order-entry outcome failed',
          );
        })
        .finally(() => {
          this.#flying.delete(flight);
          // Intents left waiting for a busy slot, or for the points a refused call gave back, may
          // go now; otherwise nothing changed to drain.
          if (this.#busyWaiting || ctx.budgetFreedAtMs >= launchedAtMs) void this.wake();
          this.#wireWorkEnds();
        });
      this.#flying.add(flight);
      return flight;
    });
    // Records that could not be written stopped every call at its gate.
    try {
      await journaled;
    } catch (err) {
      log.error({ err: errorMessage(err) }, 'write-ahead failed');
    }
    return { unsent, answered };
  }

  /**
   * The fast path's decision: the points are charged to the level this process knows and the
   * intents taken from the register it holds, in Redis behind the calls. Should Redis not take
   * every intent (a publish this process was not told of), the copy is read again at the next
   * drain; the calls already out were for the newest intents this process had seen.
   */
  #decideHere(
    cost: number,
    level: number,
    now: number,
    picks: readonly SlotPick[],
    picked: readonly OrderIntent[],
  ): Decision {
    const ctx = this.ctx;
    const { ratecount, bus, log, metrics, afterHold } = ctx.deps;
    // The charge, the take and the records are issued once the calls' requests are written, and
    // leave in one write.
    ctx.deps.holdWrites();
    if (cost > 0) {
      ratecount
        .add(ctx.id, cost, now, afterHold)
        .then((r) => metrics.ratecountLevel.set({ pair: ctx.label }, r.level))
        .catch((err: unknown) => {
          log.error({ err: errorMessage(err), points: cost }, 'ratecount charge not written');
        });
    }
    afterHold(() => bus.takeSlots(ctx.id, picks)).then(
      (took) => {
        if (took.length === picks.length) return;
        this.#register = undefined;
        log.warn(
          { expected: picks.length, took: took.length },
          'the register held intents this process was not told of; reading it again',
        );
      },
      (err: unknown) => {
        this.#register = undefined;
        log.error({ err: errorMessage(err) }, 'taking sent intents from the register failed');
      },
    );
    return {
      reading: cost === 0 ? undefined : { ok: true, level: level + cost, waitMs: 0 },
      took: picked,
      taken: new Set(picked.map(keyOf)),
    };
  }

  /**
   * Where the tick-to-wire of a call's intents counts from, when not from their snapshots: the
   * answer that gave one back to go again (its order was gone), else the latest budget credit.
   */
  #startOf(intents: readonly OrderIntent[], now: number): WireStart {
    let retry = 0;
    for (const i of intents) retry = Math.max(retry, this.ctx.takeRetry(i) ?? 0);
    if (retry > 0) return { atMs: retry, from: 'retry' };
    return { atMs: Math.max(0, ...intents.map((i) => this.#creditOf(i, now))), from: 'budget' };
  }

  /**
   * When the budget became available for an intent that waited for it: its due time, or the
   * moment it came free ahead of that: points given back; its slot emptied, which makes its amend
   * a cheaper place; or a newer snapshot of the pair, whose intents reordered the plan (the due
   * was the first waiting quote's, and the farthest goes first) so that this one fits now. That
   * last case is also the runner's: a quote it still wants, unchanged, is not published again
   * (republish_after_ms), so the newer snapshot asked for this intent too. 0 when it never waited.
   */
  #creditOf(intent: OrderIntent, now: number): number {
    const credit = this.#budgetDue.get(keyOf(intent));
    if (credit === undefined) return 0;
    if (credit.dueAt <= now) return credit.dueAt;
    const freed = Math.max(
      this.ctx.budgetFreedAtMs,
      this.ctx.slotFreedAtMs.get(intent.slot) ?? 0,
      this.#newestSnapshotAtMs,
    );
    return freed > credit.sinceMs ? freed : 0;
  }

  /**
   * Adds that were to replace an order whose cancel has an unknown outcome (no answer) were not
   * sent; their intents go back to the register, to be acted on once a query has settled the old
   * order (its slot is busy until then). A cancel the exchange refused keeps its order, and the
   * runner decides again from the next snapshot; one that found the order gone counts as done.
   */
  async #giveBackOrphans(calls: readonly PlannedCall[]): Promise<void> {
    const orphans = calls
      .flatMap((c) =>
        c.kind === 'AddOrder' ? [c.item] : c.kind === 'AddOrderBatch' ? c.items : [],
      )
      .filter(
        (i) =>
          i.replacing !== undefined &&
          !this.#calls.cancelled.has(i.replacing.userref) &&
          this.ctx.orders.get(i.replacing.userref)?.state === 'unknown',
      )
      .map((i) => i.intent);
    if (orphans.length > 0) await this.ctx.deps.bus.restore(this.ctx.id, orphans);
  }

  /**
   * Orders the runner's view says have left the book. Its Depth, asked for well after we saw the
   * slot's order open, showed no level at the order's price though the price lies within the
   * levels it showed (`depthSeen`); or, for a place, its OpenOrders call, made well after we saw
   * the order open, did not list it (`ordersAsOfMs`). Retired as gone, so the slot is placed at
   * once rather than amended into "Unknown order"; what the order executed is settled by the next
   * full sync (ClosedOrders). Only orders we placed: their open time is our own clock's.
   */
  #vanished(intents: readonly OrderIntent[], now: number): TrackedOrder[] {
    const margin = this.ctx.deps.config.vanished_margin_ms;
    if (margin === 0) return [];
    const out: TrackedOrder[] = [];
    for (const i of intents) {
      if (i.action === 'cancel') continue;
      const o = this.ctx.slotOrder(i.slot);
      if (
        o === undefined ||
        o.origin !== 'placed' ||
        o.pendingCall !== null ||
        (o.state !== 'open' && o.state !== 'partially-filled') ||
        o.openedAtMs <= 0
      ) {
        continue;
      }
      const seenAfter = (asOfMs: number | undefined): boolean =>
        asOfMs !== undefined && o.openedAtMs + margin <= asOfMs;
      const unlisted = i.action === 'place' && seenAfter(i.ordersAsOfMs);
      const seen = i.depthSeen;
      const levelGone =
        seen !== undefined &&
        seenAfter(seen.asOfMs) &&
        missingFromDepth(seen.prices, o.price, o.side);
      if (!unlisted && !levelGone) continue;
      out.push(retiredAsGone(o, now));
    }
    if (out.length > 0) {
      this.ctx.deps.log.info(
        { txids: out.map((o) => o.txid) },
        'orders the runner found gone from the book retired',
      );
    }
    return out;
  }

  /** Removes what a take took from the copy; a pick it did not find means the copy is off. */
  #tookFromRegister(picks: readonly SlotPick[], took: readonly OrderIntent[]): void {
    const register = this.#register;
    if (register === undefined) return;
    if (took.length < picks.length) {
      this.#register = undefined;
      return;
    }
    for (const t of took)
      if (register.get(t.slot)?.generation === t.generation) register.delete(t.slot);
  }

  #plan(intents: readonly OrderIntent[], level: number, now: number): Plan {
    const ctx = this.ctx;
    const { config, limits } = ctx.deps;
    return planCalls({
      nowMs: now,
      limits,
      level,
      headroom: config.headroom_points,
      openOrders: ctx.openCount(),
      mode: ctx.mode(),
      batch: { addMin: config.add_batch_min_orders, addMax: 15, cancelMax: 50 },
      work: intents.map((intent) => ({ intent, live: ctx.slotOrder(intent.slot) })),
    });
  }
}

/** What a drain takes from the register: all but what waits (budget, open orders, busy slots). */
function picksOf(plan: Plan, expired: readonly OrderIntent[]): OrderIntent[] {
  return [
    ...expired,
    ...plan.dropped.filter((d) => d.reason !== 'busy').map((d) => d.intent),
    ...plan.calls.flatMap((c) => intentsOf(c)),
  ];
}

/** Keeps the newest generation of each slot. */
function note(register: Map<string, OrderIntent>, intents: readonly OrderIntent[]): void {
  for (const i of intents) {
    const held = register.get(i.slot);
    if (held === undefined || held.generation < i.generation) register.set(i.slot, i);
  }
}

/** What the round trip before the wire said (or the fast path knew): reading, intents taken. */
interface Decision {
  readonly reading: RatecountReading | undefined;
  readonly took: readonly OrderIntent[];
  readonly taken: ReadonlySet<string>;
}

function isCancel(call: PlannedCall): boolean {
  return call.kind === 'CancelOrder' || call.kind === 'CancelOrderBatch';
}

function intentsOf(call: PlannedCall): OrderIntent[] {
  switch (call.kind) {
    case 'CancelOrder':
    case 'EditOrder':
    case 'AddOrder':
      return [call.item.intent];
    case 'CancelOrderBatch':
    case 'AddOrderBatch':
      return call.items.map((i) => i.intent);
  }
}
