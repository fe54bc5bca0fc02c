/**
 * Drives a MarketFeed against the simulator under one ManualClock: time moves in small steps and,
 * between steps, the test waits (in real time) until every HTTP call in flight has been answered,
 * so simulated time never runs ahead of I/O.
 */
import assert from 'node:assert/strict';
import { ManualClock, parseWithSchema, type PairInfo } from '../../src/core/index.js';
import {
  RestLimiter,
  type SpotClient,
  type SpotClientOptions,
  type Tier,
} from '../../src/exchange/index.js';
import {
  loadPairs,
  MarketConfig,
  MarketFeed,
  planFromConfig,
  type MarketFeedOptions,
} from '../../src/market/index.js';
import { startTestSim, type KeyPair, type TestSim } from '../support/sim.js';

export const T0 = Date.parse('2026-03-02T09:00:00Z');

export interface Harness {
  readonly sim: TestSim;
  readonly clock: ManualClock;
  /** A client with the REST limiter on, for `key`, counted by `settle()`. */
  client(key: KeyPair, tier: Tier, options?: Partial<SpotClientOptions>): SpotClient;
  /** Advances `ms` in steps, settling I/O after each; `each` runs after every step. */
  run(ms: number, each?: () => void | Promise<void>, stepMs?: number): Promise<void>;
  settle(): Promise<void>;
  feed(
    client: SpotClient,
    pairNames: readonly string[],
    overrides?: Partial<MarketFeedOptions> & { config?: MarketConfig; tier?: Tier },
  ): Promise<{ feed: MarketFeed; pairs: PairInfo[] }>;
  close(): Promise<void>;
}

/** A limit order on XBTUSD, its txid (asserted: the simulator accepted it). */
export async function limitOrder(
  client: SpotClient,
  side: 'buy' | 'sell',
  price: string,
  volume: string,
  extra: { userref?: number; oflags?: string; timeinforce?: 'IOC' } = {},
): Promise<string> {
  const res = await client.addOrder({
    pair: 'XBTUSD',
    type: side,
    ordertype: 'limit',
    price,
    volume,
    ...extra,
  });
  const txid = res.result.txid?.[0];
  assert.ok(txid, `the simulator took the ${side} at ${price}`);
  return txid;
}

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export async function startHarness(simConfig: Record<string, unknown> = {}): Promise<Harness> {
  const clock = new ManualClock(T0);
  const sim = await startTestSim({ clock, config: simConfig });
  const counted: { client: SpotClient; inflight: number }[] = [];
  const feeds: MarketFeed[] = [];

  const busy = (): boolean =>
    counted.some((c) => c.inflight - (c.client.limiter?.snapshot().queued ?? 0) > 0);

  const settle = async (): Promise<void> => {
    let quiet = 0;
    for (let i = 0; i < 2000 && quiet < 5; i++) {
      await turn();
      quiet = busy() ? 0 : quiet + 1;
    }
  };

  return {
    sim,
    clock,
    client(key, tier, options = {}) {
      const client = sim.client({
        key,
        tier,
        restLimiter: new RestLimiter({ tier, clock }),
        ...options,
      });
      const entry = { client, inflight: 0 };
      counted.push(entry);
      const call = client.call.bind(client);
      client.call = async (...args) => {
        entry.inflight += 1;
        try {
          return await call(...args);
        } finally {
          entry.inflight -= 1;
        }
      };
      return client;
    },
    async run(ms, each, stepMs = 100) {
      for (let t = 0; t < ms; t += stepMs) {
        await clock.advance(Math.min(stepMs, ms - t));
        await settle();
        await each?.();
      }
    },
    settle,
    async feed(client, pairNames, overrides = {}) {
      const config = overrides.config ?? parseWithSchema(MarketConfig, {}, 'market');
      const pairs = await loadPairs(client, pairNames);
      const plan = planFromConfig(
        config,
        overrides.tier ?? client.tier,
        pairs.map((p) => p.id),
      );
      const feed = new MarketFeed({
        client,
        pairs,
        config,
        plan,
        instance: 5,
        clock,
        ...overrides,
      });
      feeds.push(feed);
      return { feed, pairs };
    },
    async close() {
      await Promise.all(feeds.map((f) => f.stop()));
      await sim.close();
    },
  };
}
