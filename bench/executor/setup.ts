/**
 * What both contenders share: the high-resolution clock, a fresh simulator per run in a child
 * process of its own (bench/executor/sim-process.ts; background market on, fixed seed, so both
 * contenders of a tier see the same market), a funded key of the run's tier made through the
 * simulator's admin API, the market feed as the runner role builds it, Redis, and the simulator's
 * state read over its admin API.
 */
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import { errorMessage, parseWithSchema, type PairInfo } from '../../src/core/index.js';
import { signedChannel } from '../../src/exchange/client/diagnostics.js';
import type { SpotClient, Tier } from '../../src/exchange/index.js';
import {
  DEFAULT_HEARTBEAT,
  MarketConfig,
  MarketFeed,
  planBudget,
  wishesFor,
  executorSyncPerSec,
  type BudgetPlan,
} from '../../src/market/index.js';
import { ExecutorConfig } from '../../src/executor/index.js';
import { RunnerConfig } from '../../src/runner/config.js';
import { hrClock, startSimProcess, type SimProcess } from './sim-process.js';

export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * Sub-millisecond wall clock for every part: simulator (in its process), feed, runner, executor,
 * samplers. Each process reads performance.timeOrigin + performance.now() of its own; both follow
 * the system's wall clock.
 */
export { hrClock };

export const PAIR_NAMES = ['XBTUSD', 'ETHUSD'] as const;
/** The bot instance in both contenders' userrefs (each contender has its own key). */
export const INSTANCE = 1;
export const SIM_SEED = 20_260_301;

/** Depth every 250 ms per pair (public budget); no GroupedBook, Trades or Level3: not quoted on. */
export const marketConfig: MarketConfig = parseWithSchema(
  MarketConfig,
  {
    public_budget: { calls_per_sec: 10 },
    polls: {
      depth: { interval_ms: 250 },
      grouped_book: { enabled: false },
      trades: { enabled: false },
      level3: { enabled: false },
    },
  },
  'market',
);

export const runnerConfig: RunnerConfig = parseWithSchema(
  RunnerConfig,
  { price_tolerance_bps: 0, volume_tolerance: 0 },
  'runner',
);

/** As config/paper.yaml: the bench keys have a nonce window, so calls on different slots overlap. */
export const executorConfig: ExecutorConfig = parseWithSchema(
  ExecutorConfig,
  { max_calls_in_flight: 4 },
  'executor',
);

export interface KeyPair {
  readonly apiKey: string;
  readonly apiSecret: string;
}

/** The benchmark's simulator: its own process, reached over HTTP only. */
export type BenchSim = SimProcess;

/**
 * A fresh simulator process (background market on, seed SIM_SEED, ids seeded with SIM_SEED,
 * 127.0.0.1 on a free port, the high-resolution clock) with a funded key of `tier` on it. The
 * process is stopped again if the key cannot be made; otherwise the caller closes it.
 */
export async function startBenchSim(
  tier: Tier,
  who: string,
  cpus: string | undefined,
): Promise<{ sim: BenchSim; key: KeyPair }> {
  const sim = await startSimProcess({ seed: SIM_SEED, cpus });
  try {
    return { sim, key: await addKey(sim, tier, who) };
  } catch (err) {
    await sim.close();
    throw err;
  }
}

/**
 * The bench keys' nonce window at the simulator (nonce units: ms for our nonces). makerd is told
 * it (exchange.nonce_window), so its executor signs with nonces from blocks taken ahead.
 */
export const NONCE_WINDOW = 10_000;

/** A key of `tier` with every permission and ample balances (POST /_sim/accounts). */
export async function addKey(sim: BenchSim, tier: Tier, who: string): Promise<KeyPair> {
  const apiKey = `bench-${who}-${tier}-${randomBytes(4).toString('hex')}`;
  const apiSecret = randomBytes(64).toString('base64');
  const res = await fetch(`${sim.url}/_sim/accounts`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      key: apiKey,
      secret: apiSecret,
      tier,
      balances: { ZUSD: '10000000', XXBT: '1000', XETH: '10000' },
      nonce_window: NONCE_WINDOW,
    }),
  });
  if (!res.ok) {
    throw new Error(`POST /_sim/accounts answered HTTP ${res.status}: ${await res.text()}`);
  }
  await res.arrayBuffer();
  return { apiKey, apiSecret };
}

/**
 * The feed's poll plan as runner-role makes it. The executor's reconciliation (OpenOrders +
 * ClosedOrders per pair every reconcile_interval_ms) is reserved out of the key's REST budget;
 * its unknown-outcome queries are not (they cannot be planned).
 */
export function planFor(tier: Tier, pairs: readonly PairInfo[]): BudgetPlan {
  return planBudget({
    tier,
    wishes: wishesFor(
      marketConfig,
      pairs.map((p) => p.id),
    ),
    utilization: marketConfig.utilization,
    privateReservePerSec: executorSyncPerSec(
      PAIR_NAMES.length,
      executorConfig.reconcile_interval_ms,
    ),
    heartbeat: DEFAULT_HEARTBEAT,
    publicCallsPerSec: marketConfig.public_budget.calls_per_sec,
  });
}

export function feedFor(client: SpotClient, pairs: readonly PairInfo[], tier: Tier): MarketFeed {
  return new MarketFeed({
    client,
    pairs,
    config: marketConfig,
    plan: planFor(tier, pairs),
    instance: INSTANCE,
    clock: hrClock,
  });
}

export interface RedisFacts {
  /** PING round trip, median, ms. */
  readonly pingMs: number;
  /**
   * PING round trip after 50 ms of idleness, median, ms: what the one round trip before the wire
   * costs when the bot and Redis were asleep between ticks (CPU wake-ups in a VM).
   */
  readonly idlePingMs: number;
}

/** Fails with a clear message when Redis is not there, before any run starts. */
export async function checkRedis(): Promise<RedisFacts> {
  const redis = new Redis(REDIS_URL, {
    lazyConnect: true,
    maxRetriesPerRequest: 1,
    retryStrategy: () => null,
    connectTimeout: 3_000,
  });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    await redis.ping();
  } catch (err) {
    redis.disconnect();
    throw new Error(
      `Redis is not reachable at ${REDIS_URL} (${errorMessage(err)}).\n` +
        'This benchmark runs the real intent bus and executor on Redis: start one ' +
        '(e.g. `redis-server` or `docker run -p 6379:6379 redis:7`) or set REDIS_URL.',
    );
  }
  try {
    /** Times `op`, or takes the time it returns itself (`timed`). */
    const median = async (
      n: number,
      op: () => Promise<unknown>,
      timed = false,
    ): Promise<number> => {
      const times: number[] = [];
      for (let i = 0; i < n; i++) {
        const t0 = performance.now();
        const own = await op();
        times.push(timed ? Number(own) : performance.now() - t0);
      }
      times.sort((a, b) => a - b);
      return times[Math.floor(times.length / 2)] ?? Number.NaN;
    };
    // Off the fast path a call waits for one Redis round trip before it is signed (reserve,
    // write-ahead, nonce).
    const pingMs = await median(200, () => redis.ping());
    const idlePingMs = await median(
      40,
      async () => {
        await new Promise((r) => setTimeout(r, 50));
        const t0 = performance.now();
        await redis.ping();
        return performance.now() - t0;
      },
      true,
    );
    return { pingMs, idlePingMs };
  } finally {
    redis.disconnect();
  }
}

/** What /_sim/state says about one key. */
export interface SimFigures {
  /** Ratecount points the simulator charged per pair id. */
  readonly chargedByPair: Record<string, number>;
  readonly rejections: Record<string, number>;
  readonly openOrders: number;
  readonly trades: number;
}

interface SimState {
  readonly ratecount?: Record<string, Record<string, { charged?: number }>>;
  readonly rejections?: Record<string, number>;
  readonly open_orders?: readonly { key: string }[];
  readonly trade_count?: number;
}

export async function readSimState(sim: BenchSim, apiKey: string): Promise<SimFigures> {
  const res = await fetch(`${sim.url}/_sim/state`);
  if (!res.ok) throw new Error(`/_sim/state answered HTTP ${res.status}`);
  const state = (await res.json()) as SimState;
  const chargedByPair: Record<string, number> = {};
  for (const [pair, meter] of Object.entries(state.ratecount?.[apiKey] ?? {})) {
    chargedByPair[pair] = meter.charged ?? 0;
  }
  return {
    chargedByPair,
    rejections: { ...state.rejections },
    openOrders: (state.open_orders ?? []).filter((o) => o.key === apiKey).length,
    trades: state.trade_count ?? 0,
  };
}

/** The order-entry endpoints: they cost ratecount points, not REST counter points. */
export const ORDER_ENTRY: ReadonlySet<string> = new Set([
  'AddOrder',
  'AddOrderBatch',
  'EditOrder',
  'CancelOrder',
  'CancelOrderBatch',
]);

/**
 * Counts requests signed in this process (the client's diagnostics channel), by endpoint:
 * order entry, and the other private calls (REST counter), the same way for both contenders.
 */
export function countSigned(): {
  orderEntry: Map<string, number>;
  rest: Map<string, number>;
  stop: () => void;
} {
  const orderEntry = new Map<string, number>();
  const rest = new Map<string, number>();
  const onSigned = (message: unknown): void => {
    const { endpoint = '', family = '' } = message as { endpoint?: string; family?: string };
    const into = ORDER_ENTRY.has(endpoint) ? orderEntry : family === 'private' ? rest : undefined;
    into?.set(endpoint, (into.get(endpoint) ?? 0) + 1);
  };
  signedChannel.subscribe(onSigned);
  return { orderEntry, rest, stop: () => signedChannel.unsubscribe(onSigned) };
}
