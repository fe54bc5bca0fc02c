import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Registry } from 'prom-client';
import { decodeUserref } from '../../src/core/index.js';
import type { Executor } from '../../src/executor/index.js';
import { startExecHarness, until, type ExecHarness } from './harness.js';
import { metricValue } from '../support/metrics.js';

const BTC = 'XXBTZUSD';

/** Waits until the counter with these labels reads 1. */
function untilMetric(
  registry: Registry,
  what: string,
  name: string,
  labels: Record<string, string>,
): Promise<true> {
  return until(what, async () =>
    (await metricValue(registry, name, labels)) === 1 ? true : undefined,
  );
}

void describe('Executor against the simulator', () => {
  let h: ExecHarness;
  let executor: Executor;
  let registry: Registry;

  before(async () => {
    h = await startExecHarness({ tier: 'starter' });
    ({ executor, registry } = await h.executor());
  });
  after(async () => {
    await h.close();
  });

  void it('places an intent as a post-only limit order carrying the slot userref, tracked open', async () => {
    await h.publish([h.intent(BTC, 'bid:0', { side: 'buy', price: '49000', volume: '0.01' })]);
    const [order] = await until('the order on the book', async () => {
      const o = await h.simOrders();
      return o.length === 1 ? o : undefined;
    });
    assert.equal(order?.side, 'buy');
    assert.equal(order?.price, '49000.0');
    const decoded = decodeUserref(order?.userref);
    assert.deepEqual(decoded?.slot, { side: 'buy', level: 0 });
    const live = await until('the tracker record open', async () => {
      const l = await executor.tracker.live(BTC);
      return l.length === 1 && l[0]?.state === 'open' ? l : undefined;
    });
    assert.equal(live[0]?.txid, order?.txid);
    assert.equal((await executor.ratecount.level(BTC, h.clock.now())).level > 0, true);
    assert.equal(
      await metricValue(registry, 'makerd_order_actions_total', {
        pair: 'XBTUSD',
        action: 'AddOrder',
        outcome: 'ok',
      }),
      1,
    );
  });

  void it('moves the quote with EditOrder: new txid at the new price, the old one replaced', async () => {
    const before = (await h.simOrders())[0];
    await h.publish([h.intent(BTC, 'bid:0', { side: 'buy', price: '49010', volume: '0.01' })]);
    const moved = await until('the edited order', async () => {
      const o = await h.simOrders();
      return o.length === 1 && o[0]?.price === '49010.0' ? o[0] : undefined;
    });
    assert.notEqual(moved.txid, before?.txid);
    await untilMetric(registry, 'edit counted', 'makerd_order_actions_total', {
      pair: 'XBTUSD',
      action: 'EditOrder',
      outcome: 'ok',
    });
    // The answer's records are written after the action is counted.
    const history = await until('the old order in history', async () => {
      const h = await executor.tracker.history(BTC);
      return h.length > 0 ? h : undefined;
    });
    assert.equal(history[0]?.txid, before?.txid);
    assert.equal(history[0]?.reason, 'replaced');
  });

  void it('cancels: the book is empty and the record is in history as canceled', async () => {
    await h.publish([h.intent(BTC, 'bid:0', undefined)]);
    await until('no order on the book', async () =>
      (await h.simOrders()).length === 0 ? true : undefined,
    );
    await until('tracker empty', async () =>
      (await executor.tracker.live(BTC)).length === 0 ? true : undefined,
    );
    assert.equal((await executor.tracker.history(BTC))[0]?.state, 'canceled');
  });

  void it('drops an intent the exchange refuses for funds, counts the reason and sends it once', async () => {
    const step = await h.publishAndStep([
      h.intent(BTC, 'ask:0', { side: 'sell', price: '60000', volume: '5000' }),
    ]);
    assert.deepEqual([step.sent, step.deferred, step.dropped], [1, 0, 0]);
    assert.equal(
      await metricValue(registry, 'makerd_order_rejections_total', {
        pair: 'XBTUSD',
        error: 'EOrder:Insufficient funds',
      }),
      1,
    );
    assert.equal((await h.simRejections())['EOrder:Insufficient funds'], 1, 'no retry');
    assert.equal((await executor.tracker.history(BTC))[0]?.state, 'rejected');
    assert.deepEqual(await h.bus.pending(BTC), []);
  });

  void it('keeps the points of an order the engine refused: its ratecount never falls below the exchange count', async () => {
    // A post-only bid at another account's ask would take: the engine refuses it, after
    // charging it.
    const maker = h.sim.client({ key: h.sim.addAccount() });
    const ask = await maker.addOrder({
      pair: 'XBTUSD',
      type: 'sell',
      ordertype: 'limit',
      price: '50500',
      volume: '0.01',
    });
    await h.publish([h.intent(BTC, 'bid:1', { side: 'buy', price: '50500', volume: '0.01' })]);
    await untilMetric(registry, 'the post-only refusal counted', 'makerd_order_rejections_total', {
      pair: 'XBTUSD',
      error: 'EOrder:Post only order',
    });
    const { body } = await h.sim.admin('GET', '/_sim/state');
    const exchange = (body as { ratecount: Record<string, Record<string, { level: number }>> })
      .ratecount[h.key.apiKey]?.[BTC]?.level;
    const model = (await executor.ratecount.level(BTC, h.clock.now())).level;
    assert.ok(exchange !== undefined && exchange > 0, `the exchange charged: ${exchange}`);
    assert.ok(
      model >= exchange - 0.2,
      `the model (${model}) must not fall below the exchange's count (${exchange})`,
    );
    await maker.cancelOrder({ txid: ask.result.txid?.[0] ?? '' });
  });

  void it('records fills with exact price, volume and fee, and the position, also after a cancel', async () => {
    const taker = h.sim.addAccount();
    const takerClient = h.sim.client({ key: taker });
    await h.publish([h.intent(BTC, 'ask:1', { side: 'sell', price: '50100', volume: '0.02' })]);
    await until('the ask on the book', async () =>
      (await h.simOrders()).some((o) => o.price === '50100.0') ? true : undefined,
    );
    await takerClient.addOrder({
      pair: 'XBTUSD',
      type: 'buy',
      ordertype: 'market',
      volume: '0.005',
    });
    // The periodic full sync reads OpenOrders: it is when fills reach the tracker.
    await h.advance(60_000);
    const [first] = await until('the fill recorded', async () => {
      const f = await executor.tracker.fills(BTC);
      return f.length === 1 ? f : undefined;
    });
    assert.equal(first?.side, 'sell');
    assert.equal(first?.volume, '0.005');
    assert.equal(first?.price, '50100');
    assert.ok(Number(first?.fee) > 0, `maker fee ${first?.fee}`);
    assert.equal((await executor.tracker.live(BTC))[0]?.state, 'partially-filled');

    // Filled again, then cancelled before any sync saw it: the next sync finds it in ClosedOrders.
    await takerClient.addOrder({
      pair: 'XBTUSD',
      type: 'buy',
      ordertype: 'market',
      volume: '0.003',
    });
    await h.publish([h.intent(BTC, 'ask:1', undefined)]);
    await until('cancelled', async () => ((await h.simOrders()).length === 0 ? true : undefined));
    await until('tracker empty', async () =>
      (await executor.tracker.live(BTC)).length === 0 ? true : undefined,
    );
    await h.advance(60_000);
    const fills = await until('the second fill recorded', async () => {
      const f = await executor.tracker.fills(BTC);
      return f.length === 2 ? f : undefined;
    });
    assert.deepEqual(
      fills.map((f) => f.volume),
      ['0.003', '0.005'],
    );
    const position = await executor.tracker.position(BTC);
    assert.equal(position.base, '-0.008');
    assert.equal(position.fills, 2);
    assert.equal(
      await metricValue(registry, 'makerd_fills_total', { pair: 'XBTUSD', side: 'sell' }),
      2,
    );
    assert.equal(await metricValue(registry, 'makerd_inventory_base', { pair: 'XBTUSD' }), -0.008);
  });

  void it('labels every executor metric by pair altname, never by exchange pair id', async () => {
    const text = await registry.metrics();
    assert.match(text, /^makerd_executor_lease\{pair="XBTUSD"\} 1$/m);
    assert.match(text, /^makerd_executor_lease\{pair="ETHUSD"\} [01]$/m);
    for (const id of h.pairs.map((p) => p.id)) assert.ok(!text.includes(`pair="${id}"`), id);
  });
});
