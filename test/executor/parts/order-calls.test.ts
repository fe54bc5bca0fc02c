import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { encodeUserref, parseSlotKey, type OrderIntent } from '../../../src/core/index.js';
import type { AddItem } from '../../../src/executor/index.js';
import { OrderCalls } from '../../../src/executor/order-calls.js';
import type { TrackedOrder } from '../../../src/orders/index.js';
import { until } from '../../support/until.js';
import { restingBid, startParts, type Parts } from './support.js';

void describe('OrderCalls against the simulator, stores in memory', () => {
  let p: Parts;
  let calls: OrderCalls;
  let generation = 0;
  before(async () => {
    p = await startParts({ tier: 'pro' });
    calls = new OrderCalls(p.ctx, p.wire);
  });
  after(() => p.close());

  /** An intent as the register hands it out, each with a generation of its own. */
  const intentAt = (
    slot: string,
    price = '49000.0',
    side: 'buy' | 'sell' = 'buy',
  ): OrderIntent => ({
    ...p.intent(slot, { side, price, volume: '0.01' }),
    generation: ++generation,
  });
  const addItem = (intent: OrderIntent): AddItem => ({
    intent,
    side: intent.desired?.side ?? 'buy',
    price: intent.desired?.price ?? '0',
    volume: intent.desired?.volume ?? '0',
    postOnly: true,
    replacing: undefined,
  });
  const userrefOf = (i: OrderIntent): number =>
    encodeUserref(1, parseSlotKey(i.slot), i.generation);
  const onBook = async (userref: number) =>
    (await p.simOrders()).find((o) => o.userref === userref);
  /** Places one bid through OrderCalls; its tracked record. */
  const place = async (slot: string, price: string): Promise<TrackedOrder> => {
    const intent = intentAt(slot, price);
    await calls.run([{ kind: 'AddOrder', item: addItem(intent), cost: 1 }]);
    const rec = await p.tracker.get(p.pair.id, userrefOf(intent));
    assert.equal(rec?.state, 'open');
    return rec;
  };

  void it('AddOrder: the order rests on the book under our userref; the record is open with its txid', async () => {
    const intent = intentAt('bid:0', '49000.0');
    const outcomes = await calls.run([{ kind: 'AddOrder', item: addItem(intent), cost: 1 }]);
    assert.deepEqual(outcomes, [{ refund: 0, cancelled: [] }]);
    const userref = userrefOf(intent);
    const book = await onBook(userref);
    assert.ok(book, 'on the simulator’s book');
    assert.equal(Number(book.price), 49_000);
    const rec = await p.tracker.get(p.pair.id, userref);
    assert.equal(rec?.state, 'open');
    assert.equal(rec?.txid, book.txid);
    assert.equal(rec?.openedAtMs, p.clock.now());
    assert.equal(p.ctx.slotOrder('bid:0')?.txid, book.txid, 'the memory copy holds it');
    assert.equal(
      await p.metric('makerd_order_actions_total', { action: 'AddOrder', outcome: 'ok' }),
      1,
    );
  });

  void it('AddOrderBatch: every item on the book, each record open', async () => {
    const items = [intentAt('bid:1', '48900.0'), intentAt('bid:2', '48800.0')];
    await calls.run([{ kind: 'AddOrderBatch', items: items.map(addItem), cost: 1 }]);
    for (const intent of items) {
      const book = await onBook(userrefOf(intent));
      assert.ok(book, `${intent.slot} on the book`);
      assert.equal((await p.tracker.get(p.pair.id, userrefOf(intent)))?.txid, book.txid);
    }
  });

  void it('writes the record ahead of the call; an answer later than request_timeout_ms is unknown', async () => {
    await p.sim.admin('POST', '/_sim/faults', { paths: ['AddOrder'], latency_ms: 30_000 });
    const intent = intentAt('bid:3', '48700.0');
    const sentAt = p.clock.now();
    const running = calls.run([{ kind: 'AddOrder', item: addItem(intent), cost: 1 }]);
    await until('the AddOrder held by the simulator', () => p.sim.ctx.faults.counts.delayed >= 1);
    const ahead = await p.tracker.get(p.pair.id, userrefOf(intent));
    assert.equal(ahead?.state, 'pending-new');
    assert.equal(ahead?.pendingCall, 'add');
    assert.equal(ahead?.deadlineMs, sentAt + p.ctx.deps.config.deadline_ms);

    await p.advance(p.ctx.deps.config.request_timeout_ms);
    assert.deepEqual(await running, [{ refund: 0, cancelled: [] }]);
    assert.equal((await p.tracker.get(p.pair.id, userrefOf(intent)))?.state, 'unknown');
    await p.sim.admin('POST', '/_sim/faults', {});
    await p.advance(30_000);
  });

  void it('CancelOrder: off the book, retired as cancelled, its userref reported cancelled', async () => {
    const rec = await place('bid:4', '48600.0');
    const intent = { ...p.intent('bid:4'), generation: rec.generation + 1 };
    const outcomes = await calls.run([
      { kind: 'CancelOrder', item: { intent, order: rec, purpose: 'cancel' }, cost: 8 },
    ]);
    assert.deepEqual(outcomes, [{ refund: 0, cancelled: [rec.userref] }]);
    assert.equal(await onBook(rec.userref), undefined);
    assert.equal(await p.tracker.get(p.pair.id, rec.userref), undefined);
    const [done] = await p.tracker.history(p.pair.id, 1);
    assert.deepEqual(
      [done?.userref, done?.state, done?.reason],
      [rec.userref, 'canceled', 'cancelled'],
    );
  });

  void it('a cancel of an order the exchange does not know retires it as gone and gives the points back', async () => {
    const ghost = restingBid(p, { userref: 77_001, txid: 'OGHOST-AAAAA-BBBBBB', slot: 'bid:5' });
    await p.ctx.persist([ghost]);
    const intent = { ...p.intent('bid:5'), generation: 2 };
    const outcomes = await calls.run([
      { kind: 'CancelOrder', item: { intent, order: ghost, purpose: 'cancel' }, cost: 8 },
    ]);
    assert.deepEqual(outcomes, [{ refund: 8, cancelled: [ghost.userref] }]);
    const [done] = await p.tracker.history(p.pair.id, 1);
    assert.deepEqual([done?.txid, done?.state, done?.reason], [ghost.txid, 'canceled', 'gone']);
    assert.equal(p.ctx.slotOrder('bid:5'), undefined);
  });

  void it('EditOrder: the book holds the new price; the original is replaced by a new record', async () => {
    const rec = await place('bid:6', '48500.0');
    const intent = intentAt('bid:6', '48450.0');
    await calls.run([
      {
        kind: 'EditOrder',
        item: { intent, order: rec, volume: '0.01', price: '48450.0', postOnly: true },
        cost: 6,
      },
    ]);
    const book = await onBook(userrefOf(intent));
    assert.ok(book, 'the amended order under the new userref');
    assert.equal(Number(book.price), 48_450);
    assert.equal(await onBook(rec.userref), undefined);
    const next = await p.tracker.get(p.pair.id, userrefOf(intent));
    assert.deepEqual([next?.state, next?.txid, next?.replaces], ['open', book.txid, rec.txid]);
    const replaced = (await p.tracker.history(p.pair.id)).find((o) => o.userref === rec.userref);
    assert.deepEqual([replaced?.state, replaced?.reason], ['canceled', 'replaced']);
  });

  void it('an edit of an order gone meanwhile retires it and puts the intent back in the register', async () => {
    const ghost = restingBid(p, { userref: 77_002, txid: 'OGHOST-CCCCC-DDDDDD', slot: 'bid:7' });
    await p.ctx.persist([ghost]);
    // Taken from the register as a drain takes it: restore puts back only its latest generation.
    const { published } = await p.bus.publish([
      p.intent('bid:7', { side: 'buy', price: '48300.0', volume: '0.01' }),
    ]);
    const [latest] = await p.bus.takeSlots(
      p.pair.id,
      published.map((i) => ({ slot: i.slot, generation: i.generation })),
    );
    assert.ok(latest);
    const outcomes = await calls.run([
      {
        kind: 'EditOrder',
        item: { intent: latest, order: ghost, volume: '0.01', price: '48300.0', postOnly: true },
        cost: 6,
      },
    ]);
    assert.deepEqual(outcomes, [{ refund: 6, cancelled: [] }]);
    const [done] = await p.tracker.history(p.pair.id, 1);
    assert.deepEqual([done?.userref, done?.reason], [ghost.userref, 'gone']);
    assert.deepEqual(
      (await p.bus.pending(p.pair.id)).map((i) => `${i.slot}#${i.generation}`),
      [`bid:7#${latest.generation}`],
    );
    await p.bus.takeSlots(p.pair.id, [{ slot: latest.slot, generation: latest.generation }]);
  });

  void it('a refusal before the engine (cancel_only) gives the points back and rejects the record', async () => {
    await p.sim.admin('POST', '/_sim/status', { status: 'cancel_only' });
    try {
      const intent = intentAt('bid:8', '48200.0');
      const outcomes = await calls.run([{ kind: 'AddOrder', item: addItem(intent), cost: 1 }]);
      assert.deepEqual(outcomes, [{ refund: 1, cancelled: [] }]);
      assert.equal(await onBook(userrefOf(intent)), undefined);
      const [done] = await p.tracker.history(p.pair.id, 1);
      assert.deepEqual(
        [done?.userref, done?.state, done?.reason],
        [userrefOf(intent), 'rejected', 'EService:Market in cancel_only mode'],
      );
      assert.equal(p.ctx.mode(), 'cancel_only');
    } finally {
      await p.sim.admin('POST', '/_sim/status', { status: 'online' });
      p.ctx.learnedMode = undefined;
    }
  });
});
