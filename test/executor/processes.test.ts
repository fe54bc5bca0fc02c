import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { stringify } from 'yaml';
import { RedisOrderTracker, type OrderTracker } from '../../src/orders/index.js';
import { makerd, stop, type Line } from '../support/spawn.js';
import {
  assertBookMatchesTracker,
  intentFor,
  startExecHarness,
  until,
  type ExecHarness,
} from './harness.js';
import { pseudoRandom } from './random.js';

const SLOTS = ['bid:0', 'bid:1', 'ask:0', 'ask:1'];

/**
 * Executors as separate `makerd executor` processes on one Redis prefix and simulator key:
 * kill -9 and restart, and two processes competing for the same pairs (issue #5 item 7).
 */
void describe('makerd executor processes', () => {
  let h: ExecHarness;
  let config: string;
  let tracker: OrderTracker;
  const env = (): NodeJS.ProcessEnv => ({
    MAKERD_API_KEY: h.key.apiKey,
    MAKERD_API_SECRET: h.key.apiSecret,
    // Two executors on one machine: each its own HTTP port.
    MAKERD_HTTP_PORT: '0',
  });

  before(async () => {
    h = await startExecHarness({ tier: 'pro', realTime: true });
    const dir = mkdtempSync(join(tmpdir(), 'makerd-executor-'));
    config = join(dir, 'executor.yaml');
    writeFileSync(
      config,
      stringify({
        instance: 1,
        // Executors in processes of their own sign with one key: the key's nonce window.
        exchange: {
          url: h.sim.url,
          tier: 'pro',
          nonce_window: 10_000,
          credentials: { from: 'env' },
        },
        redis: { prefix: h.prefix },
        pairs: [
          { pair: 'XBTUSD', strategy: { name: 'spread' } },
          { pair: 'ETHUSD', strategy: { name: 'spread' } },
        ],
        executor: { lease_ttl_ms: 2_000, lease_retry_ms: 200, deadline_ms: 2_500 },
      }),
    );
    tracker = new RedisOrderTracker({ redis: h.redis, prefix: h.prefix });
  });
  after(async () => {
    await tracker.close();
    await h.close();
  });

  /** Publishes moving quotes for every slot of both pairs for `ms`. */
  async function quote(ms: number, seed: number): Promise<void> {
    const rand = pseudoRandom(seed);
    const end = Date.now() + ms;
    while (Date.now() < end) {
      for (const pair of h.pairs) {
        const base = pair.id === 'XXBTZUSD' ? 50_000 : 3_000;
        await h.publish(
          SLOTS.map((slot) => {
            const bid = slot.startsWith('bid');
            const level = Number(slot.split(':')[1]) + 1;
            const off = base * (0.001 * level + 0.0001 * Math.floor(rand() * 10));
            const price = (bid ? base - off : base + off).toFixed(pair.id === 'XXBTZUSD' ? 1 : 2);
            return intentFor(pair.id, slot, { side: bid ? 'buy' : 'sell', price, volume: '0.01' });
          }),
        );
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** Nothing pending, no step under way, nothing in doubt in the tracker, then the book checks. */
  async function assertConsistent(): Promise<void> {
    await until(
      'pending intents handled and no record in doubt',
      async () => {
        for (const p of h.pairs) {
          if ((await h.bus.pending(p.id)).length > 0) return undefined;
          // A step under way may have taken intents it has not written records for yet.
          const jobs = await h.bus.queueFor(p.id).getJobCounts('active', 'waiting', 'prioritized');
          if (Object.values(jobs).some((n) => n > 0)) return undefined;
          const live = await tracker.live(p.id);
          if (
            live.some(
              (r) => r.state === 'unknown' || r.state === 'pending-new' || r.pendingCall !== null,
            )
          )
            return undefined;
        }
        return true;
      },
      30_000,
    );
    await assertBookMatchesTracker(h, tracker);
  }

  void it('kill -9 mid-run, then a restart: no duplicates and every open order adopted', async () => {
    const first = makerd(['executor', '--config', config, '--status-every', '0'], env());
    await first.waitFor('executor started');
    await quote(1_500, 1);
    first.child.kill('SIGKILL');
    await quote(500, 2);
    const second = makerd(['executor', '--config', config, '--status-every', '0'], env());
    try {
      await second.waitFor('executor started');
      await until(
        'both pairs taken over',
        () => (holdings(second.lines).size === 2 ? true : undefined),
        15_000,
      ).catch((err: Error) => {
        throw new Error(`${err.message}: ${JSON.stringify(second.lines.slice(-8))}`);
      });
      await quote(1_000, 3);
      await assertConsistent();
    } finally {
      assert.equal(await stop(second.child), 0, second.stderr());
    }
  });

  void it('two executor processes never work the same pair at once', async () => {
    const a = makerd(['executor', '--config', config, '--status-every', '0'], env());
    const b = makerd(['executor', '--config', config, '--status-every', '0'], env());
    try {
      await Promise.all([a.waitFor('executor started'), b.waitFor('executor started')]);
      await quote(1_500, 4);
      assert.equal(await stop(a.child), 0, a.stderr());
      await until('b holds both pairs', () => (holdings(b.lines).size === 2 ? true : undefined));
      await quote(1_000, 5);
      await assertConsistent();
      // Each pair's holding intervals, from both logs, never overlap.
      const events: Line[] = [
        ...a.lines.map((l) => ({ ...l, who: 'a' })),
        ...b.lines.map((l) => ({ ...l, who: 'b' })),
      ].filter((l) => l.msg === 'pair taken' || l.msg === 'pair released');
      for (const p of h.pairs) {
        const mine = events
          .filter((e) => e.pair === p.id)
          .sort((x, y) => Date.parse(String(x.time)) - Date.parse(String(y.time)));
        let holder: string | undefined;
        for (const e of mine) {
          if (e.msg === 'pair taken') {
            assert.equal(holder, undefined, `${p.id} taken by ${String(e.who)} while held`);
            holder = String(e.who);
          } else if (e.who === holder) holder = undefined;
        }
      }
    } finally {
      await stop(a.child);
      assert.equal(await stop(b.child), 0, b.stderr());
    }
  });
});

function holdings(lines: readonly Line[]): Set<string> {
  const held = new Set<string>();
  for (const l of lines) {
    if (l.msg === 'pair taken') held.add(String(l.pair));
    if (l.msg === 'pair released') held.delete(String(l.pair));
  }
  return held;
}
