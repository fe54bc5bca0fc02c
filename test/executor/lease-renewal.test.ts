import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PairLease, type Executor } from '../../src/executor/index.js';
import { startExecHarness, until, type ExecHarness } from './harness.js';

const BTC = 'XXBTZUSD';
const ETH = 'XETHZUSD';
const STUCK_MS = 30_000;

/**
 * Issue #32 item 1: a lease's renewal must never wait on order work. Here the take of a second
 * pair hangs in its start-up reconciliation (the exchange answers OpenOrders only after 30 s of
 * the test's clock); the pair already held keeps renewing its lease and keeps trading meanwhile.
 */
void describe('executor lease renewal', () => {
  let h: ExecHarness;
  let executor: Executor;

  before(async () => {
    h = await startExecHarness({ tier: 'pro' });
    // ETH is another process's until the test frees it; XBT is taken at start.
    await h.redis.set(PairLease.keyFor(h.prefix, ETH), 'other:1#x', 'PX', 120_000);
    // Renewed every 1 s of the test's clock. The TTL also bounds the real time between two
    // renewals in Redis (PX), so it is long: a loaded CI machine took over 3 s once.
    ({ executor } = await h.executor({
      lease_ttl_ms: 30_000,
      lease_retry_ms: 1_000,
    }));
    assert.ok(executor.pair(BTC), 'XBT taken at start');
  });
  after(async () => {
    await h.sim.admin('POST', '/_sim/faults', {});
    await h.advance(STUCK_MS);
    await h.close();
  });

  void it('keeps renewing a held pair while the take of another hangs on the exchange', async () => {
    await h.sim.admin('POST', '/_sim/faults', { paths: ['OpenOrders'], latency_ms: STUCK_MS });
    await h.redis.del(PairLease.keyFor(h.prefix, ETH));
    await h.advance(1_000);
    await until('the take of ETH waiting on OpenOrders', () =>
      h.sim.ctx.faults.counts.delayed >= 1 ? true : undefined,
    );
    // Six lease periods of 1 s pass while ETH's take waits on the exchange, and each brings XBT's
    // renewal: a renewal behind the take would time the wait out. Each renewal is a Redis round
    // trip in real time, so the clock moves on only once the period's renewal is back.
    const btc = executor.pair(BTC);
    assert.ok(btc, 'XBT taken');
    const lease = btc.ctx.deps.lease;
    const renew = lease.renew.bind(lease);
    let renewals = 0;
    let lost = false;
    lease.renew = async () => {
      const renewed = await renew();
      if (renewed) renewals++;
      else lost = true;
      return renewed;
    };
    // The lease loop sets its next timer only once a round's renewal is back; an advance that
    // came first would be spent before it (a loaded machine, CI), so time moves on in small
    // steps until each renewal is seen, staying well inside the ETH take's hang.
    const hangEndsAtMs = h.clock.now() + STUCK_MS - 1_000;
    for (let i = 1; i <= 6; i++) {
      await until(`XBT lease renewal ${i} while the ETH take hangs`, async () => {
        assert.equal(lost, false, 'XBT lease lost in Redis');
        if (renewals >= i) return true;
        await h.advance(250);
        return undefined;
      });
    }
    assert.ok(h.clock.now() < hangEndsAtMs, 'the renewals came while the ETH take hung');
    assert.equal(executor.pair(BTC), btc, 'XBT still worked');
    assert.equal(lease.held(), true, 'XBT lease renewed while the ETH take hangs');
    await h.publish([h.intent(BTC, 'bid:0', { side: 'buy', price: '49000.0', volume: '0.01' })]);
    await until('the XBT bid on the book', async () =>
      (await h.simOrders()).some((o) => o.price === '49000.0') ? true : undefined,
    );
  });
});
