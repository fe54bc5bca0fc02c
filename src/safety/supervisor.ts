import type { HaltState, Role } from '../bus/index.js';
import {
  errorMessage,
  silentLog,
  sleepToNext,
  systemClock,
  within,
  type Clock,
  type Log,
} from '../core/index.js';
import type {
  ApiResponse,
  CallOptions,
  MaintenanceEvent,
  SystemStatusResult,
} from '../exchange/index.js';
import { checkSupervisorConfig, type SupervisorConfig } from './config.js';
import { DeadManSwitch, type DeadManClient } from './dead-man.js';
import type { HaltCause, SupervisorMetrics } from './metrics.js';
import { OrderEntryWatch, type OrderEntrySource } from './order-entry-watch.js';
import { RiskGuard, type Breach, type PairRisk } from './risk.js';
import { decidePosture, nextStepsOf, windowOf, type Posture } from './status-policy.js';

/** The halt flag and liveness beats (ControlFlags in Redis; any process may set the flag). */
export interface HaltFlag {
  current(): HaltState;
  read(): Promise<HaltState>;
  halt(reason: string, by: string, nowMs: number): Promise<boolean>;
  /** Clears the flag; the halt it cleared (`halted: false`: none). */
  resume(): Promise<HaltState>;
  alive(role: Role): Promise<number | undefined>;
  /** Publishes the supervisor's status for other processes (`makerd status`). */
  report?(role: string, status: object, ttlMs: number): Promise<void>;
  /** Tells the executors a CancelAll was confirmed, so they read their orders at once. */
  cancelledAll?(atMs: number): Promise<void>;
}

export interface SupervisorClient extends DeadManClient {
  systemStatus(o?: CallOptions): Promise<ApiResponse<SystemStatusResult>>;
  maintenanceSchedule(o?: CallOptions): Promise<ApiResponse<{ events: MaintenanceEvent[] }>>;
  cancelAll(o?: CallOptions): Promise<ApiResponse<{ count: number }>>;
}

/**
 * The intent queues (BullMQ, one per pair): paused while halted, so no executor anywhere is woken
 * by a queued intent, and resumed with the flag.
 */
export interface IntentQueues {
  pause(): Promise<void>;
  resume(): Promise<void>;
}

/** Positions, our orders and prices for the risk limits (the tracker and Ticker, in src/cli). */
export interface RiskSource {
  read(): Promise<PairRisk[]>;
}

export interface SupervisorOptions {
  readonly client: SupervisorClient;
  readonly flags: HaltFlag;
  readonly config: SupervisorConfig;
  readonly clock?: Clock;
  readonly log?: Log;
  readonly metrics?: SupervisorMetrics;
  /**
   * Set the halt flag when stopping: for a supervisor in a process of its own, whose runner and
   * executor run on elsewhere and must not quote without a dead-man switch.
   */
  readonly haltOnStop?: boolean;
  /** Without one, the risk limits are not checked (and status says so). */
  readonly risk?: RiskSource;
  readonly queues?: IntentQueues;
  /** The key's REST counter as this process models it, for status. */
  readonly restBudget?: () => { readonly level: number; readonly max: number };
  /** Told of every halt and resume the supervisor decides itself (the audit trail). */
  readonly onAction?: (action: SupervisorAction) => void;
  /** The executors' order-entry reports; without it, failing order entry never halts. */
  readonly orderEntry?: OrderEntrySource;
}

/** A halt or resume the supervisor decided itself: an emergency, maintenance, risk, stopping. */
export interface SupervisorAction {
  readonly action: 'halt' | 'resume';
  readonly reason: string;
  /** False: the flag was left as it was (already halted, or nothing to resume). */
  readonly changed: boolean;
  /** The flag before: for a halt that changed nothing, the halt in force. */
  readonly before: HaltState;
}

export interface SupervisorStatus {
  readonly exchange: SystemStatusResult['status'] | 'unknown';
  readonly posture: Posture['kind'];
  readonly postureReason: string | undefined;
  readonly halt: HaltState;
  readonly deadMan: {
    readonly triggerAtMs: number | undefined;
    readonly lastAckMs: number | undefined;
  };
  readonly rolesAlive: Readonly<Record<string, boolean>>;
  /** The last risk limit breached, if any; `unchecked` without a risk source. */
  readonly risk: Breach | 'ok' | 'unchecked';
  /** The key's REST counter (level of max) as this process models it. */
  readonly rest: { readonly level: number; readonly max: number } | undefined;
  /** The earliest announced maintenance window not over yet. */
  readonly nextMaintenance:
    { readonly title: string; readonly startMs: number; readonly endMs: number } | undefined;
}

export interface StopReport {
  /** Orders CancelAll reported cancelled; undefined when not asked or it failed. */
  readonly cancelled: number | undefined;
  readonly disarmed: boolean;
}

const BY = 'supervisor';
const CANCEL_ATTEMPTS = 3;
const CANCEL_RETRY_MS = 500;
/**
 * While the timer has never been armed, or the last heartbeat was skipped for a role not alive,
 * heartbeats are retried this often: the timer is refreshed within this of the roles' first fresh
 * beat (after a Redis stall, say), not a whole interval later, when it may have fired.
 */
const RETRY_MS = 1_000;

/**
 * The safety supervisor (DESIGN.md §3.8): keeps the CancelAllOrdersAfter timer armed while the
 * runner and executor prove they are alive, watches SystemStatus and the maintenance schedule,
 * and turns every halt (an emergency, a maintenance window, an operator's `makerd halt`) into the
 * halt flag plus CancelAll. Halts stop quoting because every role obeys the flag; CancelAll takes
 * what is on the book off at once, even when the executor is hung.
 */
export class Supervisor {
  readonly #o: SupervisorOptions;
  readonly #clock: Clock;
  readonly #log: Log;
  readonly #deadMan: DeadManSwitch;
  readonly #abort = new AbortController();
  #loops: Promise<void>[] = [];
  #status: SystemStatusResult | undefined;
  /** Maintenance events seen, kept until they end (SystemStatus drops one once it starts). */
  readonly #events = new Map<number, MaintenanceEvent>();
  #scheduleDueMs = 0;
  #posture: Posture = { kind: 'normal' };
  /** The maintenance window being sat out: its reason and end. */
  #hold: { readonly eventId: number; readonly reason: string; readonly endMs: number } | undefined;
  /** The reason of the emergency we halted for, while it lasts. */
  #emergency: string | undefined;
  /** The halt (flag state) whose orders were cancelled already. */
  #swept: string | undefined;
  /** Cancels the sweep waiting on the clock: stop(), or a newer halt's sweep replacing it. */
  #sweep: AbortController | undefined;
  readonly #alive = new Map<Role, boolean>();
  /** Whether the last heartbeat was skipped for a role not alive. */
  #skipped = false;
  /** Whether the queues were last paused (undefined: not touched yet). */
  #queuesPaused: boolean | undefined;
  #stopped = false;
  /**
   * Steps run one at a time: a heartbeat read before a maintenance hold began must not re-arm the
   * timer the hold has just disarmed.
   */
  #chain: Promise<unknown> = Promise.resolve();
  readonly #guard: RiskGuard;
  #breach: Breach | undefined;
  /** When the risk inputs were last read; unreadable for stale_after_s counts as stale data. */
  #riskReadAtMs: number | undefined;
  readonly #orderEntry: OrderEntryWatch;
  /** The status last written by #report (its JSON, without the time and REST level) and when. */
  #reported: { readonly json: string; readonly atMs: number } | undefined;

  constructor(options: SupervisorOptions) {
    checkSupervisorConfig(options.config);
    this.#o = options;
    this.#clock = options.clock ?? systemClock;
    this.#log = options.log ?? silentLog;
    this.#guard = new RiskGuard(options.config.risk);
    this.#orderEntry = new OrderEntryWatch(options.config.order_entry.halt_after_s);
    this.#deadMan = new DeadManSwitch({
      client: options.client,
      timeoutS: options.config.heartbeat.timeout_s,
      clock: this.#clock,
      log: this.#log,
      metrics: options.metrics,
      // The timer's firing is a CancelAll by the exchange: the executors charge and sync as for ours.
      onFired: (atMs) => void this.#tellCancelledAll(atMs),
    });
  }

  get deadMan(): DeadManSwitch {
    return this.#deadMan;
  }

  /** Reads the flag and the exchange's status, arms the timer if the roles are alive, then loops. */
  async start(): Promise<void> {
    await this.#o.flags.read();
    await this.checkStatus();
    await this.heartbeat();
    const { config } = this.#o;
    this.#loops = [
      this.#every(
        () => config.status.interval_ms,
        () => this.checkStatus(),
      ),
      this.#every(
        () =>
          (this.#deadMan.lastAckMs === undefined || this.#skipped) && this.#hold === undefined
            ? RETRY_MS
            : config.heartbeat.interval_s * 1000,
        () => this.heartbeat(),
      ),
    ];
    if (this.#o.risk !== undefined) {
      this.#riskReadAtMs = this.#clock.now();
      await this.checkRisk();
      this.#loops.push(
        this.#every(
          () => config.risk.interval_ms,
          () => this.checkRisk(),
        ),
      );
    }
  }

  /**
   * Stops the loops; then, within shutdown.timeout_ms, halts (haltOnStop), cancels every order of
   * the key (`cancel`, default shutdown.cancel_orders) and disarms the timer, in that order: the
   * timer stays armed until the orders are gone.
   */
  async stop(options: { cancel?: boolean } = {}): Promise<StopReport> {
    if (this.#stopped) return { cancelled: undefined, disarmed: false };
    this.#stopped = true;
    this.#abort.abort(new Error('supervisor stopped'));
    this.#sweep?.abort();
    this.#deadMan.stop();
    await Promise.all(this.#loops);
    await this.#chain;
    const { config } = this.#o;
    const cancel = options.cancel ?? config.shutdown.cancel_orders;
    // Past the bound the work goes on unwatched: its retries must not keep the process alive.
    const late = new AbortController();
    const work = (async (): Promise<StopReport> => {
      if (this.#o.haltOnStop === true) {
        await this.#setHalt('supervisor stopped: no dead-man switch').catch((err: unknown) =>
          this.#log.error({ err: errorMessage(err) }, 'halt on stop failed'),
        );
      }
      const cancelled = cancel ? await this.#cancelAll(late.signal) : undefined;
      const disarmed = await this.#deadMan.disarm();
      return { cancelled, disarmed };
    })();
    const outcome = await within(this.#clock, work, config.shutdown.timeout_ms);
    if (outcome.done) return outcome.value;
    late.abort();
    this.#log.error(
      { timeoutMs: config.shutdown.timeout_ms },
      'supervisor shutdown timed out: orders may be left, the dead-man timer may still be armed',
    );
    return { cancelled: undefined, disarmed: false };
  }

  /** One status round: SystemStatus (and the schedule when due), then what it asks for. */
  checkStatus(): Promise<void> {
    return this.#serial(() => this.#checkStatus());
  }

  /** One heartbeat: refreshes the timer only while every watched role proves it is alive. */
  heartbeat(): Promise<void> {
    return this.#serial(() => this.#heartbeat());
  }

  /**
   * An operator's halt (admin endpoint): the flag, then every order cancelled, once. False: it was
   * halted already (the first reason stays; flags.current() holds it).
   */
  halt(reason: string, by: string): Promise<boolean> {
    return this.#serial(async () => {
      const set = await this.#o.flags.halt(reason, by, Math.floor(this.#clock.now()));
      await this.#enforceHalt();
      return set;
    });
  }

  /** One risk round: reads positions, orders and prices; a breach halts with its reason. */
  checkRisk(): Promise<void> {
    return this.#serial(() => this.#checkRisk());
  }

  async #checkRisk(): Promise<void> {
    const source = this.#o.risk;
    if (source === undefined || this.#stopped) return;
    const now = this.#clock.now();
    let breach: Breach | undefined;
    try {
      const inputs = await source.read();
      breach = this.#guard.check(inputs, now);
      this.#riskReadAtMs = now;
      this.#o.metrics?.observeRisk(this.#guard.reading(inputs));
    } catch (err) {
      this.#log.warn({ err: errorMessage(err) }, 'reading the risk inputs failed');
      const unreadableMs = now - (this.#riskReadAtMs ?? now);
      if (unreadableMs <= this.#o.config.risk.stale_after_s * 1000) return;
      breach = {
        limit: 'stale_after_s',
        pair: undefined,
        reason: `risk inputs unreadable for ${(unreadableMs / 1000).toFixed(1)} s`,
      };
    }
    if (breach === undefined) {
      this.#breach = undefined;
      return;
    }
    const first = this.#breach?.reason !== breach.reason || !this.#o.flags.current().halted;
    this.#breach = breach;
    if (!first) return;
    this.#o.metrics?.riskBreaches.inc({ limit: breach.limit });
    this.#log.error(
      { limit: breach.limit, pair: breach.pair, reason: breach.reason },
      'risk limit breached: halting and cancelling every order',
    );
    await this.#haltFor(`risk: ${breach.reason}`, 'risk');
  }

  #serial<T = void>(step: () => Promise<T>): Promise<T> {
    const run = this.#chain.then(step).finally(() => this.#report());
    this.#chain = run.catch(() => undefined);
    return run;
  }

  async #checkStatus(): Promise<void> {
    const { client, config, metrics } = this.#o;
    try {
      this.#status = (await client.systemStatus()).result;
      for (const e of this.#status.upcoming_maintenance ?? []) this.#events.set(e.event_id, e);
    } catch (err) {
      this.#log.warn({ err: errorMessage(err) }, 'SystemStatus poll failed');
    }
    const now = this.#clock.now();
    if (now >= this.#scheduleDueMs) {
      try {
        const { events } = (await client.maintenanceSchedule()).result;
        for (const e of events) this.#events.set(e.event_id, e);
        this.#scheduleDueMs = now + config.status.schedule_interval_ms;
      } catch (err) {
        this.#log.warn({ err: errorMessage(err) }, 'MaintenanceSchedule poll failed');
      }
    }
    for (const [id, e] of this.#events) {
      if ((windowOf(e, 0)?.endMs ?? 0) <= now) this.#events.delete(id);
    }
    if (metrics !== undefined && this.#status !== undefined) {
      for (const s of ['online', 'maintenance', 'cancel_only', 'post_only'] as const) {
        metrics.exchangeStatus.set({ status: s }, this.#status.status === s ? 1 : 0);
      }
    }
    this.#posture = decidePosture({
      status: this.#status,
      maintenance: [...this.#events.values()],
      nowMs: now,
      haltOnServices: config.status.halt_on_services,
      leadMs: config.maintenance.lead_s * 1000,
    });
    await this.#follow(this.#posture);
    await this.#enforceHalt();
    await this.#checkOrderEntry();
  }

  /** Halts when an executor's order entry has been failing for order_entry.halt_after_s. */
  async #checkOrderEntry(): Promise<void> {
    const source = this.#o.orderEntry;
    if (source === undefined || this.#stopped) return;
    let reports: Awaited<ReturnType<OrderEntrySource>>;
    try {
      reports = await source();
    } catch (err) {
      this.#log.warn({ err: errorMessage(err) }, 'reading the order-entry reports failed');
      return;
    }
    const now = this.#clock.now();
    const due = this.#orderEntry.due(reports, this.#o.flags.current().halted, now);
    if (due.length === 0) return;
    this.#log.error(
      {
        pairs: due.map((r) => ({
          pair: r.pair,
          failingForMs: Math.round(now - r.sinceMs),
          roundTripP99Ms: r.roundTripP99Ms,
          deadlineMs: r.deadlineMs,
        })),
      },
      'order entry failing: halting and cancelling every order',
    );
    await this.#haltFor('order entry failing', 'order_entry');
  }

  async #heartbeat(): Promise<void> {
    if (this.#hold !== undefined || this.#stopped) return;
    const { flags, config, metrics } = this.#o;
    const { roles } = config.heartbeat;
    // Every role's beat in one round trip: while a role is not alive this runs each RETRY_MS.
    const beats = await Promise.all(
      roles.map((role) =>
        flags.alive(role).catch((err: unknown) => {
          this.#log.warn({ role, err: errorMessage(err) }, 'reading a liveness beat failed');
          return undefined;
        }),
      ),
    );
    // Aged when read, not when the round began: a read that waited out a Redis stall must not
    // pass a beat from before the stall as fresh.
    const readAtMs = this.#clock.now();
    let allAlive = true;
    for (const [i, role] of roles.entries()) {
      const at = beats[i];
      const ageMs = at === undefined ? undefined : readAtMs - at;
      const alive = ageMs !== undefined && ageMs <= config.heartbeat.liveness_max_age_ms;
      metrics?.roleAlive.set({ role }, alive ? 1 : 0);
      allAlive &&= alive;
      const was = this.#alive.get(role);
      this.#alive.set(role, alive);
      if (was === true && !alive) {
        this.#log.error(
          { role, lastBeatAgeMs: ageMs },
          'role not alive: heartbeats stop, the exchange cancels every order at the trigger time',
        );
      } else if (was === false && alive) {
        this.#log.info({ role }, 'role alive again: heartbeats resume');
      }
    }
    this.#skipped = !allAlive;
    if (this.#skipped) {
      metrics?.heartbeats.inc({ outcome: 'skipped' });
      return;
    }
    await this.#deadMan.refresh();
  }

  status(): SupervisorStatus {
    const posture = this.#posture;
    return {
      exchange: this.#status?.status ?? 'unknown',
      posture: posture.kind,
      postureReason: posture.kind === 'normal' ? undefined : posture.reason,
      halt: this.#o.flags.current(),
      deadMan: { triggerAtMs: this.#deadMan.triggerAtMs, lastAckMs: this.#deadMan.lastAckMs },
      rolesAlive: Object.fromEntries(this.#alive),
      risk: this.#o.risk === undefined ? 'unchecked' : (this.#breach ?? 'ok'),
      rest: this.#o.restBudget?.(),
      nextMaintenance: this.#nextMaintenance(),
    };
  }

  #nextMaintenance(): SupervisorStatus['nextMaintenance'] {
    let next: SupervisorStatus['nextMaintenance'];
    for (const e of this.#events.values()) {
      const w = windowOf(e, 0);
      if (w !== undefined && (next === undefined || w.startMs < next.startMs)) {
        next = { title: e.title, startMs: w.startMs, endMs: w.endMs };
      }
    }
    return next;
  }

  /**
   * After every step: what `makerd status` shows, living a few status intervals. Written when it
   * changed, else once a status interval: the risk round and the heartbeat retries each wrote the
   * same report again, most of the supervisor's Redis writes while nothing happens. The REST
   * level, which decays every moment after a call, is not a change: it goes with the next write.
   */
  #report(): void {
    const { flags, config } = this.#o;
    if (flags.report === undefined) return;
    const now = this.#clock.now();
    const status = this.status();
    const json = JSON.stringify({ ...status, rest: undefined });
    const last = this.#reported;
    if (last?.json === json && now - last.atMs < config.status.interval_ms) return;
    const sent = { json, atMs: now };
    this.#reported = sent;
    const ttlMs = Math.max(3 * config.status.interval_ms, 10_000);
    void flags.report('supervisor', { ...status, atMs: now }, ttlMs).catch((err: unknown) => {
      // Not written: the next step writes it whatever it says.
      if (this.#reported === sent) this.#reported = undefined;
      this.#log.warn({ err: errorMessage(err) }, 'reporting the supervisor status failed');
    });
  }

  async #follow(posture: Posture): Promise<void> {
    const { metrics, config } = this.#o;
    metrics?.emergency.set(posture.kind === 'emergency' ? 1 : 0);
    if (posture.kind === 'emergency') {
      if (this.#emergency !== posture.reason) {
        this.#emergency = posture.reason;
        const e = posture.event;
        this.#log.error(
          {
            title: e.title,
            eventId: e.event_id,
            incidentStatus: e.incident_status,
            impact: e.impact,
            affectedServices: e.affected_services,
            nextSteps: nextStepsOf(e),
            sourceUrl: e.source_url,
          },
          'exchange emergency: halting and cancelling every order',
        );
        await this.#haltFor(posture.reason, 'emergency');
      }
    } else if (this.#emergency !== undefined) {
      const reason = this.#emergency;
      this.#emergency = undefined;
      if (config.resume === 'auto') await this.#resumeIf(reason, 'exchange emergency over');
      else {
        this.#log.warn(
          { reason },
          'exchange emergency over: makerd stays halted until an operator resumes (makerd resume)',
        );
      }
    }

    if (posture.kind === 'maintenance') {
      if (this.#hold?.eventId !== posture.event.event_id) {
        this.#hold = {
          eventId: posture.event.event_id,
          reason: posture.reason,
          endMs: posture.endMs,
        };
        this.#log.warn(
          {
            title: posture.event.title,
            eventId: posture.event.event_id,
            start: posture.event.expected_start_utc,
            end: posture.event.expected_end_utc,
            cancelAt: new Date(posture.cancelAtMs).toISOString(),
          },
          'scheduled maintenance ahead: cancelling every order and disarming the dead-man timer',
        );
        await this.#haltFor(posture.reason, 'maintenance');
        await this.#deadMan.disarm();
      }
    } else if (this.#hold !== undefined && this.#status?.status === 'online') {
      // The window has passed (or the event was withdrawn) and the exchange trades again.
      const hold = this.#hold;
      this.#hold = undefined;
      await this.#resumeIf(hold.reason, 'maintenance over');
      await this.#heartbeat();
    }
  }

  /** Sets the flag (keeping an earlier halt's reason) and takes every order off now. */
  async #haltFor(reason: string, cause: HaltCause): Promise<void> {
    const { flags, metrics } = this.#o;
    try {
      await this.#setHalt(reason);
    } catch (err) {
      // Cancelling matters more than the flag: go on, and say so.
      this.#log.error({ err: errorMessage(err), reason }, 'setting the halt flag failed');
    }
    metrics?.halts.inc({ cause });
    this.#swept = sweepKey(flags.current());
    await this.#cancelAllAndSweep();
    await this.#followQueues(true);
  }

  /** The supervisor's own halt of the flag, told to onAction. */
  async #setHalt(reason: string): Promise<void> {
    const { flags } = this.#o;
    const changed = await flags.halt(reason, BY, Math.floor(this.#clock.now()));
    const before = changed ? { halted: false } : flags.current();
    this.#o.onAction?.({ action: 'halt', reason, changed, before });
  }

  /** A halt set elsewhere (an operator's `makerd halt`) gets its orders cancelled here, once. */
  async #enforceHalt(): Promise<void> {
    const state = this.#o.flags.current();
    this.#o.metrics?.halted.set(state.halted ? 1 : 0);
    await this.#followQueues(state.halted);
    if (!state.halted) {
      this.#swept = undefined;
      return;
    }
    const key = sweepKey(state);
    if (key === this.#swept) return;
    this.#swept = key;
    if (state.by !== BY) this.#o.metrics?.halts.inc({ cause: 'operator' });
    this.#log.warn(
      { reason: state.reason, by: state.by },
      'halt flag set: cancelling every order of the key',
    );
    await this.#cancelAllAndSweep();
  }

  async #followQueues(halted: boolean): Promise<void> {
    const queues = this.#o.queues;
    if (queues === undefined || this.#queuesPaused === halted) return;
    try {
      await (halted ? queues.pause() : queues.resume());
      this.#queuesPaused = halted;
      this.#log.info({ paused: halted }, halted ? 'intent queues paused' : 'intent queues resumed');
    } catch (err) {
      this.#log.error({ err: errorMessage(err) }, 'pausing or resuming the intent queues failed');
    }
  }

  async #resumeIf(reason: string, why: string): Promise<void> {
    const state = this.#o.flags.current();
    if (!state.halted || state.by !== BY || state.reason !== reason) {
      if (state.halted) {
        this.#log.warn(
          { why, haltReason: state.reason, by: state.by },
          'not resuming: the halt in force is not the one the supervisor set',
        );
      }
      return;
    }
    const before = await this.#o.flags.resume();
    this.#o.onAction?.({ action: 'resume', reason: why, changed: before.halted, before });
    this.#swept = undefined;
    await this.#followQueues(false);
    this.#log.info({ why, reason }, 'resumed');
  }

  async #cancelAllAndSweep(): Promise<void> {
    await this.#cancelAll();
    const sweepMs = this.#o.config.halt_sweep_ms;
    if (sweepMs === 0 || this.#stopped) return;
    // One sweep at a time: a newer halt's replaces a waiting one, and stop() ends it.
    this.#sweep?.abort();
    const sweep = new AbortController();
    this.#sweep = sweep;
    this.#clock.sleep(sweepMs, sweep.signal).then(
      () => {
        if (this.#o.flags.current().halted) void this.#cancelAll(sweep.signal);
      },
      () => undefined,
    );
  }

  /**
   * CancelAll, retried: it is safe to repeat and a halt depends on it. An aborted `signal` ends
   * the retries (the sweep on stop(), the shutdown past its bound).
   */
  async #cancelAll(signal?: AbortSignal): Promise<number | undefined> {
    const { client, metrics } = this.#o;
    for (let attempt = 1; attempt <= CANCEL_ATTEMPTS; attempt++) {
      try {
        const { result } = await client.cancelAll({ priority: 'high' });
        metrics?.cancelAlls.inc({ outcome: 'ok' });
        this.#log.info({ count: result.count }, 'CancelAll done');
        // Without the word the tracker, /status and the page listed the cancelled orders until
        // the executors' next sync, seconds later. Each word costs every executor a sync (3 REST
        // points for two pairs; the starter tier gives one back every 3 s): a CancelAll that found
        // nothing (a halt's sweep, mostly) has nothing for them to read.
        if (result.count > 0) await this.#tellCancelledAll(Math.floor(this.#clock.now()));
        return result.count;
      } catch (err) {
        metrics?.cancelAlls.inc({ outcome: 'failed' });
        this.#log.error({ err: errorMessage(err), attempt }, 'CancelAll failed');
      }
      if (attempt === CANCEL_ATTEMPTS) break;
      const retry = await this.#clock.sleep(CANCEL_RETRY_MS, signal).then(
        () => true,
        () => false,
      );
      if (!retry) break;
    }
    return undefined;
  }

  /** Tells the executors every order of the key was cancelled at `atMs`: they read theirs now. */
  async #tellCancelledAll(atMs: number): Promise<void> {
    await this.#o.flags
      .cancelledAll?.(atMs)
      .catch((err: unknown) =>
        this.#log.warn({ err: errorMessage(err) }, 'telling the executors of the CancelAll failed'),
      );
  }

  /**
   * Runs `step` every `intervalMs()` (on the grid of sleepToNext, with the process's other loops)
   * until stop(); a failing step is logged.
   */
  #every(intervalMs: () => number, step: () => Promise<void>): Promise<void> {
    const signal = this.#abort.signal;
    return (async () => {
      while (!signal.aborted) {
        try {
          await sleepToNext(this.#clock, intervalMs(), signal);
        } catch {
          return;
        }
        try {
          await step();
        } catch (err) {
          this.#log.error({ err: errorMessage(err) }, 'supervisor step failed');
        }
      }
    })();
  }
}

function sweepKey(state: HaltState): string {
  return `${state.by ?? ''}|${state.sinceMs ?? ''}|${state.reason ?? ''}`;
}
