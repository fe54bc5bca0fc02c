import type { RedisIntentBus } from '../../src/bus/index.js';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { Registry } from 'prom-client';
import { RedisControlFlags } from '../../src/bus/index.js';
import { AuditTrail } from '../../src/daemon/audit-trail.js';
import { parseBotConfig } from '../../src/daemon/bot-config.js';
import { startRunnerRole, type RunnerRole } from '../../src/daemon/runner-role.js';
import { silentLogger } from '../../src/obs/index.js';
import { deleteKeys, freshPrefix, REDIS_URL } from '../support/redis.js';
import { startTestSim, type TestSim } from '../support/sim.js';
import { until } from '../support/until.js';

const STRATEGIES = join(import.meta.dirname, '..', '..', 'strategies');

describe('runner role: the risk limits check quotes before they are sent', () => {
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  const prefix = freshPrefix();
  let sim: TestSim;
  let role: RunnerRole;

  before(async () => {
    sim = await startTestSim({ config: { background: { enabled: true, seed: 7 } } });
    const key = sim.addAccount({ tier: 'pro' });
    const settings = parseBotConfig(
      {
        exchange: { url: sim.url, tier: 'pro', credentials: { from: 'env' } },
        redis: { url: REDIS_URL, prefix },
        pairs: [{ pair: 'XBTUSD', strategy: { name: 'spread', options: { min_spread_bps: 40 } } }],
        market: { polls: { depth: { interval_ms: 300 } } },
        // The spread quotes 20 bps either side of mid: a 5 bps band refuses them.
        supervisor: { risk: { quote_band_bps: 5 } },
      },
      {},
    );
    role = await startRunnerRole({
      settings,
      log: silentLogger(),
      registry: new Registry(),
      strategiesDir: STRATEGIES,
      env: { MAKERD_API_KEY: key.apiKey, MAKERD_API_SECRET: key.apiSecret },
    });
  });
  after(async () => {
    await (role?.bus as RedisIntentBus | undefined)
      ?.queueFor('XXBTZUSD')
      .obliterate({ force: true });
    await role?.stop();
    await sim?.close();
    await deleteKeys(redis, prefix);
    redis.disconnect();
  });

  it('halts instead of publishing quotes outside the band around mid', async () => {
    const flags = new RedisControlFlags({ connection: redis, prefix });
    const halt = await until('the halt flag', async () => {
      const s = await flags.read();
      return s.halted ? s : undefined;
    });
    assert.equal(halt.by, 'runner');
    assert.match(
      String(halt.reason),
      /^risk: XBTUSD: (buy|sell) at \d+(\.\d+)? is \d+ bps from mid \d+(\.\d+)?, quote_band_bps 5$/,
    );
    assert.deepEqual(await role.bus.pending('XXBTZUSD'), [], 'no intent published');
    const [entry] = await until('the halt on the audit trail', async () => {
      const entries = await new AuditTrail(redis, prefix).recent(10);
      return entries.length > 0 ? entries : undefined;
    });
    assert.deepEqual(
      [entry?.door, entry?.actor, entry?.action, entry?.reason, entry?.changed, entry?.outcome],
      ['runner', 'runner', 'halt', halt.reason, true, 'halted'],
    );
  });
});
