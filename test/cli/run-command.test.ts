import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { stringify } from 'yaml';
import { deleteKeys, freshPrefix, REDIS_URL } from '../support/redis.js';
import { makerd, stop } from '../support/spawn.js';
import { until, type SimStateView } from '../support/until.js';

const SIM_YAML = fileURLToPath(new URL('../../config/sim.yaml', import.meta.url));
const KEY = 'paper-key';

describe('makerd run', () => {
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  const sim = makerd(['sim', '--port', '0', '--config', SIM_YAML, '--seed', '5']);
  let simUrl: string;
  const configFor = (prefix: string): string => {
    const dir = mkdtempSync(join(tmpdir(), 'makerd-run-'));
    const file = join(dir, 'makerd.yaml');
    writeFileSync(
      file,
      stringify({
        exchange: {
          url: simUrl,
          tier: 'starter',
          credentials: { from: 'simulator', account: KEY, sim_config: SIM_YAML },
        },
        redis: { url: REDIS_URL, prefix },
        pairs: [{ pair: 'XBTUSD', strategy: { name: 'spread', options: { levels: 1 } } }],
        http: { port: 0 },
        supervisor: {
          heartbeat: { timeout_s: 30, interval_s: 10 },
          status: { interval_ms: 500 },
        },
      }),
    );
    return file;
  };
  const state = async (): Promise<SimStateView> =>
    (await (await fetch(`${simUrl}/_sim/state`)).json()) as SimStateView;
  const ours = async () => (await state()).open_orders.filter((o) => o.key === KEY);

  before(async () => {
    simUrl = String((await sim.waitFor('makerd sim listening')).url);
  });
  after(async () => {
    await stop(sim.child);
    redis.disconnect();
  });

  it('quotes, keeps the dead-man timer armed, and on SIGTERM stops, cancels, disarms and exits 0', async (t) => {
    const prefix = freshPrefix();
    const bot = makerd(['run', '--config', configFor(prefix), '--status-every', '0']);
    try {
      const running = await bot.waitFor('makerd running', 30_000);
      assert.match(String(running.http), /^http:\/\/127\.0\.0\.1:\d+$/);
      await until('our quotes on the book', async () =>
        (await ours()).length === 2 ? true : undefined,
      );
      await until('the dead-man timer armed', async () => (await state()).dead_man[KEY], 30_000);
      const termAt = Date.now();
      assert.equal(await stop(bot.child), 0);
      t.diagnostic(`SIGTERM → stopped, cancelled, disarmed, exited: ${Date.now() - termAt} ms`);
      const done = bot.lines.find(
        (l) => l.msg === 'shutdown: orders cancelled, dead-man timer disarmed',
      );
      assert.equal(done?.disarmed, true);
      assert.deepEqual(await ours(), []);
      assert.equal((await state()).dead_man[KEY], undefined);
      const index = (msg: string) => bot.lines.findIndex((l) => l.msg === msg);
      const cancelAt = index('shutdown: orders cancelled, dead-man timer disarmed');
      assert.ok(index('makerd stopping') < cancelAt && cancelAt < index('makerd stopped'));
    } finally {
      await stop(bot.child);
      await deleteKeys(redis, prefix);
    }
  });

  it('a second signal exits at once, while the first one is still cancelling', async () => {
    const prefix = freshPrefix();
    const bot = makerd(['run', '--config', configFor(prefix), '--status-every', '0']);
    const faults = (body: object) =>
      fetch(`${simUrl}/_sim/faults`, { method: 'POST', body: JSON.stringify(body) });
    try {
      await bot.waitFor('makerd running', 30_000);
      // The exchange takes its time over CancelAll: the shutdown waits for it.
      await faults({ paths: ['CancelAll'], latency_ms: 5_000 });
      bot.child.kill('SIGTERM');
      await bot.waitFor('makerd stopping');
      const secondAt = Date.now();
      bot.child.kill('SIGTERM');
      const [code] = (await once(bot.child, 'exit')) as [number | null];
      assert.equal(code, 143);
      assert.ok(Date.now() - secondAt < 2_000, `exited ${Date.now() - secondAt} ms after`);
    } finally {
      await faults({});
      await stop(bot.child);
      await deleteKeys(redis, prefix);
    }
  });
});
