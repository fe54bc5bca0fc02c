import { hostname } from 'node:os';
import { Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import {
  BEAT_EVERY_MS,
  BEAT_TTL_MS,
  holdWritesForTurn,
  issueAfterHold,
  type ControlFlags,
  type IntentBus,
  type IntentJobData,
} from '../bus/index.js';
import {
  errorMessage,
  silentLog,
  systemClock,
  type Clock,
  type Log,
  type PairInfo,
} from '../core/index.js';
import type { SpotClient } from '../exchange/index.js';
import { MATCHING_ENGINE } from '../exchange/limits/index.js';
import type { ExecutorConfig } from './config.js';
import { OrderReads } from './exchange-orders.js';
import { PairLease } from './lease.js';
import { pairLabel, type ExecutorMetrics } from './metrics.js';
import { PairContext, type WireSample } from './pair-context.js';
import { PairExecutor } from './pair-executor.js';
import { RatecountStore } from './ratecount-store.js';
import { OrderTracker } from './tracker/index.js';
import { warmUp } from './warm-up.js';

export interface ExecutorOptions {
  readonly client: SpotClient;
  readonly bus: IntentBus;
  /**
   * For the tracker, the ratecount mirror and the leases. Best the bus's own connection (and the
   * client's nonce source's): a drain woken by a publish in this process then queues its commands
   * right behind the publish's write instead of possibly overtaking it (which costs a re-read).
   */
  readonly redis: Redis;
  /** For BullMQ Workers (`maxRetriesPerRequest: null`); each Worker duplicates it to block. */
  readonly workerRedis: Redis;
  readonly pairs: readonly PairInfo[];
  readonly instance: number;
  readonly config: ExecutorConfig;
  /** Base of the ratecount keys: ratecountKeyFor(apiKey). */
  readonly ratecountKey: string;
  readonly flags?: ControlFlags | undefined;
  readonly metrics: ExecutorMetrics;
  readonly clock?: Clock;
  readonly log?: Log;
  /** Shown as the lease owner (default host:pid). */
  readonly owner?: string;
  /** Raw latency samples, one per intent sent (benchmarks). */
  readonly onWire?: (sample: WireSample) => void;
}

/** BullMQ settings for order-entry jobs (DESIGN.md §3.6): a stalled job is failed, never re-run. */
const WORKER_SETTINGS = {
  concurrency: 1,
  maxStalledCount: 0,
  lockDuration: 5_000,
  stalledInterval: 5_000,
  // Seconds (BullMQ's unit here) an idle worker blocks before polling again; a job wakes it at once.
  drainDelay: 5,
} as const;

interface Held {
  readonly lease: PairLease;
  readonly pe: PairExecutor;
  readonly worker: Worker<IntentJobData>;
  /** Stops the in-process wake-up on publishes. */
  readonly unlisten: () => void;
}

export interface ExecutorPairStatus {
  readonly pair: string;
  readonly held: boolean;
  readonly orders: number;
  readonly unknown: number;
}

/**
 * The executor role: for each pair it may work, takes the pair's lease (or waits as a standby),
 * then runs a PairExecutor fed by a BullMQ Worker on the pair's queue. Losing a lease stops that
 * pair's work at once; another process takes it over from the tracker and the exchange.
 */
export class Executor {
  readonly #o: ExecutorOptions;
  readonly #clock: Clock;
  readonly #log: Log;
  readonly #tracker: OrderTracker;
  readonly #ratecount: RatecountStore;
  readonly #reads: OrderReads;
  readonly #held = new Map<string, Held>();
  readonly #owner: string;
  #timer: NodeJS.Timeout | undefined;
  #beat: NodeJS.Timeout | undefined;
  #stopping = false;
  /** The halt flag as the last lease tick saw it: its changes are told to the pairs. */
  #wasHalted: boolean | undefined;
  #ticking: Promise<void> = Promise.resolve();

  constructor(options: ExecutorOptions) {
    this.#o = options;
    this.#clock = options.clock ?? systemClock;
    this.#log = options.log ?? silentLog;
    this.#owner = options.owner ?? `${hostname()}:${process.pid}`;
    const limits = MATCHING_ENGINE[options.client.tier];
    this.#tracker = new OrderTracker({ redis: options.redis, prefix: options.bus.prefix });
    this.#ratecount = new RatecountStore(options.redis, options.ratecountKey, limits);
    this.#reads = new OrderReads(options.client);
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

  /** Takes every free pair now, then keeps renewing and retrying in the background. */
  async start(): Promise<void> {
    // Order entry's connections, made before the first order rather than on its way: as many as
    // the calls the pairs may have in flight together.
    await this.#o.client.preconnect(this.#o.config.max_calls_in_flight * this.#pairs().length);
    await this.#tick();
    const every = Math.min(this.#o.config.lease_retry_ms, this.#o.config.lease_ttl_ms / 3);
    this.#timer = setInterval(() => {
      this.#ticking = this.#ticking.then(() => this.#tick());
    }, every);
    if (this.#o.flags !== undefined) {
      const flags = this.#o.flags;
      // Beats only while no pair's drain or sync has been stuck past hung_after_ms: a hung
      // executor stops proving it is alive, and the supervisor lets the dead-man timer run out.
      let hung = false;
      const beat = (): void => {
        const now = this.#clock.now();
        const stuck = [...this.#held.entries()]
          .map(([pair, { pe }]) => ({ pair, busyMs: Math.round(pe.busyForMs(now)) }))
          .filter((p) => p.busyMs > this.#o.config.hung_after_ms);
        if (stuck.length > 0) {
          if (!hung) this.#log.error({ stuck }, 'executor step hung: liveness beats stop');
          hung = true;
          return;
        }
        if (hung) this.#log.info({}, 'executor steps move again: liveness beats resume');
        hung = false;
        void flags.beat('executor', Math.floor(now), BEAT_TTL_MS).catch(() => undefined);
      };
      beat();
      this.#beat = setInterval(beat, BEAT_EVERY_MS);
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

  async stop(): Promise<void> {
    this.#stopping = true;
    clearInterval(this.#timer);
    clearInterval(this.#beat);
    await this.#ticking;
    await Promise.all([...this.#held.keys()].map((id) => this.#let(id, 'stopping')));
    await this.#tracker.close();
  }

  #pairs(): readonly PairInfo[] {
    const only = this.#o.config.pairs;
    if (only.length === 0) return this.#o.pairs;
    return this.#o.pairs.filter((p) => only.includes(p.id) || only.includes(p.altname));
  }

  async #tick(): Promise<void> {
    if (this.#stopping) return;
    await this.#followHalt();
    await Promise.all(
      this.#pairs().map(async (p) => {
        try {
          const held = this.#held.get(p.id);
          if (held !== undefined) {
            if (!(await held.lease.renew()))
              await this.#let(p.id, 'lease taken by another process');
          } else {
            await this.#take(p);
          }
        } catch (err) {
          this.#log.error({ pair: p.id, err: errorMessage(err) }, 'lease step failed');
        }
      }),
    );
  }

  /** Tells the pairs held when the halt flag is set or cleared (not the state found at start). */
  async #followHalt(): Promise<void> {
    const flags = this.#o.flags;
    if (flags === undefined) return;
    const halted = flags.current().halted;
    const was = this.#wasHalted;
    this.#wasHalted = halted;
    if (was === undefined || was === halted) return;
    await Promise.all(
      [...this.#held.values()].map(({ pe }) => (halted ? pe.halted() : pe.resumed())),
    );
  }

  async #take(pair: PairInfo): Promise<void> {
    const o = this.#o;
    const lease = new PairLease(
      o.redis,
      o.bus.prefix,
      pair.id,
      this.#owner,
      o.config.lease_ttl_ms,
      this.#clock,
    );
    if (!(await lease.tryAcquire())) return;
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
      fastPath: () => o.redis.status === 'ready',
      holdWrites: () => holdWritesForTurn(o.redis),
      afterHold: (issue) => issueAfterHold(o.redis, issue),
      onWire: o.onWire,
    });
    warmUp({
      pair,
      instance: o.instance,
      limits: this.#ratecount.limits,
      config: o.config,
      client: o.client,
      nowMs: this.#clock.now(),
    });
    const pe = new PairExecutor(ctx);
    const worker = new Worker<IntentJobData>(
      o.bus.queueNameFor(pair.id),
      async () => {
        await pe.wakeFromQueue();
      },
      { connection: o.workerRedis, prefix: o.bus.bullPrefix, autorun: false, ...WORKER_SETTINGS },
    );
    worker.on('error', (err) => log.error({ err: err.message }, 'queue worker error'));
    // A runner in this process wakes the pair at once, without a queue job (Redis time the drain
    // would wait behind); the queue carries the wake-ups of runners elsewhere.
    const unlisten = o.bus.onPublished(pair.id, (_, intents) => void pe.published(intents));
    this.#held.set(pair.id, { lease, pe, worker, unlisten });
    o.metrics.leases.set({ pair: ctx.label }, 1);
    log.info({ owner: this.#owner }, 'pair taken');
    // The pair's first orders are then decided as their publish is sent, not a round trip later.
    await o.bus.primed(pair.id);
    try {
      await pe.start();
    } catch (err) {
      await this.#let(pair.id, `start failed: ${errorMessage(err)}`);
      return;
    }
    void worker.run();
  }

  async #let(id: string, why: string): Promise<void> {
    const held = this.#held.get(id);
    if (held === undefined) return;
    this.#held.delete(id);
    held.unlisten();
    held.pe.stop();
    this.#o.metrics.leases.set({ pair: held.pe.ctx.label }, 0);
    await held.worker.close(why !== 'stopping');
    await held.pe.idle();
    await held.lease.release().catch(() => undefined);
    this.#log.info({ pair: id, why }, 'pair released');
  }
}
