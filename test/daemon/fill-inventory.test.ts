/**
 * The snapshot's inventory between two balance polls: the last BalanceEx answer moved by the fills
 * the executor's tracker recorded since. Runner role and simulator on one manual clock; the test
 * records the fill as the executor does (the order as QueryOrders shows it, into the tracker).
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { Registry } from 'prom-client';
import type { RedisIntentBus } from '../../src/bus/index.js';
import { ManualClock, dec, encodeUserref, type MarketSnapshot } from '../../src/core/index.js';
import { parseBotConfig } from '../../src/daemon/bot-config.js';
import { startRunnerRole, type RunnerRole } from '../../src/daemon/runner-role.js';
import { nonceKeyFor, RedisNonceSource, type SpotClient } from '../../src/exchange/index.js';
import { executedAtMs, viewOf } from '../../src/executor/exchange-orders.js';
import { silentLogger } from '../../src/obs/index.js';
import { RedisOrderTracker } from '../../src/orders/index.js';
import { deleteKeys, freshPrefix, REDIS_URL } from '../support/redis.js';
import { startTestSim, type KeyPair, type TestSim } from '../support/sim.js';
import { trackedOrder } from '../support/tracked-order.js';
import { until } from '../support/until.js';

const FIXTURES = join(import.meta.dirname, '..', 'runner', 'fixtures');
const PAIR = 'XXBTZUSD';
const BALANCE_EVERY_MS = 120_000;

describe("the snapshot's inventory follows our fills between balance polls", () => {
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  const prefix = freshPrefix();
  const clock = new ManualClock(Date.now());
  let sim: TestSim;
  let ours: KeyPair;
  /** Our key's client beside the runner's: its nonces from the same Redis key as the runner's. */
  let client: SpotClient;
  let role: RunnerRole;
  let tracker: RedisOrderTracker;

  before(async () => {
    sim = await startTestSim({ clock });
    ours = sim.addAccount({ tier: 'pro', balances: { ZUSD: '100000', XXBT: '2' } });
    const settings = parseBotConfig(
      {
        exchange: { url: sim.url, tier: 'pro', credentials: { from: 'env' } },
        redis: { url: REDIS_URL, prefix },
        pairs: [{ pair: 'XBTUSD', strategy: { name: join(FIXTURES, 'good.ts') } }],
        market: {
          polls: {
            balance: { interval_ms: BALANCE_EVERY_MS },
            grouped_book: { enabled: false },
            trades: { enabled: false },
            level3: { enabled: false },
          },
        },
      },
      {},
    );
    role = await startRunnerRole({
      settings,
      clock,
      log: silentLogger(),
      registry: new Registry(),
      strategiesDir: FIXTURES,
      env: { MAKERD_API_KEY: ours.apiKey, MAKERD_API_SECRET: ours.apiSecret },
    });
    tracker = new RedisOrderTracker({ redis, prefix });
    const nonceSource = new RedisNonceSource({ redis, key: nonceKeyFor(ours.apiKey), clock });
    client = sim.client({ key: ours, nonceSource });
  });
  after(async () => {
    await tracker?.close();
    await (role?.bus as RedisIntentBus | undefined)?.queueFor(PAIR).obliterate({ force: true });
    await role?.stop();
    await sim?.close();
    await deleteKeys(redis, prefix);
    redis.disconnect();
  });

  const snapshot = (): MarketSnapshot => role.feed.snapshot(PAIR);
  const totals = (s: MarketSnapshot): [string, string] => [
    s.inventory.base.total.toFixed(),
    s.inventory.quote.total.toFixed(),
  ];
  /** What the simulator holds for our key now. */
  const simTotals = async (): Promise<[string, string]> => {
    const { result } = await client.balanceEx({});
    return [
      dec(result.XXBT?.balance ?? 'NaN').toFixed(),
      dec(result.ZUSD?.balance ?? 'NaN').toFixed(),
    ];
  };
  /** Advances `ms`, then waits for a balance answer newer than `before`; its time. */
  const balanceAfter = async (ms: number, before?: number): Promise<number> => {
    await clock.advance(ms);
    return until('a balance answer', () => {
      const at = snapshot().sources.balance.receivedAtMs;
      return at !== undefined && at !== before ? at : undefined;
    });
  };

  it('shows a fill at once, and the next balance answer does not count it again', async () => {
    // The first polls run within 3 s of start.
    const polledAt = await balanceAfter(3_000);
    assert.deepEqual(totals(snapshot()), ['2', '100000']);

    const userref = encodeUserref(1, { side: 'buy', level: 0 }, 1);
    const placed = await client.addOrder({
      pair: 'XBTUSD',
      type: 'buy',
      ordertype: 'limit',
      price: '50000',
      volume: '0.5',
      oflags: 'post,fciq',
      userref,
    });
    const txid = placed.result.txid?.[0];
    assert.ok(txid);
    const record = trackedOrder({
      txid,
      userref,
      price: '50000',
      volume: '0.5',
      openedAtMs: clock.now(),
    });
    await tracker.put(record);
    await clock.advance(1_000);
    await sim
      .client()
      .addOrder({ pair: 'XBTUSD', type: 'sell', ordertype: 'market', volume: '0.5' });
    // As the executor records it: QueryOrders' view of the order, timed by its close.
    const order = (await client.queryOrders({ txid })).result[txid];
    assert.ok(order !== undefined && order.status === 'closed');
    const fill = await tracker.applyView(
      viewOf(txid, order, record, PAIR, clock.now()),
      executedAtMs(order, clock.now()),
    );
    assert.ok(fill !== undefined, 'the tracker recorded the fill');

    const filled = await simTotals();
    assert.notDeepEqual(filled, ['2', '100000']);
    const moved = await until('the fill in the snapshot', () => {
      const s = snapshot();
      return s.inventory.base.total.eq(2) ? undefined : s;
    });
    assert.equal(moved.sources.balance.receivedAtMs, polledAt, 'no balance poll since');
    assert.deepEqual(totals(moved), filled, 'what the simulator holds, to the last digit');
    // The XXBT bought is available at once; the ZUSD paid was held by the order.
    assert.equal(moved.inventory.base.available.toFixed(), filled[0]);

    const every = role.plan.polls.find((p) => p.id === 'balance')?.intervalMs;
    assert.equal(every, BALANCE_EVERY_MS);
    await balanceAfter(polledAt + every - clock.now(), polledAt);
    assert.deepEqual(totals(snapshot()), filled, 'the answer holds the fill: counted once');
  });
});
