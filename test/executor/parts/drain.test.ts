import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { Drain } from '../../../src/executor/drain.js';
import { OrderCalls } from '../../../src/executor/order-calls.js';
import { restingBid, startParts, type Parts } from './support.js';

void describe('Drain with in-process stores and the simulator', () => {
  let p: Parts;
  let drain: Drain;
  const level = async (): Promise<number> =>
    (await p.ratecount.level(p.pair.id, p.clock.now())).level;
  const pending = async (): Promise<string[]> =>
    (await p.bus.pending(p.pair.id)).map((i) => `${i.slot}#${i.generation}`);
  const bookPrices = async (): Promise<number[]> =>
    (await p.simOrders()).map((o) => Number(o.price)).sort((a, b) => a - b);

  before(async () => {
    // pro: max 180, 3.75 points a second; headroom 2 leaves 178 to spend.
    p = await startParts({ tier: 'pro' });
    drain = new Drain(p.ctx, new OrderCalls(p.ctx, p.wire), p.wire);
  });
  after(() => p.close());
  afterEach(async () => {
    // The next test starts from an empty book, register and model.
    for (const o of await p.simOrders()) await p.client.cancelOrder({ txid: o.txid });
    p.ctx.orders.clear();
    await p.bus.takeSlots(
      p.pair.id,
      (await p.bus.pending(p.pair.id)).map((i) => ({ slot: i.slot, generation: i.generation })),
    );
    await p.advance(60_000);
  });

  void it('sends what the register holds, reserving its points in the ratecount store', async () => {
    const { published } = await p.bus.publish([
      p.intent('bid:0', { side: 'buy', price: '49000.0', volume: '0.01' }),
    ]);
    const result = await drain.run();
    assert.deepEqual(result, {
      sent: 1,
      deferred: 0,
      dropped: 0,
      retryAtMs: undefined,
      read: [`bid:0#${published[0]?.generation}`],
    });
    assert.deepEqual(await bookPrices(), [49_000]);
    assert.deepEqual(await pending(), [], 'taken from the register');
    assert.equal(await level(), 1, 'one AddOrder');
    assert.equal(await p.metric('makerd_ratecount_level'), 1);
    assert.equal(await p.metric('makerd_executor_intents_total', { outcome: 'sent' }), 1);
  });

  void it('places two slots in one AddOrderBatch at half a point each', async () => {
    await p.bus.publish([
      p.intent('bid:0', { side: 'buy', price: '49000.0', volume: '0.01' }),
      p.intent('bid:1', { side: 'buy', price: '48900.0', volume: '0.01' }),
    ]);
    const result = await drain.run();
    assert.equal(result.sent, 2);
    assert.deepEqual(await bookPrices(), [48_900, 49_000]);
    assert.equal(await level(), 1);
  });

  void it('leaves an intent in the register while the budget is spent, and says when it fits', async () => {
    await p.ratecount.add(p.pair.id, 178, p.clock.now());
    const [key] = (
      await p.bus.publish([p.intent('bid:0', { side: 'buy', price: '49000.0', volume: '0.01' })])
    ).published.map((i) => `${i.slot}#${i.generation}`);
    const now = p.clock.now();
    const result = await drain.run();
    // 178 + 1 over 178: one point must decay first, 1 / 3.75 s.
    assert.deepEqual(result, {
      sent: 0,
      deferred: 1,
      dropped: 0,
      retryAtMs: now + 267,
      read: [key],
    });
    assert.deepEqual(await pending(), [key]);
    assert.deepEqual(await bookPrices(), []);
    assert.equal(await level(), 178);

    await p.advance(267);
    assert.equal((await drain.run()).sent, 1);
    assert.deepEqual(await bookPrices(), [49_000]);
  });

  void it('drops an intent past its deadline without sending it', async () => {
    await p.bus.publish([
      p.intent(
        'bid:0',
        { side: 'buy', price: '49000.0', volume: '0.01' },
        { deadlineMs: p.clock.now() + 100 },
      ),
    ]);
    await p.advance(100);
    const result = await drain.run();
    assert.deepEqual([result.sent, result.dropped], [0, 1]);
    assert.deepEqual(await pending(), []);
    assert.deepEqual(await bookPrices(), []);
    assert.equal(await level(), 0, 'nothing reserved');
    assert.equal(await p.metric('makerd_executor_intents_total', { outcome: 'expired' }), 1);
  });

  void it('drops a cancel of a slot that holds no order', async () => {
    await p.bus.publish([p.intent('bid:3')]);
    const result = await drain.run();
    assert.deepEqual([result.sent, result.dropped], [0, 1]);
    assert.equal(await p.metric('makerd_executor_intents_total', { outcome: 'gone' }), 1);
  });

  void it('amends the order a slot holds: one order on the book at the new price', async () => {
    await p.bus.publish([p.intent('bid:0', { side: 'buy', price: '49000.0', volume: '0.01' })]);
    await drain.run();
    await p.advance(1_000);
    await p.bus.publish([p.intent('bid:0', { side: 'buy', price: '48950.0', volume: '0.01' })]);
    const before = await level();
    const result = await drain.run();
    assert.equal(result.sent, 1);
    assert.deepEqual(await bookPrices(), [48_950]);
    assert.ok((await level()) > before, 'the amend spent points');
    assert.equal(p.ctx.slotOrder('bid:0')?.price, '48950');
  });

  void it('gives the points of a call refused before the engine back to the store', async () => {
    await p.sim.admin('POST', '/_sim/status', { status: 'cancel_only' });
    try {
      await p.bus.publish([p.intent('bid:0', { side: 'buy', price: '49000.0', volume: '0.01' })]);
      const result = await drain.run();
      assert.equal(result.sent, 1);
      assert.equal(await level(), 0, 'reserved, then refunded');
      assert.equal(p.ctx.mode(), 'cancel_only');
      // What the pair learned keeps the next place from being sent at all.
      await p.bus.publish([p.intent('bid:1', { side: 'buy', price: '48900.0', volume: '0.01' })]);
      const next = await drain.run();
      assert.deepEqual([next.sent, next.dropped], [0, 1]);
      assert.equal(await p.metric('makerd_executor_intents_total', { outcome: 'mode' }), 1);
    } finally {
      await p.sim.admin('POST', '/_sim/status', { status: 'online' });
      p.ctx.learnedMode = undefined;
    }
  });

  void it('retires an order the runner’s Depth shows gone, and places its slot afresh', async () => {
    const opened = p.clock.now();
    const gone = restingBid(p, { userref: 91_000, txid: 'OGONE-AAAAA-BBBBBB', openedAtMs: opened });
    await p.ctx.persist([gone]);
    await p.advance(5_000);
    await p.bus.publish([
      p.intent(
        'bid:0',
        { side: 'buy', price: '48800.0', volume: '0.01' },
        // Depth asked well after the order opened, with levels around 49000 but none at it.
        { depthSeen: { asOfMs: p.clock.now(), prices: ['49100.0', '48900.0'] } },
      ),
    ]);
    const result = await drain.run();
    assert.equal(result.sent, 1);
    const [retired] = await p.tracker
      .history(p.pair.id, 2)
      .then((h) => h.filter((o) => o.userref === gone.userref));
    assert.deepEqual([retired?.state, retired?.reason], ['canceled', 'gone']);
    assert.deepEqual(await bookPrices(), [48_800], 'placed, not amended into Unknown order');
    assert.equal(await level(), 1, 'an AddOrder, not an EditOrder');
  });
});
