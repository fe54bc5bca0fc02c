/**
 * An executor against the simulator and real Redis, on real time (leases, BullMQ and deadlines
 * all run on it): a fresh prefix and ratecount namespace per harness, a funded key with a nonce
 * window (syncs of two pairs may overtake each other's nonces), and helpers to publish intents
 * and read what the simulator holds.
 */
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { Redis } from 'ioredis';
import { Registry } from 'prom-client';
import { IntentBus, ControlFlags, type UnpublishedIntent } from '../../src/bus/index.js';
import { decodeUserref, parseWithSchema, slotKey, type PairInfo } from '../../src/core/index.js';
import type { RestLimiter, Tier } from '../../src/exchange/index.js';
import {
  Executor,
  ExecutorConfig,
  ExecutorMetrics,
  type WireSample,
} from '../../src/executor/index.js';
import type { OrderTracker } from '../../src/executor/tracker/index.js';
import { loadPairs } from '../../src/market/index.js';
import { REDIS_URL, deleteKeys, freshPrefix } from '../support/redis.js';
import { startTestSim, type KeyPair, type TestSim } from '../support/sim.js';

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

export interface ExecHarness {
  readonly sim: TestSim;
  readonly key: KeyPair;
  readonly prefix: string;
  readonly redis: Redis;
  readonly bus: IntentBus;
  readonly flags: ControlFlags;
  readonly pairs: PairInfo[];
  readonly ratecountKey: string;
  executor(
    overrides?: Partial<ExecutorConfig>,
    owner?: string,
    restLimiter?: RestLimiter,
    /** A connection of its own for the executor (default: the bus's). */
    connection?: Redis,
  ): Promise<{ executor: Executor; registry: Registry; wires: WireSample[] }>;
  publish(intents: UnpublishedIntent[]): Promise<void>;
  /** The key's open orders on the simulator. */
  simOrders(): Promise<SimOrder[]>;
  simRejections(): Promise<Record<string, number>>;
  close(): Promise<void>;
}

export async function startExecHarness(
  options: { tier?: Tier; simConfig?: Record<string, unknown> } = {},
): Promise<ExecHarness> {
  const sim = await startTestSim({ config: options.simConfig ?? {} });
  const key = sim.addAccount({ tier: options.tier ?? 'pro', nonceWindow: 10_000 });
  const prefix = freshPrefix();
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  const bus = new IntentBus({ connection: redis, prefix });
  const flags = new ControlFlags({ connection: redis, prefix });
  await flags.read();
  const lookup = sim.client({ key });
  const pairs = await loadPairs(lookup, ['XBTUSD', 'ETHUSD']);
  const executors: Executor[] = [];
  return {
    sim,
    key,
    prefix,
    redis,
    bus,
    flags,
    pairs,
    ratecountKey: `${prefix}:ratecount`,
    async executor(overrides = {}, owner, restLimiter, connection = redis) {
      const config = parseWithSchema(
        ExecutorConfig,
        { reconcile_interval_ms: 60_000, lease_ttl_ms: 3_000, lease_retry_ms: 200, ...overrides },
        'executor',
      );
      const client = sim.client({
        key,
        tier: options.tier ?? 'pro',
        retry: { retries: 1, baseDelayMs: 5, maxDelayMs: 20 },
        ...(restLimiter === undefined ? {} : { restLimiter }),
      });
      const registry = new Registry();
      const wires: WireSample[] = [];
      const executor = new Executor({
        client,
        bus,
        redis: connection,
        workerRedis: connection,
        pairs,
        instance: 1,
        config,
        ratecountKey: `${prefix}:ratecount`,
        flags,
        metrics: new ExecutorMetrics(registry),
        onWire: (sample) => wires.push(sample),
        ...(owner === undefined ? {} : { owner }),
      });
      executors.push(executor);
      await executor.start();
      return { executor, registry, wires };
    },
    async publish(intents) {
      await bus.publish(intents);
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
    async close() {
      for (const e of executors) await e.stop().catch(() => undefined);
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

/** A place/amend/cancel intent for the harness' instance 1. */
export function intentFor(
  pair: string,
  slot: string,
  desired: { side: 'buy' | 'sell'; price: string; volume: string; postOnly?: boolean } | undefined,
  overrides: Partial<UnpublishedIntent> = {},
): UnpublishedIntent {
  const now = Date.now();
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
            openedAtMs: now,
          }
        : undefined,
    reason: 'test',
    createdAtMs: now,
    deadlineMs: now + 30_000,
    snapshotSeq: 1,
    snapshotAtMs: now,
    ...overrides,
  };
}

export { until } from '../support/until.js';

/**
 * The invariants on the simulator's book: no order placed twice (userrefs encode
 * instance, slot and generation; the pair is the order's own), at most one open order per slot,
 * every open order a live tracker record in a resting state, and no tracked order off the book.
 * Returns the key's open and closed order counts.
 */
export async function assertBookMatchesTracker(
  h: ExecHarness,
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
): { h: ExecHarness; executor: Executor; registry: Registry; wires: WireSample[] } {
  const suite = {} as {
    h: ExecHarness;
    executor: Executor;
    registry: Registry;
    wires: WireSample[];
  };
  before(async () => {
    suite.h = await startExecHarness(harness);
    ({
      executor: suite.executor,
      registry: suite.registry,
      wires: suite.wires,
    } = await suite.h.executor(overrides));
  });
  after(() => suite.h.close());
  return suite;
}
