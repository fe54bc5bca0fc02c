import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { executorSuite, until } from './harness.js';
import { quote } from './quotes.js';

const BTC = 'XXBTZUSD';

void describe("Executor: fills from the runner's views of our orders", () => {
  const suite = executorSuite();

  /** What the runner does with each OpenOrders answer: hand it to the executor. */
  const viewNow = async (): Promise<void> => {
    const { h } = suite;
    const askedAtMs = h.clock.now();
    const { result } = await h.keyClient().openOrders({});
    await h.bus.writeOrdersView({ askedAtMs, open: result.open }, [BTC]);
  };
  const sellToUs = (volume: string) =>
    suite.h.sim
      .client({ key: suite.h.sim.addAccount() })
      .addOrder({ pair: 'XBTUSD', type: 'sell', ordertype: 'market', volume });

  void it('records a partial fill from a view, then the rest once the order is gone from one', async () => {
    const { h, executor, registry } = suite;
    await h.publishAndStep([h.intent(BTC, 'bid:0', { ...quote('bid:0', 0), volume: '0.02' })]);
    // Views made within vanished_margin_ms of the order's opening are left for the next one.
    await h.advance(2_000);
    await sellToUs('0.005');
    await viewNow();
    const [partial] = await until('the partial fill', async () => {
      const f = await executor.tracker.fills(BTC);
      return f.length === 1 ? f : undefined;
    });
    assert.deepEqual([partial?.side, partial?.price, partial?.volume], ['buy', '49000', '0.005']);
    assert.equal((await executor.tracker.live(BTC))[0]?.state, 'partially-filled');

    await sellToUs('0.015');
    await h.advance(1_000);
    await viewNow();
    const fills = await until('the order filled', async () => {
      const f = await executor.tracker.fills(BTC);
      return f.length === 2 ? f : undefined;
    });
    assert.equal(fills[0]?.volume, '0.015');
    assert.deepEqual(await executor.tracker.live(BTC), [], 'the slot is free');
    assert.equal((await executor.tracker.history(BTC))[0]?.state, 'filled');
    assert.equal((await executor.tracker.position(BTC)).base, '0.02');
    assert.match(await registry.metrics(), /^makerd_fills_total\{pair="XBTUSD",side="buy"\} 2$/m);
  });

  void it('times a fill when the exchange closed the order, not when the view told us', async () => {
    const { h, executor } = suite;
    const before = (await executor.tracker.fills(BTC)).length;
    await h.publishAndStep([h.intent(BTC, 'bid:0', { ...quote('bid:0', 0), volume: '0.01' })]);
    await h.advance(2_000);
    const filledAtMs = h.clock.now();
    await sellToUs('0.01');
    // The runner's next OpenOrders comes 7 s later: the fill must keep its own time, or its
    // spread and markouts would be measured against a mid 7 s too late.
    await h.advance(7_000);
    await viewNow();
    const [fill] = await until('the fill', async () => {
      const f = await executor.tracker.fills(BTC);
      return f.length === before + 1 ? f : undefined;
    });
    assert.equal(fill?.volume, '0.01');
    assert.equal(fill?.atMs, filledAtMs);
    assert.ok(h.clock.now() >= filledAtMs + 7_000);
  });
});
