import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { StallWatch, type Clock, type Stall } from '../../src/core/index.js';
import { PairLease, type Executor } from '../../src/executor/index.js';
import type { LogEntry } from '../safety/log-collector.js';
import { startExecHarness, until, type ExecHarness } from './harness.js';

const BTC = 'XXBTZUSD';
const ETH = 'XETHZUSD';
const bid = (price: string) => ({ side: 'buy' as const, price, volume: '0.01' });

/**
 * Issue #42 items 1 and 5: the executor's process stood still (SIGSTOP, a paused VM). Here the
 * stall watch reads a clock the test moves ahead by itself, as a frozen process finds it on
 * waking: every timer late at once.
 */
void describe('Executor: a stall of its process', () => {
  let h: ExecHarness;
  let executor: Executor;
  let logs: LogEntry[];
  let aheadMs = 0;
  const reports: { stall: Stall; found: Record<string, unknown> }[] = [];
  const stop = new AbortController();
  let watching: Promise<void>;

  before(async () => {
    h = await startExecHarness({ tier: 'pro' });
    const clock: Clock = {
      now: () => h.clock.now() + aheadMs,
      sleep: (ms, signal) => h.clock.sleep(ms, signal),
    };
    const watch = new StallWatch(clock, (stall, found) => reports.push({ stall, found }));
    watching = watch.run(stop.signal);
    // The lease loop every second of the test's clock.
    ({ executor, logs } = await h.executor({ lease_retry_ms: 1_000 }, { stallWatch: watch }));
  });
  after(async () => {
    stop.abort();
    await watching;
    await h.close();
  });

  void it('syncs before its next order entry, charging what the dead-man cancelled meanwhile', async () => {
    await h.publish([h.intent(BTC, 'bid:0', bid('49000')), h.intent(BTC, 'bid:1', bid('48990'))]);
    await until('both bids tracked open', async () =>
      (await executor.tracker.live(BTC)).filter((o) => o.state === 'open').length === 2
        ? true
        : undefined,
    );
    // The process stands still; the dead-man timer armed for it runs out meanwhile.
    await h.keyClient().cancelAllOrdersAfter({ timeout: 5 });
    await h.advance(6_000);
    assert.deepEqual(await h.simOrders(), [], 'the dead-man timer cancelled both');
    aheadMs += 20_000;

    // On waking, the first thing to run is the step for the runner's new quotes.
    await h.publish([h.intent(BTC, 'bid:0', bid('49001')), h.intent(BTC, 'bid:1', bid('48991'))]);
    await until('both bids on the book again', async () =>
      (await h.simOrders()).length === 2 ? true : undefined,
    );
    // Read first, so the slots were placed, not amended into "Unknown order"; and the model
    // holds what the exchange charged for the timer's cancels.
    assert.deepEqual(await h.simRejections(), {});
    assert.equal(
      (await executor.ratecount.level(BTC, h.clock.now())).level,
      await h.simRatecount(BTC),
    );
    const { stall, found } = await until('the stall reported', () => reports[0]);
    assert.equal(stall.stalledMs >= 20_000, true);
    assert.equal(found.ordersGone, 2);
    assert.equal(found.pairsHeld, 2);
    assert.ok(
      logs.some(
        (l) => l.msg.startsWith('orders cancelled without a call of ours') && l.fields.orders === 2,
      ),
    );
  });

  void it('retakes a lease that lapsed meanwhile, and says so as such', async () => {
    // Not renewed within its TTL: Redis let it go.
    await h.redis.del(PairLease.keyFor(h.prefix, ETH));
    await h.advance(1_000);
    const line = await until('the retake said', () =>
      logs.find((l) => l.msg === 'lease lapsed during a stall and retaken by this process'),
    );
    assert.equal(line.fields.pair, ETH);
    assert.ok(executor.pair(ETH), 'worked again');
    assert.deepEqual(
      logs.filter((l) => l.fields.why === 'lease taken by another process'),
      [],
      'no takeover said',
    );
  });

  void it('says a lease another process holds now is lost to it', async () => {
    await h.redis.set(PairLease.keyFor(h.prefix, ETH), 'other:1#x', 'PX', 120_000);
    await h.advance(1_000);
    const line = await until('the loss said', () =>
      logs.find((l) => l.msg === 'pair lost: lease taken by another process'),
    );
    assert.deepEqual([line.fields.pair, line.fields.holder], [ETH, 'other:1']);
    assert.equal(executor.pair(ETH), undefined);
    await h.redis.del(PairLease.keyFor(h.prefix, ETH));
  });
});
