/**
 * An executor against the simulator and real Redis, with the executor, its client and the
 * simulator on one ManualClock: deadlines, ratecount decay, budget waits, unknown outcomes and
 * periodic syncs move only when a test advances it. BullMQ and Redis run in real time, so tests
 * wait for a positive signal (an order on the book, a step's result, a counter), never a sleep.
 * A fresh prefix and ratecount namespace per harness, and a funded key with a nonce window.
 */
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { Redis } from 'ioredis';
import { Registry } from 'prom-client';
import {
  RedisIntentBus,
  RedisControlFlags,
  type ControlFlags,
  type UnpublishedIntent,
} from '../../src/bus/index.js';
import {
  ManualClock,
  systemClock,
  type Clock,
  decodeUserref,
  parseWithSchema,
  slotKey,
  type PairInfo,
  type StallWatch,
} from '../../src/core/index.js';
import {
  InProcessNonceSource,
  type RestLimiter,
  type SpotClient,
  type SpotClientOptions,
  type Tier,
} from '../../src/exchange/index.js';
import {
  Executor,
  ExecutorConfig,
  ExecutorMetrics,
  RedisLeases,
  RedisRatecountStore,
  type DrainResult,
  type WireSample,
} from '../../src/executor/index.js';
import { MATCHING_ENGINE } from '../../src/exchange/limits/index.js';
import { RedisOrderTracker, type OrderTracker } from '../../src/orders/index.js';
import { loadPairs } from '../../src/market/index.js';
import { REDIS_URL, deleteKeys, freshPrefix } from '../support/redis.js';
import { startTestSim, type KeyPair, type TestSim } from '../support/sim.js';
import { until } from '../support/until.js';
import { logCollector, type LogEntry } from '../safety/log-collector.js';

export interface SimOrder {
  readonly txid: string;
  readonly pair: string;
  readonly side: string;
  readonly price: string;
  readonly volume: string;
  readonly vol_exec: string;
  readonly userref: number;
  readonly key: string;
}

export interface ExecutorUnderTest {
  readonly executor: Executor;
  readonly registry: Registry;
  readonly wires: WireSample[];
  /** Every line the executor logged. */
  readonly logs: LogEntry[];
}

export interface ExecHarness {
  readonly sim: TestSim;
  readonly key: KeyPair;
  readonly prefix: string;
  readonly redis: Redis;
  readonly bus: RedisIntentBus;
  readonly flags: ControlFlags;
  readonly pairs: PairInfo[];
  readonly ratecountKey: string;
  /** The executor's, its client's and the simulator's clock (a ManualClock unless realTime). */
  readonly clock: Clock;
  /**
   * A client of the executor's key. The clock stands still, so every client of the key takes its
   * nonces from one source: two would hand out the same ones.
   */
  keyClient(options?: Partial<SpotClientOptions>): SpotClient;
  executor(
    overrides?: Partial<ExecutorConfig>,
    options?: {
      owner?: string;
      restLimiter?: RestLimiter;
      client?: Partial<SpotClientOptions>;
      stallWatch?: StallWatch;
      /** The halt flag and beats as the executor sees them (default the harness's). */
      flags?: ControlFlags;
    },
  ): Promise<ExecutorUnderTest>;
  /** A place, amend or cancel intent of instance 1, stamped on the harness's clock. */
  intent(
    pair: string,
    slot: string,
    desired:
      { side: 'buy' | 'sell'; price: string; volume: string; postOnly?: boolean } | undefined,
    overrides?: Partial<UnpublishedIntent>,
  ): UnpublishedIntent;
  /** Publishes, and returns the intents' register keys (`slot#generation`). */
  publish(intents: UnpublishedIntent[]): Promise<string[]>;
  /** Results of the pair's finished steps (its completed jobs), oldest first. */
  steps(pair: string): Promise<DrainResult[]>;
  /**
   * Publishes and waits for the first finished step that read the intents (the first of them);
   * returns its result.
   */
  publishAndStep(intents: UnpublishedIntent[]): Promise<DrainResult>;
  /** Waits for the first finished step after `after` that read intent `key` of `pair`. */
  stepReading(pair: string, key: string, after?: number): Promise<DrainResult>;
  /** Moves the clock and runs the simulator's time-driven work that fell due. */
  advance(ms: number): Promise<void>;
  /** The key's open orders on the simulator. */
  simOrders(): Promise<SimOrder[]>;
  simRejections(): Promise<Record<string, number>>;
  /** The exchange's ratecount of the key on `pair` now (what the model must match). */
  simRatecount(pair: string): Promise<number>;
  close(): Promise<void>;
}

export async function startExecHarness(
  options: {
    tier?: Tier;
    simConfig?: Record<string, unknown>;
    /** The system clock, for executors in processes of their own (advance() then refuses). */
    realTime?: boolean;
  } = {},
): Promise<ExecHarness> {
  const manual = options.realTime === true ? undefined : new ManualClock(Math.floor(Date.now()));
  const clock: Clock = manual ?? systemClock;
  const sim = await startTestSim({ config: options.simConfig ?? {}, clock });
  const key = sim.addAccount({ tier: options.tier ?? 'pro', nonceWindow: 10_000 });
  const prefix = freshPrefix();
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  const bus = new RedisIntentBus({ connection: redis, prefix, clock });
  const trackers: OrderTracker[] = [];
  const track = (tracker: OrderTracker): OrderTracker => {
    trackers.push(tracker);
    return tracker;
  };
  const flags = new RedisControlFlags({ connection: redis, prefix });
  await flags.read();
  const pairs = await loadPairs(sim.client({ key }), ['XBTUSD', 'ETHUSD']);
  const executors: Executor[] = [];
  const nonceSource = new InProcessNonceSource({ clock });
  const keyClient = (more: Partial<SpotClientOptions> = {}): SpotClient =>
    sim.client({
      key,
      tier: options.tier ?? 'pro',
      retry: { retries: 1, baseDelayMs: 5, maxDelayMs: 20 },
      nonceWindow: 10_000,
      nonceSource,
      ...more,
    });
  const publish = async (intents: UnpublishedIntent[]): Promise<string[]> =>
    (await bus.publish(intents)).published.map((i) => `${i.slot}#${i.generation}`);
  const stepReading = async (pair: string, key: string, after = 0): Promise<DrainResult> =>
    until(`a step of ${pair} reading ${key}`, async () =>
      (await steps(pair)).slice(after).find((r) => r.read.includes(key)),
    );
  const steps = async (pair: string): Promise<DrainResult[]> => {
    const jobs = await bus.queueFor(pair).getCompleted(0, 1000);
    return jobs
      .sort((a, b) => (a.finishedOn ?? 0) - (b.finishedOn ?? 0))
      .map((j) => j.returnvalue as DrainResult)
      .filter((r) => r !== undefined && r !== null);
  };
  return {
    sim,
    key,
    prefix,
    redis,
    bus,
    flags,
    pairs,
    clock,
    keyClient,
    ratecountKey: `${prefix}:ratecount`,
    async executor(overrides = {}, o = {}) {
      const config = parseWithSchema(
        ExecutorConfig,
        // Leases live in Redis in real time; the manual clock renews them only when advanced.
        {
          reconcile_interval_ms: 60_000,
          lease_ttl_ms: 120_000,
          lease_retry_ms: 60_000,
          ...overrides,
        },
        'executor',
      );
      const client = keyClient({
        ...(o.restLimiter === undefined ? {} : { restLimiter: o.restLimiter }),
        ...o.client,
      });
      const registry = new Registry();
      const wires: WireSample[] = [];
      const logs: LogEntry[] = [];
      const executor = new Executor({
        client,
        bus,
        // Each executor its own stores on the shared Redis, as each process of a deployment has.
        tracker: track(new RedisOrderTracker({ redis, prefix })),
        ratecount: new RedisRatecountStore(
          redis,
          `${prefix}:ratecount`,
          MATCHING_ENGINE[client.tier],
        ),
        leases: new RedisLeases(redis, prefix, clock),
        pairs,
        instance: 1,
        config,
        flags: o.flags ?? flags,
        metrics: new ExecutorMetrics(registry),
        clock,
        log: logCollector(logs),
        onWire: (sample) => wires.push(sample),
        ...(o.owner === undefined ? {} : { owner: o.owner }),
        ...(o.stallWatch === undefined ? {} : { stallWatch: o.stallWatch }),
      });
      executors.push(executor);
      await executor.start();
      return { executor, registry, wires, logs };
    },
    intent(pair, slot, desired, overrides = {}) {
      return intentFor(pair, slot, desired, overrides, clock.now());
    },
    publish,
    steps,
    stepReading,
    async publishAndStep(intents) {
      const [key] = await publish(intents);
      return stepReading(intents[0]?.pair as string, key as string);
    },
    async advance(ms) {
      if (manual === undefined) throw new Error('advance(): this harness runs on the system clock');
      await manual.advance(ms);
      sim.tick();
    },
    async simOrders() {
      const { body } = await sim.admin('GET', '/_sim/state');
      const orders =
        (body as { open_orders?: SimOrder[]; orders?: SimOrder[] }).open_orders ??
        (body as { orders?: SimOrder[] }).orders ??
        [];
      return orders.filter((o) => o.key === key.apiKey);
    },
    async simRejections() {
      const { body } = await sim.admin('GET', '/_sim/state');
      return (body as { rejections: Record<string, number> }).rejections;
    },
    async simRatecount(pair) {
      const { body } = await sim.admin('GET', '/_sim/state');
      const levels = (body as { ratecount: Record<string, Record<string, { level: number }>> })
        .ratecount;
      return levels[key.apiKey]?.[pair]?.level ?? 0;
    },
    async close() {
      // A test that failed mid-fault leaves requests held by a latency fault on the manual clock,
      // and stopping waits for the steps that sent them: release them rather than hang.
      sim.ctx.faults.clear();
      if (manual !== undefined) await manual.advance(120_000);
      // A step can still wait on the manual clock (a deferred retry, a paced call): stopping
      // waits for it, so the clock keeps moving until every executor has stopped.
      let stopped = false;
      const stopping = Promise.all(executors.map((e) => e.stop().catch(() => undefined))).then(
        () => (stopped = true),
      );
      for (let i = 0; manual !== undefined && !stopped && i < 600; i++) {
        await new Promise((r) => setTimeout(r, 5));
        if (!stopped) await manual.advance(1_000);
      }
      await stopping;
      await Promise.all(trackers.map((t) => t.close()));
      for (const pair of pairs)
        await bus
          .queueFor(pair.id)
          .obliterate({ force: true })
          .catch(() => undefined);
      await bus.close();
      await deleteKeys(redis, prefix);
      await redis.quit();
      await sim.close();
    },
  };
}

/** A place/amend/cancel intent for the harness' instance 1, created at `nowMs`. */
export function intentFor(
  pair: string,
  slot: string,
  desired: { side: 'buy' | 'sell'; price: string; volume: string; postOnly?: boolean } | undefined,
  overrides: Partial<UnpublishedIntent> = {},
  nowMs = Date.now(),
): UnpublishedIntent {
  return {
    instance: 1,
    pair,
    slot,
    action: desired === undefined ? 'cancel' : 'place',
    desired: desired === undefined ? undefined : { postOnly: true, ...desired },
    // The executor acts on the order its tracker says the slot holds; the runner's target is
    // only required by the bus for cancels.
    target:
      desired === undefined
        ? {
            txid: 'OUNKNOWN',
            userref: null,
            price: '1',
            volume: '1',
            volumeExecuted: '0',
            openedAtMs: nowMs,
          }
        : undefined,
    reason: 'test',
    createdAtMs: nowMs,
    deadlineMs: nowMs + 30_000,
    snapshotSeq: 1,
    snapshotAtMs: nowMs,
    ...overrides,
  };
}

export { until };

/**
 * The invariants on the simulator's book: no order placed twice (userrefs encode
 * instance, slot and generation; the pair is the order's own), at most one open order per slot,
 * every open order a live tracker record in a resting state, and no tracked order off the book.
 * Returns the key's open and closed order counts.
 */
export async function assertBookMatchesTracker(
  h: Pick<ExecHarness, 'sim' | 'key' | 'pairs' | 'simRejections'>,
  tracker: OrderTracker,
): Promise<{ open: number; closed: number }> {
  const account = h.sim.ctx.accounts.get(h.key.apiKey);
  assert.ok(account);
  const open = h.sim.ctx.engine.openOrders(account);
  const closed = h.sim.ctx.engine.closedOrders(account);
  const userrefs = [...open, ...closed].map((o) => `${o.pair.id}|${o.spec.userref}`);
  assert.equal(new Set(userrefs).size, userrefs.length, 'every order carries its own userref');
  const perSlot = new Map<string, number>();
  for (const o of open) {
    const d = decodeUserref(o.spec.userref);
    assert.ok(d, `open order ${o.txid} is ours`);
    const k = `${o.pair.id}|${slotKey(d.slot)}`;
    perSlot.set(k, (perSlot.get(k) ?? 0) + 1);
  }
  assert.deepEqual(
    [...perSlot].filter(([, n]) => n > 1),
    [],
    'one open order per slot',
  );
  const tracked = new Set<string>();
  for (const p of h.pairs) {
    for (const r of await tracker.live(p.id)) {
      if (r.txid !== null) tracked.add(r.txid);
      assert.ok(r.state === 'open' || r.state === 'partially-filled', `${r.userref} is ${r.state}`);
    }
  }
  assert.deepEqual(
    open.map((o) => o.txid).filter((t) => !tracked.has(t)),
    [],
    'every open order is tracked',
  );
  assert.equal(tracked.size, open.length, 'no tracked order that is not on the book');
  const rejections = await h.simRejections();
  assert.equal(rejections['EOrder:Rate limit exceeded'] ?? 0, 0);
  return { open: open.length, closed: closed.length };
}

/**
 * A harness and an executor for a suite (a describe block): started before its tests, closed
 * after them.
 */
export function executorSuite(
  overrides: Partial<ExecutorConfig> = {},
  harness: { tier?: Tier } = {},
): { h: ExecHarness } & ExecutorUnderTest {
  const suite = {} as { h: ExecHarness } & ExecutorUnderTest;
  before(async () => {
    suite.h = await startExecHarness(harness);
    Object.assign(suite, await suite.h.executor(overrides));
  });
  after(() => suite.h.close());
  return suite;
}
