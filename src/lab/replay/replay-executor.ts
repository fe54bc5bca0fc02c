import type { Redis } from 'ioredis';
import { IntentBus, type ControlFlags, type IntentBusOptions } from '../../bus/index.js';
import { errorMessage, every, type Clock, type Log, type PairInfo } from '../../core/index.js';
import type { SpotClient } from '../../exchange/index.js';
import { MATCHING_ENGINE } from '../../exchange/limits/index.js';
import type { ExecutorConfig } from '../../executor/config.js';
import { OrderReads } from '../../executor/exchange-orders.js';
import { PairLease } from '../../executor/lease.js';
import type { ExecutorMetrics } from '../../executor/metrics.js';
import { PairContext } from '../../executor/pair-context.js';
import { PairExecutor } from '../../executor/pair-executor.js';
import { RatecountStore } from '../../executor/ratecount-store.js';
import { OrderTracker } from '../../orders/index.js';

/**
 * The intent bus with BullMQ's job add replaced by a direct wake of the pair's step: the register
 * (Lua scripts, coalescing, generations) is the live one; only the queue hop is not (see
 * docs/backtest.md, "Replay").
 */
export class ReplayBus extends IntentBus {
  #wake: (pair: string) => void = () => undefined;

  constructor(options: IntentBusOptions) {
    super(options);
  }

  /** Where a job add goes instead. */
  onEnqueue(wake: (pair: string) => void): void {
    this.#wake = wake;
  }

  override enqueue(pair: string): Promise<void> {
    this.#wake(pair);
    return Promise.resolve();
  }
}

export interface ReplayExecutorOptions {
  readonly client: SpotClient;
  readonly bus: ReplayBus;
  readonly redis: Redis;
  readonly pairs: readonly PairInfo[];
  readonly instance: number;
  readonly config: ExecutorConfig;
  readonly ratecountKey: string;
  readonly flags: ControlFlags | undefined;
  readonly metrics: ExecutorMetrics;
  readonly clock: Clock;
  readonly log: Log;
}

interface PairWork {
  readonly pe: PairExecutor;
  readonly lease: PairLease;
  running: Promise<void> | undefined;
  /** A wake came while a step ran: one more step follows (BullMQ's keepLastIfActive). */
  again: boolean;
}

/**
 * The executor of a backtest: for each pair the live PairExecutor (view follow, unknown-outcome
 * resolution, drain, planner, order calls, syncs) with the live Redis tracker, ratecount store and
 * lease, its steps run one at a time per pair as the Worker runs them, without the queue hop.
 */
export class ReplayExecutor {
  readonly #o: ReplayExecutorOptions;
  readonly #work = new Map<string, PairWork>();
  readonly #tracker: OrderTracker;
  readonly #ratecount: RatecountStore;
  readonly #stop = new AbortController();
  #loop: Promise<void> | undefined;
  /** Steps that threw (logged): a backtest with any is suspect, the summary says so. */
  stepErrors = 0;

  constructor(options: ReplayExecutorOptions) {
    this.#o = options;
    this.#tracker = new OrderTracker({ redis: options.redis, prefix: options.bus.prefix });
    this.#ratecount = new RatecountStore(
      options.redis,
      options.ratecountKey,
      MATCHING_ENGINE[options.client.tier],
      () => undefined,
    );
    options.bus.onEnqueue((pair) => this.#wake(pair));
  }

  get tracker(): OrderTracker {
    return this.#tracker;
  }

  async start(): Promise<void> {
    const o = this.#o;
    const reads = new OrderReads(o.client);
    for (const pair of o.pairs) {
      const lease = new PairLease(
        o.redis,
        o.bus.prefix,
        pair.id,
        'backtest',
        o.config.lease_ttl_ms,
        o.clock,
      );
      if (!(await lease.tryAcquire())) throw new Error(`lease of ${pair.id} is taken`);
      const ctx = new PairContext({
        pair,
        instance: o.instance,
        client: o.client,
        bus: o.bus,
        tracker: this.#tracker,
        ratecount: this.#ratecount,
        reads,
        lease,
        flags: o.flags,
        config: o.config,
        limits: this.#ratecount.limits,
        clock: o.clock,
        metrics: o.metrics,
        log: o.log.child({ pair: pair.id }),
      });
      const pe = new PairExecutor(ctx, () => o.bus.enqueue(pair.id));
      this.#work.set(pair.id, { pe, lease, running: undefined, again: false });
      await pe.start();
      await pe.wake();
    }
    const renewEvery = o.config.lease_ttl_ms / 3;
    this.#loop = every(
      o.clock,
      renewEvery,
      this.#stop.signal,
      async () => {
        await Promise.all([...this.#work.values()].map((w) => w.lease.renew()));
      },
      (err) => o.log.error({ err: errorMessage(err) }, 'lease renewal failed'),
    );
  }

  /**
   * One full sync per pair, after any step in progress: the fills the exchange booked since the
   * last sync reach the tracker before the replay stops (the report counts only what it holds).
   */
  async finalSync(): Promise<void> {
    for (const w of this.#work.values()) {
      await w.running;
      await w.pe.syncAll();
    }
  }

  async stop(): Promise<void> {
    this.#stop.abort();
    await this.#loop;
    for (const w of this.#work.values()) {
      w.pe.stop();
      await w.running;
    }
    await this.#tracker.close();
  }

  #wake(pair: string): void {
    const w = this.#work.get(pair);
    if (w === undefined || this.#stop.signal.aborted) return;
    if (w.running !== undefined) {
      w.again = true;
      return;
    }
    w.running = w.pe
      .step()
      .then(
        () => undefined,
        (err: unknown) => {
          this.stepErrors += 1;
          this.#o.log.error({ pair, err: errorMessage(err) }, 'pair step failed');
        },
      )
      .finally(() => {
        w.running = undefined;
        if (w.again) {
          w.again = false;
          this.#wake(pair);
        }
      });
  }
}
