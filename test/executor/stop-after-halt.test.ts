import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { RestLimiter } from '../../src/exchange/index.js';
import { PairLease } from '../../src/executor/index.js';
import type { LogEntry } from '../safety/log-collector.js';
import { startExecHarness, until, type ExecHarness } from './harness.js';

const BTC = 'XXBTZUSD';
const ETH = 'XETHZUSD';
const bid = (price: string) => ({ side: 'buy' as const, price, volume: '0.01' });
const trouble = (logs: readonly LogEntry[]): string[] =>
  logs
    .filter((l) => l.level === 'warn' || l.level === 'error')
    .map((l) => (typeof l.fields.err === 'string' ? `${l.msg}: ${l.fields.err}` : l.msg));

/**
 * A halt's CancelAlls and syncs spend the starter tier's REST budget (15 points, one back every
 * 3 s): the syncs that follow a halt and a resume wait seconds a call. A stop then must not wait
 * for them, nor leave them to write after the leases are given back; and a restart on that spent
 * budget keeps its leases while its first syncs wait.
 */
void describe('Executor: stopped after a halt and a resume', () => {
  let h: ExecHarness | undefined;
  after(() => h?.close());

  void it('stops at once though its syncs wait for REST budget; a restart keeps its leases', async () => {
    h = await startExecHarness({ tier: 'starter' });
    const harness = h;
    const limiter = new RestLimiter({ tier: 'starter', headroom: 1, clock: h.clock });
    // The key's counter full, as the halt's calls leave it; filled again after each move of the
    // clock, nothing it holds back goes out.
    const spent = (): void => limiter.seed(limiter.max, harness.clock.now());
    const advance = async (ms: number): Promise<void> => {
      await harness.advance(ms);
      spent();
    };
    const config = { lease_ttl_ms: 30_000, lease_retry_ms: 1_000 };
    const first = await h.executor(config, { restLimiter: limiter, owner: 'first' });
    await h.publish([h.intent(BTC, 'bid:0', bid('49000'))]);
    await until('the bid tracked open', async () =>
      (await first.executor.tracker.live(BTC))[0]?.state === 'open' ? true : undefined,
    );

    // The halt as the supervisor makes it: the flag, CancelAll, its word that it is done.
    spent();
    await h.flags.halt('test halt', 'operator:test', h.clock.now());
    await h.keyClient().cancelAll();
    for (const p of h.pairs) void first.executor.pair(p.id)?.cancelledAll();
    await until('the CancelAll sync waiting for budget', () => limiter.snapshot().queued > 0);
    await advance(1_000);
    await until('the halt seen', () =>
      first.logs.some((l) => l.msg.startsWith('halted: our orders are read again')),
    );
    // The halt's own sync is due; then the resume, whose step resyncs before it drains.
    await advance(2_500);
    await h.flags.resume();
    await advance(1_000);
    await until('the resume step under way', async () =>
      (await harness.bus.queueFor(BTC).getActiveCount()) > 0 ? true : undefined,
    );

    let stopped = false;
    void first.executor.stop().then(() => (stopped = true));
    await until('stopped with the clock standing still', () => stopped);
    for (const p of [BTC, ETH]) {
      assert.equal(await h.redis.exists(PairLease.keyFor(h.prefix, p)), 0, `${p} given back`);
    }
    assert.equal(limiter.snapshot().queued, 0, 'no read of its own left waiting for budget');
    assert.deepEqual(trouble(first.logs), []);

    // The restart, on the counter the first left: its start-up syncs wait for budget longer than
    // the 20 s a lease holds without a renewal.
    let started = false;
    const starting = h
      .executor(config, { restLimiter: limiter, owner: 'second' })
      .finally(() => (started = true));
    await until('its start-up sync waiting for budget', () => limiter.snapshot().queued > 0);
    for (let waited = 0; waited < 25_000; waited += 1_000) await advance(1_000);
    await until('the restart started', async () => {
      if (started) return true;
      await harness.advance(1_000);
      return undefined;
    });
    const second = await starting;
    await h.publish([h.intent(BTC, 'bid:0', bid('49001'))]);
    await until('the bid placed by the restart', async () =>
      (await harness.simOrders()).some((o) => o.price === '49001.0') ? true : undefined,
    );
    assert.deepEqual(trouble(second.logs), []);
    assert.deepEqual(trouble(first.logs), [], 'nothing of the first ran after its stop');
  });
});
