import type { RedisIntentBus } from '../../src/bus/index.js';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { parseBotConfig } from '../../src/daemon/bot-config.js';
import { startExecutorRole, type ExecutorRole } from '../../src/daemon/executor-role.js';
import { openRoleBase, type LiveRoleBase } from '../../src/daemon/role-base.js';
import { startRunnerRole, type RunnerRole } from '../../src/daemon/runner-role.js';
import { createLogger } from '../../src/obs/index.js';
import { deleteKeys } from '../support/redis.js';
import { startTestSim, type TestSim } from '../support/sim.js';
import { until } from '../support/until.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const FIXTURES = join(import.meta.dirname, '..', 'runner', 'fixtures');

/**
 * One source of fills: the runner's OpenOrders answer reaches the executor through Redis, its
 * tracker records the fill (PnL, metrics), and the strategy's fill hook hears that same fill.
 */
describe('a fill of our order, from the exchange to the strategy', () => {
  let sim: TestSim;
  let base: LiveRoleBase;
  let runner: RunnerRole;
  let executor: ExecutorRole;
  const lines: Record<string, unknown>[] = [];
  const prefix = `test-fills-${randomBytes(4).toString('hex')}`;

  before(async () => {
    sim = await startTestSim({ config: { background: { enabled: true, seed: 7 } } });
    const key = sim.addAccount({ tier: 'pro' });
    const settings = parseBotConfig(
      {
        exchange: { url: sim.url, tier: 'pro', credentials: { from: 'env' } },
        redis: { url: REDIS_URL, prefix },
        pairs: [{ pair: 'XBTUSD', strategy: { name: join(FIXTURES, 'fill-recorder.ts') } }],
        market: { polls: { depth: { interval_ms: 300 }, open_orders: { interval_ms: 500 } } },
      },
      {},
    );
    const log = createLogger({
      destination: new Writable({
        write(chunk: Buffer, _enc, done) {
          for (const l of chunk.toString().split('\n'))
            if (l !== '') lines.push(JSON.parse(l) as Record<string, unknown>);
          done();
        },
      }),
    });
    const env = { MAKERD_API_KEY: key.apiKey, MAKERD_API_SECRET: key.apiSecret };
    base = await openRoleBase(settings, { env });
    const registry = new Registry();
    const parts = { settings, log, registry, base };
    executor = await startExecutorRole(parts);
    runner = await startRunnerRole({ ...parts, strategiesDir: FIXTURES });
  });
  after(async () => {
    await runner?.stop();
    await executor?.stop();
    await (base?.bus as RedisIntentBus | undefined)
      ?.queueFor('XXBTZUSD')
      .obliterate({ force: true });
    if (base !== undefined) await deleteKeys(base.redis, prefix);
    await base?.close();
    await sim?.close();
  });

  it('reaches the strategy as the tracker recorded it', async () => {
    const account = sim.ctx.accounts.get(base.apiKey);
    assert.ok(account);
    const ours = await until('our bid on the book', () => sim.ctx.engine.openOrders(account).at(0));
    const taker = sim.client({ key: sim.addAccount() });
    await taker.addOrder({ pair: 'XBTUSD', type: 'sell', ordertype: 'market', volume: '0.004' });
    const heard = await until('the strategy hears the fill', () =>
      lines.find((l) => l.msg === 'strategy heard a fill'),
    );
    // The background market's takers may fill it too: the first fill heard is the first recorded.
    const first = (await executor.executor.tracker.fills('XXBTZUSD')).at(-1);
    assert.deepEqual(
      [heard.txid, heard.side, heard.price, heard.volume],
      [ours.txid, 'buy', first?.price, first?.volume],
    );
  });
});
