import { hostname, tmpdir } from 'node:os';
import {
  BEAT_EVERY_MS,
  BEAT_TTL_MS,
  type ControlFlags,
  type IntentBus,
  type PairConsumer,
} from '../bus/index.js';
import {
  errorMessage,
  every,
  silentLog,
  systemClock,
  type Clock,
  type Log,
  type PairInfo,
  type StallWatch,
} from '../core/index.js';
import type { SpotClient } from '../exchange/index.js';
import type { ExecutorConfig } from './config.js';
import { ProcessBeacon } from './beacon.js';
import { OrderReads } from './exchange-orders.js';
import type { Lease, Leases } from './lease.js';
import { pairLabel, type ExecutorMetrics } from './metrics.js';
import { PairContext } from './pair-context.js';
import { PairExecutor } from './pair-executor.js';
import type { RatecountStore } from './ratecount-store.js';
import type { OrderTracker } from '../orders/index.js';
import type { WireSample } from './wire-times.js';

export interface ExecutorOptions {
  readonly client: SpotClient;
  /** The register the pairs' steps drain, and their wake-ups. */
  readonly bus: IntentBus;
  /** The process's order tracker (the executor writes it; its opener closes it). */
  readonly tracker: OrderTracker;
  readonly ratecount: RatecountStore;
  readonly leases: Leases;
  readonly pairs: readonly PairInfo[];
  readonly instance: number;
  readonly config: ExecutorConfig;
  readonly flags?: ControlFlags | undefined;
  readonly metrics: ExecutorMetrics;
  readonly clock?: Clock;
  readonly log?: Log;
  /** Shown as the lease owner (default host:pid). */
  readonly owner?: string;
  /** Raw latency samples, one per intent sent (benchmarks). */
  readonly onWire?: (sample: WireSample) => void;
  /**
   * Where the process beacon listens (default the OS temp directory): see beacon.ts. False for
   * none (the replay: no other process can hold its leases).
   */
  readonly beaconDir?: string | false;
  /**
   * The process's stall watch (none in a replay, whose clock jumps): after a stall every pair
   * held is synced, and the orders the exchange cancelled meanwhile charged, before its next
   * order entry.
   */
  readonly stallWatch?: StallWatch;
}

/**
 * A step runs at most this long before the bus counts it stalled and fails it (never re-run): half
 * the lease's TTL, since a standby holds the pair only after a whole TTL (DESIGN.md §3.6).
 */
const lockDurationMs = (config: ExecutorConfig): number => Math.max(2_000, config.lease_ttl_ms / 2);

/** A liveness beat whose write took this long waited on Redis: it is written again, fresh. */
const SLOW_BEAT_MS = 1_000;

interface Held {
  readonly lease: Lease;
  readonly pe: PairExecutor;
  /** Set once the pair's start-up reconciliation is done and its steps run. */
  consumer: PairConsumer | undefined;
}

export interface ExecutorPairStatus {
  readonly pair: string;
  readonly held: boolean;
  readonly orders: number;
  readonly unknown: number;
}

/**
 * The executor role: for each pair it may work, takes the pair's lease (or waits as a standby),
 * then consumes the pair's BullMQ queue with a Worker whose jobs run the PairExecutor's steps.
 * Losing a lease stops that pair's work at once; another process takes it over from the tracker
 * and the exchange.
 */
export class Executor {
  readonly #o: ExecutorOptions;
  readonly #clock: Clock;
  readonly #log: Log;
  readonly #tracker: OrderTracker;
  readonly #ratecount: RatecountStore;
  readonly #reads: OrderReads;
  readonly #held = new Map<string, Held>();
  /** Takes under way (a lease try and the start-up reconciliation), by pair. */
  readonly #taking = new Map<string, Promise<void>>();
  readonly #owner: string;
  readonly #stop = new AbortController();
  #loops: Promise<void>[] = [];
  /** The halt flag as the last lease tick saw it: its changes are told to the pairs. */
  #wasHalted: boolean | undefined;
  /** Whether the liveness beats are held back by a hung step. */
  #hung = false;
  #beacon: ProcessBeacon | undefined;
  /** Pairs whose lease lapsed with no one else holding it: taken again at once, said once. */
  readonly #lapsed = new Set<string>();
  /** Orders of ours the exchange cancelled without a call of ours, and their points, so far. */
  readonly #cancelledByOthers = { orders: 0, points: 0 };
  /** The resync after the last stall, while it runs. */
  #stalling: Promise<unknown> | undefined;
  /** Steps that threw (logged); a backtest with any is suspect, its summary says so. */
  stepErrors = 0;

  constructor(options: ExecutorOptions) {
    this.#o = options;
    this.#clock = options.clock ?? systemClock;
    this.#log = options.log ?? silentLog;
    this.#owner = options.owner ?? `${hostname()}:${process.pid}`;
    const limits = options.ratecount.limits;
    this.#tracker = options.tracker;
    this.#ratecount = options.ratecount;
    this.#reads = new OrderReads(options.client, this.#stop.signal);
    for (const p of this.#pairs()) {
      options.metrics.ratecountMax.set({ pair: pairLabel(p) }, limits.max);
      options.metrics.leases.set({ pair: pairLabel(p) }, 0);
    }
  }

  get tracker(): OrderTracker {
    return this.#tracker;
  }

  get ratecount(): RatecountStore {
    return this.#ratecount;
  }

  /** Takes every free pair now, then keeps renewing and retrying on the clock. */
  async start(): Promise<void> {
    const { config, flags } = this.#o;
    const beaconDir = this.#o.beaconDir ?? tmpdir();
    if (beaconDir !== false) {
      try {
        this.#beacon = await ProcessBeacon.open(beaconDir);
      } catch (err) {
        this.#log.warn(
          { dir: beaconDir, err: errorMessage(err) },
          'no process beacon: after a crash, a restart waits out the old leases (lease_ttl_ms)',
        );
      }
    }
    const onError = (err: unknown): void =>
      this.#log.error({ err: errorMessage(err) }, 'executor loop step failed');
    const leaseEvery = Math.min(config.lease_retry_ms, config.lease_ttl_ms / 3);
    await this.#tick();
    // Renewing before the first takes are done: their reconciliation can wait longer than a
    // lease's TTL for REST budget (a restart right after a halt's calls spent it), and their
    // first step found the lease lost.
    this.#loops.push(
      every(this.#clock, leaseEvery, this.#stop.signal, () => this.#tick(), onError),
    );
    // The first takes are awaited: a started executor works every pair free at start.
    await Promise.all(this.#taking.values());
    this.#o.stallWatch?.onStall(() => {
      const stalling = this.#stalled();
      this.#stalling = stalling.catch(() => undefined);
      return stalling;
    });
    if (flags !== undefined) {
      flags.onCancelledAll((atMs) => {
        for (const { pe } of this.#held.values()) void pe.cancelledAll(atMs);
      });
      await this.#beat(flags);
      this.#loops.push(
        every(this.#clock, BEAT_EVERY_MS, this.#stop.signal, () => this.#beat(flags), onError),
      );
    }
  }

  /** The pair's executor while this process holds it. */
  pair(id: string): PairExecutor | undefined {
    return this.#held.get(id)?.pe;
  }

  status(): ExecutorPairStatus[] {
    return this.#pairs().map((p) => {
      const held = this.#held.get(p.id);
      const orders = held === undefined ? [] : [...held.pe.ctx.orders.values()];
      return {
        pair: p.id,
        held: held !== undefined,
        orders: orders.length,
        unknown: orders.filter((o) => o.state === 'unknown').length,
      };
    });
  }

  /**
   * One full sync of every pair held, each after its step in progress: the fills the exchange
   * booked since the last sync reach the tracker (a replay's last look before it stops).
   */
  async finalSync(): Promise<void> {
    for (const { pe } of this.#held.values()) await pe.syncAll();
  }

  async stop(): Promise<void> {
    // The pairs first, so the work the abort cuts short ends as stopped, not as failed.
    for (const { pe } of this.#held.values()) void pe.stop();
    // Ends the exchange reads (syncs waiting for REST budget) along with the loops.
    this.#stop.abort();
    await Promise.all(this.#loops);
    // A stall's round of the lease loop runs outside it: its takes must not outlive the stop.
    await this.#stalling;
    await Promise.all(this.#taking.values());
    await Promise.all([...this.#held.keys()].map((id) => this.#let(id, 'stopping')));
    await this.#beacon?.close();
  }

  #pairs(): readonly PairInfo[] {
    const only = this.#o.config.pairs;
    if (only.length === 0) return this.#o.pairs;
    return this.#o.pairs.filter((p) => only.includes(p.id) || only.includes(p.altname));
  }

  /**
   * Beats only while no pair's step has been stuck past hung_after_ms: a hung executor stops
   * proving it is alive, and the supervisor lets the dead-man timer run out.
   */
  async #beat(flags: ControlFlags): Promise<void> {
    const at = this.#clock.now();
    if (!this.#mayBeat(at)) return;
    await flags.beat('executor', Math.floor(at), BEAT_TTL_MS).catch(() => undefined);
    // A beat that waited out a Redis stall carries a time the supervisor reads as stale: beat
    // again with the time Redis answered, so heartbeats resume now, not a beat period later.
    const landed = this.#clock.now();
    if (landed - at < SLOW_BEAT_MS || !this.#mayBeat(landed)) return;
    await flags.beat('executor', Math.floor(landed), BEAT_TTL_MS).catch(() => undefined);
  }

  /** Whether no pair's step has been stuck past hung_after_ms at `now` (said once each way). */
  #mayBeat(now: number): boolean {
    const stuck = [...this.#held.entries()]
      .map(([pair, { pe }]) => ({ pair, busyMs: Math.round(pe.busyForMs(now)) }))
      .filter((p) => p.busyMs > this.#o.config.hung_after_ms);
    if (stuck.length > 0) {
      if (!this.#hung) this.#log.error({ stuck }, 'executor step hung: liveness beats stop');
      this.#hung = true;
      return false;
    }
    if (this.#hung) this.#log.info({}, 'executor steps move again: liveness beats resume');
    this.#hung = false;
    return true;
  }

  /**
   * Renews the leases held, tells the pairs a halt change, and starts taking the free pairs. A
   * take reconciles with the exchange, which can take long; renewals never wait on it: the next
   * tick renews again while a take is still under way (issue #32: a renewal stuck behind order
   * work let held leases lapse).
   */
  async #tick(): Promise<void> {
    if (this.#stop.signal.aborted) return;
    this.#o.stallWatch?.look();
    await Promise.all(
      [...this.#held].map(async ([id, { lease }]) => {
        try {
          if (!(await lease.renew())) await this.#lost(id, lease);
        } catch (err) {
          this.#log.error({ pair: id, err: errorMessage(err) }, 'lease renewal failed');
        }
      }),
    );
    await this.#followHalt();
    if (this.#stop.signal.aborted) return;
    for (const p of this.#pairs()) {
      if (this.#held.has(p.id) || this.#taking.has(p.id)) continue;
      const taking = this.#take(p)
        .catch((err: unknown) =>
          this.#log.error({ pair: p.id, err: errorMessage(err) }, 'taking the pair failed'),
        )
        .finally(() => this.#taking.delete(p.id));
      this.#taking.set(p.id, taking);
    }
  }

  /** Tells the pairs held when the halt flag is set or cleared (not the state found at start). */
  async #followHalt(): Promise<void> {
    const flags = this.#o.flags;
    if (flags === undefined) return;
    const halted = flags.current().halted;
    const was = this.#wasHalted;
    this.#wasHalted = halted;
    if (was === undefined || was === halted) return;
    if (halted) for (const { pe } of this.#held.values()) pe.halted(flags.current().sinceMs);
    else await Promise.all([...this.#held.values()].map(({ pe }) => pe.resumed()));
  }

  /**
   * A renewal found the lease not ours any more. Either it lapsed (not renewed within its TTL:
   * this process stood still, or Redis did) and no one holds it, or another process took it.
   */
  async #lost(id: string, lease: Lease): Promise<void> {
    const holder = await lease.owner().catch(() => undefined);
    if (holder !== undefined && holder !== this.#owner) {
      this.#log.warn({ pair: id, holder }, 'pair lost: lease taken by another process');
      await this.#let(id, 'lease taken by another process');
      return;
    }
    // Taken again by this tick's round of takes; the take says so in one line.
    this.#lapsed.add(id);
    await this.#let(id, 'lease lapsed', false);
  }

  async #take(pair: PairInfo): Promise<void> {
    const o = this.#o;
    const lapsed = this.#lapsed.delete(pair.id);
    const lease = o.leases.lease(pair.id, this.#owner, o.config.lease_ttl_ms, this.#beacon);
    if (!(await lease.tryAcquire())) {
      if (lapsed) {
        this.#log.warn(
          { pair: pair.id },
          'pair lost: its lease lapsed and another process took it',
        );
      }
      return;
    }
    const log = this.#log.child({ pair: pair.id });
    const ctx = new PairContext({
      pair,
      instance: o.instance,
      client: o.client,
      bus: o.bus,
      tracker: this.#tracker,
      ratecount: this.#ratecount,
      reads: this.#reads,
      lease,
      flags: o.flags,
      config: o.config,
      limits: this.#ratecount.limits,
      clock: this.#clock,
      metrics: o.metrics,
      log,
      onWire: o.onWire,
      onCancelledByOthers: (orders, points) => {
        this.#cancelledByOthers.orders += orders;
        this.#cancelledByOthers.points += points;
      },
    });
    const pe = new PairExecutor(ctx, () => o.bus.enqueue(pair.id));
    const held: Held = { lease, pe, consumer: undefined };
    this.#held.set(pair.id, held);
    o.metrics.leases.set({ pair: ctx.label }, 1);
    if (lapsed) {
      log.info({ owner: this.#owner }, 'lease lapsed during a stall and retaken by this process');
    } else {
      log.info(
        lease.tookOverFrom === undefined
          ? { owner: this.#owner }
          : { owner: this.#owner, endedHolder: lease.tookOverFrom },
        'pair taken',
      );
    }
    try {
      await pe.start();
    } catch (err) {
      const why = this.#stop.signal.aborted ? 'stopping' : `start failed: ${errorMessage(err)}`;
      await this.#let(pair.id, why);
      return;
    }
    if (this.#held.get(pair.id) !== held) return;
    held.consumer = o.bus.consume(
      pair.id,
      () => {
        // The first thing to run after a stall may be this job: it must learn of it first.
        o.stallWatch?.look();
        return pe.step();
      },
      {
        lockDurationMs: lockDurationMs(o.config),
        onError: (err, where) => {
          if (where === 'step') this.stepErrors += 1;
          log.error(
            { err: err.message },
            where === 'step' ? 'pair step failed' : 'queue worker error',
          );
        },
      },
    );
    // What waited in the register while no one held the pair.
    await pe.wake();
  }

  async #let(id: string, why: string, logged = true): Promise<void> {
    const held = this.#held.get(id);
    if (held === undefined) return;
    this.#held.delete(id);
    const ended = held.pe.stop();
    this.#o.metrics.leases.set({ pair: held.pe.ctx.label }, 0);
    // A lost lease stops the pair's step at once; a stop lets it finish.
    const stopping = why === 'stopping';
    await held.consumer?.close(!stopping);
    // The syncs outside the steps too (a halt's, a CancelAll's): once the lease is given back
    // their tracker writes fail on its fence.
    if (stopping) await ended;
    await held.lease.release().catch(() => undefined);
    if (logged) this.#log.info({ pair: id, why }, 'pair released');
  }

  /**
   * The process stood still (the stall watch says so as soon as anything runs, a step included):
   * every pair held syncs before its next order entry; a lease that lapsed meanwhile is taken
   * again, and that take's start-up sync does the same. What the syncs found goes in the stall's
   * one log line.
   */
  async #stalled(): Promise<Record<string, unknown>> {
    if (this.#stop.signal.aborted) return {};
    const before = { ...this.#cancelledByOthers };
    const failures: { id: string; pe: PairExecutor; err: unknown }[] = [];
    await Promise.all(
      [...this.#held].map(([id, { pe }]) =>
        pe.resync().catch((err: unknown) => void failures.push({ id, pe, err })),
      ),
    );
    // Leases that lapsed meanwhile fence the tracker's writes, so their resync failed: this round
    // of the lease loop releases them and takes them again, each take with a sync of its own.
    await this.#tick();
    await Promise.all(this.#taking.values());
    const failed = failures
      .filter((f) => this.#held.get(f.id)?.pe === f.pe)
      .map((f) => `${f.id}: ${errorMessage(f.err)}`);
    const found = {
      pairsHeld: this.#held.size,
      ordersGone: this.#cancelledByOthers.orders - before.orders,
      points: Math.round((this.#cancelledByOthers.points - before.points) * 100) / 100,
    };
    return failed.length === 0 ? found : { ...found, resyncFailed: failed };
  }
}
