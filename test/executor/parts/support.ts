/**
 * One pair's PairContext over the in-process stores (MemoryOrderTracker, MemoryRatecountStore,
 * MemoryIntentBus, MemoryLeases, MemoryControlFlags) and a simulator, all on one ManualClock: the
 * executor's parts (drain, order calls, failures, the wake timer) tested without Redis.
 */
import { Registry } from 'prom-client';
import {
  MemoryControlFlags,
  MemoryIntentBus,
  type UnpublishedIntent,
} from '../../../src/bus/index.js';
import { ManualClock, parseWithSchema, type PairInfo } from '../../../src/core/index.js';
import { InProcessNonceSource, type SpotClient, type Tier } from '../../../src/exchange/index.js';
import { MATCHING_ENGINE } from '../../../src/exchange/limits/index.js';
import {
  ExecutorConfig,
  ExecutorMetrics,
  MemoryLeases,
  MemoryRatecountStore,
  type Lease,
} from '../../../src/executor/index.js';
import { OrderReads } from '../../../src/executor/exchange-orders.js';
import { PairContext } from '../../../src/executor/pair-context.js';
import { WireTimes } from '../../../src/executor/wire-times.js';
import { loadPairs } from '../../../src/market/index.js';
import { MemoryOrderTracker, type TrackedOrder } from '../../../src/orders/index.js';
import { logCollector, type LogEntry } from '../../safety/log-collector.js';
import { metricValue } from '../../support/metrics.js';
import { startTestSim, type TestSim } from '../../support/sim.js';
import { intentFor, type SimOrder } from '../harness.js';

export interface Parts {
  readonly ctx: PairContext;
  readonly pair: PairInfo;
  readonly clock: ManualClock;
  readonly sim: TestSim;
  readonly client: SpotClient;
  readonly tracker: MemoryOrderTracker;
  readonly ratecount: MemoryRatecountStore;
  readonly bus: MemoryIntentBus;
  readonly leases: MemoryLeases;
  readonly lease: Lease;
  readonly flags: MemoryControlFlags;
  readonly wire: WireTimes;
  readonly logs: LogEntry[];
  /** A metric's value for this pair (labels added to `pair`). */
  metric(name: string, labels?: Record<string, string>): Promise<number>;
  /** A place (or, without `desired`, cancel) intent for the pair, stamped now. */
  intent(
    slot: string,
    desired?: { side: 'buy' | 'sell'; price: string; volume: string },
    overrides?: Partial<UnpublishedIntent>,
  ): UnpublishedIntent;
  /** The key's open orders on the simulator. */
  simOrders(): Promise<SimOrder[]>;
  /** Moves the clock and runs the simulator's time-driven work. */
  advance(ms: number): Promise<void>;
  close(): Promise<void>;
}

export async function startParts(
  options: { tier?: Tier; config?: Partial<ExecutorConfig> } = {},
): Promise<Parts> {
  const tier = options.tier ?? 'pro';
  const clock = new ManualClock(Math.floor(Date.now()));
  const sim = await startTestSim({ clock });
  const key = sim.addAccount({ tier, nonceWindow: 10_000 });
  const client = sim.client({
    key,
    tier,
    retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 5 },
    nonceWindow: 10_000,
    nonceSource: new InProcessNonceSource({ clock }),
  });
  const [pair] = await loadPairs(client, ['XBTUSD']);
  if (pair === undefined) throw new Error('the simulator has no XBTUSD');
  const leases = new MemoryLeases('makerd-test', clock);
  // An hour: tests move the clock by minutes and the lease is not what they test.
  const lease = leases.lease(pair.id, 'parts', 3_600_000);
  if (!(await lease.tryAcquire())) throw new Error('lease not acquired');
  const tracker = new MemoryOrderTracker({ fenceHolder: (k) => leases.holder(k) });
  const ratecount = new MemoryRatecountStore(MATCHING_ENGINE[tier]);
  const bus = new MemoryIntentBus('makerd-test');
  const flags = new MemoryControlFlags(clock);
  await flags.read();
  const registry = new Registry();
  const metrics = new ExecutorMetrics(registry);
  const logs: LogEntry[] = [];
  const config = parseWithSchema(ExecutorConfig, options.config ?? {}, 'executor');
  const ctx = new PairContext({
    pair,
    instance: 1,
    client,
    bus,
    tracker,
    ratecount,
    reads: new OrderReads(client),
    lease,
    flags,
    config,
    limits: ratecount.limits,
    clock,
    metrics,
    log: logCollector(logs),
  });
  return {
    ctx,
    pair,
    clock,
    sim,
    client,
    tracker,
    ratecount,
    bus,
    leases,
    lease,
    flags,
    wire: new WireTimes(pair.id, ctx.label, metrics, undefined),
    logs,
    metric: (name, labels = {}) => metricValue(registry, name, { pair: ctx.label, ...labels }),
    intent: (slot, desired, overrides = {}) =>
      intentFor(pair.id, slot, desired, overrides, clock.now()),
    simOrders: async () => {
      const { body } = await sim.admin('GET', '/_sim/state');
      return ((body as { open_orders: SimOrder[] }).open_orders ?? []).filter(
        (o) => o.key === key.apiKey,
      );
    },
    advance: async (ms) => {
      await clock.advance(ms);
      sim.tick();
    },
    close: () => sim.close(),
  };
}

/** A resting bid of ours as the tracker would hold it after its AddOrder was answered. */
export function restingBid(
  parts: Pick<Parts, 'pair' | 'clock'>,
  overrides: Partial<TrackedOrder> = {},
): TrackedOrder {
  const now = parts.clock.now();
  return {
    userref: 4242,
    txid: 'OTEST-1',
    pair: parts.pair.id,
    slot: 'bid:0',
    generation: 1,
    side: 'buy',
    price: '49000.0',
    volume: '0.01',
    volumeExecuted: '0',
    cost: '0',
    fee: '0',
    postOnly: true,
    feeIn: 'quote',
    state: 'open',
    openedAtMs: now,
    sentAtMs: now,
    deadlineMs: now + 3_000,
    updatedAtMs: now,
    pendingCall: null,
    replaces: null,
    reason: null,
    origin: 'placed',
    ...overrides,
  };
}
