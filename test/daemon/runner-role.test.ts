import type { RedisIntentBus } from '../../src/bus/index.js';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { parseBotConfig } from '../../src/daemon/bot-config.js';
import { startRunnerRole, type RunnerRole } from '../../src/daemon/runner-role.js';
import { dec, encodeUserref } from '../../src/core/index.js';
import { silentLogger } from '../../src/obs/index.js';
import { startTestSim, type KeyPair, type TestSim } from '../support/sim.js';
import { until } from '../support/until.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const STRATEGIES = join(import.meta.dirname, '..', '..', 'strategies');

async function metricValue(registry: Registry, name: string, labels: Record<string, string>) {
  const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === name);
  return (metric?.values ?? [])
    .filter((v) => Object.entries(labels).every(([k, want]) => v.labels[k] === want))
    .reduce((sum, v) => sum + v.value, 0);
}

describe('runner role against the simulator and Redis', () => {
  let sim: TestSim;
  let role: RunnerRole;
  let key: KeyPair;
  const registry = new Registry();
  const prefix = `test-runner-${randomBytes(4).toString('hex')}`;

  before(async () => {
    sim = await startTestSim({ config: { background: { enabled: true, seed: 7 } } });
    key = sim.addAccount({ tier: 'pro' });
    const settings = parseBotConfig(
      {
        exchange: { url: sim.url, tier: 'pro', credentials: { from: 'env' } },
        redis: { url: REDIS_URL, prefix },
        pairs: [
          { pair: 'XBTUSD', strategy: { name: 'spread', options: { levels: 2 } } },
          {
            pair: 'ETH/USD',
            strategy: {
              name: 'avellaneda-stoikov',
              options: { order_size: '0.1', target_base: '1000', max_inventory: '100' },
            },
          },
        ],
        market: { polls: { depth: { interval_ms: 300 }, open_orders: { interval_ms: 1000 } } },
        runner: { republish_after_ms: 1_000 },
      },
      {},
    );
    role = await startRunnerRole({
      settings,
      log: silentLogger(),
      registry,
      strategiesDir: STRATEGIES,
      env: { MAKERD_API_KEY: key.apiKey, MAKERD_API_SECRET: key.apiSecret },
    });
  });

  after(async () => {
    for (const p of ['XXBTZUSD', 'XETHZUSD'])
      await (role?.bus as RedisIntentBus | undefined)?.queueFor(p).obliterate({ force: true });
    await role?.stop();
    await sim?.close();
  });

  it("reserves the executor's periodic syncs out of the key's REST budget before planning polls", () => {
    // Two pairs, OpenOrders and ClosedOrders each every 30 s (the executor's default).
    assert.ok(Math.abs(role.plan.private.reservePerSec - (2 * 2) / 30) < 1e-9);
    assert.ok(
      role.plan.private.plannedPerSec <= role.plan.private.availablePerSec + 1e-9,
      JSON.stringify(role.plan.private),
    );
  });

  it('quotes both pairs with the built-in strategies into pending intents on the queue', async () => {
    for (const [pair, levels] of [
      ['XXBTZUSD', 2],
      ['XETHZUSD', 1],
    ] as const) {
      const pending = await until(`intents for ${pair}`, async () => {
        const p = await role.bus.pending(pair);
        return p.length >= levels * 2 ? p : undefined;
      });
      const snap = role.feed.snapshot(pair);
      assert.ok(snap.mid, 'the snapshot has a mid');
      const mid = snap.mid;
      for (const intent of pending) {
        assert.equal(intent.action, 'place');
        assert.equal(intent.desired?.postOnly, true);
        const price = dec(intent.desired?.price ?? 'NaN');
        if (intent.slot.startsWith('bid'))
          assert.ok(price.lt(mid), `${intent.slot} ${price.toFixed()} below ${mid.toFixed()}`);
        else assert.ok(price.gt(mid), `${intent.slot} ${price.toFixed()} above ${mid.toFixed()}`);
      }
      const jobs = await (role.bus as RedisIntentBus)
        .queueFor(pair)
        .getJobs(['waiting', 'prioritized', 'delayed']);
      assert.ok(
        jobs.some((j) => (j.data as { pair?: string }).pair === pair),
        `a queue job wakes the executor for ${pair}`,
      );
    }
  });

  it('coalesces newer intents over ones the executor has not taken', async () => {
    await until('a coalesced intent', async () =>
      (await metricValue(registry, 'makerd_intents_coalesced_total', {})) > 0 ? true : undefined,
    );
    const pending = await role.bus.pending('XXBTZUSD');
    const slots = pending.map((i) => i.slot);
    assert.equal(new Set(slots).size, slots.length, 'one pending intent per slot');
    assert.ok(
      pending.some((i) => i.generation > 1),
      'a later generation replaced the first',
    );
  });

  it('pulls our live quotes when the market data goes stale', async () => {
    const client = sim.client({ key });
    const mid = role.feed.snapshot('XXBTZUSD').mid;
    assert.ok(mid);
    const placed = await client.addOrder({
      pair: 'XBTUSD',
      type: 'buy',
      ordertype: 'limit',
      price: mid.times('0.9').toFixed(1),
      volume: '0.01',
      oflags: 'post',
      userref: encodeUserref(1, { side: 'buy', level: 0 }, 9),
    });
    const txid = placed.result.txid?.[0];
    assert.ok(txid);
    await until('the runner to see our order', () =>
      Promise.resolve(
        role.feed.snapshot('XXBTZUSD').openOrders.some((o) => o.txid === txid) ? true : undefined,
      ),
    );
    await sim.admin('POST', '/_sim/faults', { paths: ['Depth'], http_5xx_rate: 1 });
    try {
      const pulled = await until('a pull of our order', async () => {
        const pending = await role.bus.pending('XXBTZUSD');
        return pending.find((i) => i.target?.txid === txid && i.reason === 'pulled:stale');
      });
      assert.equal(pulled.action, 'cancel');
      assert.equal(pulled.slot, 'bid:0');
      assert.ok(role.feed.snapshot('XXBTZUSD').staleSources.includes('depth'));
    } finally {
      await sim.admin('POST', '/_sim/faults', {});
    }
  });

  it('never earned a REST-counter or public-limit refusal from the simulator', () => {
    const refusals = [...sim.sim.server.rejections].filter(([error]) =>
      /Rate limit|Throttled/.test(error),
    );
    assert.deepEqual(refusals, []);
  });
});
