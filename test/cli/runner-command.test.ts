import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { stringify } from 'yaml';
import { RedisIntentBus } from '../../src/bus/index.js';
import { deleteKeys, freshPrefix, REDIS_URL } from '../support/redis.js';
import { makerd, stop, type Line } from '../support/spawn.js';

const SIM_YAML = fileURLToPath(new URL('../../config/sim.yaml', import.meta.url));

describe('makerd runner', () => {
  const prefix = freshPrefix();
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  after(async () => {
    await deleteKeys(redis, prefix);
    redis.disconnect();
  });

  it('polls the simulator, quotes both pairs into the queue and stops cleanly on SIGTERM', async () => {
    const sim = makerd(['sim', '--port', '0', '--config', SIM_YAML, '--seed', '3']);
    const runnerProcs: ChildProcess[] = [];
    try {
      const banner = await sim.waitFor('makerd sim listening');
      const dir = mkdtempSync(join(tmpdir(), 'makerd-runner-'));
      const config = join(dir, 'runner.yaml');
      writeFileSync(
        config,
        stringify({
          exchange: {
            url: banner.url,
            tier: 'starter',
            // The paper key's window in sim.yaml: a runner alone shares the key with other processes.
            nonce_window: 5000,
            credentials: { from: 'simulator', account: 'paper-key', sim_config: SIM_YAML },
          },
          redis: { url: REDIS_URL, prefix },
          http: { port: 0 },
          pairs: [
            { pair: 'XBTUSD', strategy: { name: 'spread' } },
            {
              pair: 'ETHUSD',
              strategy: {
                name: 'avellaneda-stoikov',
                options: { target_base: '30', max_inventory: '10' },
              },
            },
          ],
        }),
      );
      const runner = makerd(['runner', '--config', config, '--status-every', '1']);
      runnerProcs.push(runner.child);
      const started = await runner.waitFor('runner started');
      assert.equal(started.tier, 'starter');
      assert.deepEqual(started.pairs, ['XBTUSD:spread', 'ETHUSD:avellaneda-stoikov']);

      const bus = new RedisIntentBus({ connection: redis, prefix });
      try {
        for (const pair of ['XXBTZUSD', 'XETHZUSD']) {
          const end = Date.now() + 30_000;
          let pending = await bus.pending(pair);
          while (pending.length < 2 && Date.now() < end) {
            await new Promise((r) => setTimeout(r, 200));
            pending = await bus.pending(pair);
          }
          assert.deepEqual(
            pending.map((i) => `${i.slot} ${i.action}`).sort(),
            ['ask:0 place', 'bid:0 place'],
            `pending intents for ${pair}`,
          );
        }
      } finally {
        await bus.close();
      }

      type Status = { pairs: { pair: string; mode: string; intents: number }[] };
      const quoted = (l: Line) =>
        l.msg === 'runner status' && (l as unknown as Status).pairs.every((p) => p.intents > 0);
      const end = Date.now() + 10_000;
      while (!runner.lines.some(quoted) && Date.now() < end) {
        await new Promise((r) => setTimeout(r, 200));
      }
      const status = runner.lines.find(quoted) as unknown as Status | undefined;
      assert.ok(status, 'a status line showing intents for both pairs');
      assert.deepEqual(
        status.pairs.map((p) => [p.pair, p.mode]),
        [
          ['XBTUSD', 'online'],
          ['ETHUSD', 'online'],
        ],
      );

      assert.equal(await stop(runner.child), 0, `runner exit; stderr: ${runner.stderr()}`);
      assert.ok(runner.lines.some((l) => l.msg === 'runner stopped'));
      assert.ok(
        !runner.lines.some((l) => JSON.stringify(l).includes('bWFrZXJk')),
        'the secret never reaches the log',
      );
      const state = (await (await fetch(`${banner.url}/_sim/state`)).json()) as {
        rejections: Record<string, number>;
      };
      const refused = Object.keys(state.rejections).filter((e) => /Rate limit|Throttled/.test(e));
      assert.deepEqual(refused, [], 'the simulator refused nothing for rate');
    } finally {
      for (const child of runnerProcs) await stop(child);
      await stop(sim.child);
    }
  });
});
