import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { Registry } from 'prom-client';
import { RedisControlFlags, type RedisIntentBus } from '../../src/bus/index.js';
import { ManualClock } from '../../src/core/index.js';
import { parseBotConfig } from '../../src/daemon/bot-config.js';
import { readTradedPairs } from '../../src/daemon/traded-pairs.js';
import { startRunnerRole, type RunnerRole } from '../../src/daemon/runner-role.js';
import { silentLogger } from '../../src/obs/index.js';
import { RedisOrderTracker } from '../../src/orders/index.js';
import { deleteKeys, freshPrefix, REDIS_URL } from '../support/redis.js';
import { startTestSim, type TestSim } from '../support/sim.js';
import { trackedOrder } from '../support/tracked-order.js';
import { until } from '../support/until.js';

const STRATEGIES = join(import.meta.dirname, '..', '..', 'strategies');

describe("runner role: the executor's writes arrive as events, not by a poll", () => {
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  const prefix = freshPrefix();
  // Never advanced: whatever arrives here arrives without the runner's polls.
  const clock = new ManualClock(Date.now());
  let sim: TestSim;
  let role: RunnerRole;
  let executorTracker: RedisOrderTracker;

  before(async () => {
    sim = await startTestSim();
    const key = sim.addAccount({ tier: 'pro' });
    const settings = parseBotConfig(
      {
        exchange: { url: sim.url, tier: 'pro', credentials: { from: 'env' } },
        redis: { url: REDIS_URL, prefix },
        pairs: [{ pair: 'XBTUSD', strategy: { name: 'spread' } }],
      },
      {},
    );
    role = await startRunnerRole({
      settings,
      clock,
      log: silentLogger(),
      registry: new Registry(),
      strategiesDir: STRATEGIES,
      env: { MAKERD_API_KEY: key.apiKey, MAKERD_API_SECRET: key.apiSecret },
    });
    executorTracker = new RedisOrderTracker({ redis, prefix });
  });
  after(async () => {
    await executorTracker?.close();
    await (role?.bus as RedisIntentBus | undefined)
      ?.queueFor('XXBTZUSD')
      .obliterate({ force: true });
    await role?.stop();
    await sim?.close();
    await deleteKeys(redis, prefix);
    redis.disconnect();
  });

  it('records the pairs it trades, for a status with the exchange down', async () => {
    assert.deepEqual(await readTradedPairs(redis, prefix), [{ id: 'XXBTZUSD', altname: 'XBTUSD' }]);
  });

  it('a fill the executor records reaches PnL and the published report at once', async () => {
    const order = trackedOrder({ price: '50000', volume: '0.1', openedAtMs: clock.now() });
    await executorTracker.put(order);
    // As the executor records a fill: a view of the order that executed more.
    const fill = await executorTracker.applyView(
      { ...order, volumeExecuted: '0.04', cost: '2000', fee: '0.5', state: 'partially-filled' },
      clock.now(),
    );
    assert.ok(fill !== undefined, 'the tracker recorded a fill');

    const summary = await until('the fill in the runner’s PnL', () => {
      const s = role.pnl.report().pairs.XBTUSD;
      return s !== undefined && s.fills === 1 ? s : undefined;
    });
    assert.equal(summary.volumeBase, '0.04');
    assert.equal(summary.fees, '0.5');
    const flags = new RedisControlFlags({ connection: redis, prefix });
    const published = await until('the report another process reads', async () => {
      const r = (await flags.reported('pnl')) as
        { pairs?: Record<string, { fills?: number }> } | undefined;
      return r?.pairs?.XBTUSD?.fills === 1 ? r : undefined;
    });
    assert.ok(published);
  });
});
