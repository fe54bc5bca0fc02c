import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ExchangeError, ManualClock, type SpotClient } from '../../../src/index.js';
import type { Account } from '../../../src/sim/state/accounts.js';
import { errorsOf, signedPost } from '../../support/signed-request.js';
import { startTestSim, type KeyPair, type TestSim } from '../../support/sim.js';

async function rejectsWith(p: Promise<unknown>, raw: string): Promise<void> {
  await assert.rejects(p, (err: unknown) => {
    assert.ok(err instanceof ExchangeError, `expected an ExchangeError, got ${String(err)}`);
    assert.equal(err.raw, raw);
    return true;
  });
}

const limitBuy = (price: string, volume = '1.25', extra: Record<string, unknown> = {}) => ({
  pair: 'XBTUSD',
  type: 'buy' as const,
  ordertype: 'limit' as const,
  volume,
  price,
  ...extra,
});

describe('trading endpoints over HTTP', () => {
  const clock = new ManualClock();
  let sim: TestSim;
  before(async () => {
    sim = await startTestSim({ clock });
  });
  after(() => sim.close());

  /** A fresh key per test: each has its own REST counter and its own orders. */
  function fresh(): { client: SpotClient; key: KeyPair; account: Account } {
    const key = sim.addAccount();
    const account = sim.ctx.accounts.get(key.apiKey);
    assert.ok(account);
    return { client: sim.client({ key }), key, account };
  }

  const pair = () => sim.ctx.markets.requirePair('XBTUSD');

  it('AddOrder places a limit order: in OpenOrders and on the book', async () => {
    const { client } = fresh();
    const res = await client.addOrder(limitBuy('37500', '1.25', { userref: 7 }));
    assert.equal(res.result.descr.order, 'buy 1.25000000 XBTUSD @ limit 37500.0');
    const [txid] = res.result.txid ?? [];
    assert.match(txid ?? '', /^O[A-Z2-7]{5}-[A-Z2-7]{5}-[A-Z2-7]{6}$/);

    const open = (await client.openOrders()).result.open;
    const order = open[txid ?? ''];
    assert.ok(order, 'the order is open');
    assert.equal(order.status, 'open');
    assert.equal(order.userref, 7);
    assert.equal(order.vol, '1.25000000');
    assert.equal(order.vol_exec, '0.00000000');
    assert.equal(order.descr.pair, 'XBTUSD');
    assert.equal(order.descr.price, '37500.0');
    assert.equal(order.descr.order, 'buy 1.25000000 XBTUSD @ limit 37500.0');
    assert.equal(order.opentm, clock.now() / 1000);
    assert.equal(order.starttm, 0);
    assert.equal(order.expiretm, 0);

    const bid = sim.ctx.engine.book(pair()).bids.find((b) => b.txid === txid);
    assert.ok(bid, 'the order rests on the bid side');
    assert.equal(bid.price.toFixed(), '37500');
    assert.equal(bid.qty.toFixed(), '1.25');
  });

  it('AddOrder validate=true checks but places nothing and charges nothing', async () => {
    const { client, account } = fresh();
    const res = await client.addOrder(limitBuy('37000', '1', { validate: true }));
    assert.equal(res.result.descr.order, 'buy 1.00000000 XBTUSD @ limit 37000.0');
    assert.equal(res.result.txid, undefined);
    assert.deepEqual(sim.ctx.engine.openOrders(account), []);
    assert.equal(sim.ctx.limits.ratecount(account, pair()).level(clock.now()), 0);
    await rejectsWith(
      client.addOrder(limitBuy('37000', '1000000', { validate: true })),
      'EOrder:Insufficient funds',
    );
  });

  it('AddOrder refuses bad fields with the field named', async () => {
    const { client } = fresh();
    await rejectsWith(
      client.addOrder({ ...limitBuy('37000'), oflags: 'fcib,fciq' }),
      'EGeneral:Invalid arguments:oflags',
    );
    await rejectsWith(
      client.addOrder({ ...limitBuy('37000'), pair: 'NOPE' }),
      'EQuery:Unknown asset pair',
    );
  });

  it('AddOrder deadline: past is Deadline elapsed, beyond 60 s is invalid, inside is fine', async () => {
    const { client } = fresh();
    const at = (ms: number) => new Date(clock.now() + ms).toISOString();
    await rejectsWith(
      client.addOrder(limitBuy('36000', '1', { deadline: at(-1000) })),
      'EService:Deadline elapsed',
    );
    await rejectsWith(
      client.addOrder(limitBuy('36000', '1', { deadline: at(61_000) })),
      'EGeneral:Invalid arguments:deadline',
    );
    await rejectsWith(
      client.addOrder(limitBuy('36000', '1', { deadline: at(1000) })),
      'EGeneral:Invalid arguments:deadline',
    );
    const ok = await client.addOrder(limitBuy('36000', '1', { deadline: at(5000) }));
    assert.equal(ok.result.txid?.length, 1);
  });

  it('AddOrderBatch drops the invalid entry and answers in request order', async () => {
    const { client, account } = fresh();
    const res = await client.addOrderBatch({
      pair: 'XBTUSD',
      orders: [
        { type: 'buy', ordertype: 'limit', volume: '1', price: '30000', userref: 1 },
        { type: 'buy', ordertype: 'limit', volume: 'lots', price: '30001' },
        { type: 'sell', ordertype: 'limit', volume: '0.5', price: '90000', userref: 3 },
      ],
    });
    const entries = res.result.orders as Record<string, unknown>[];
    assert.equal(entries.length, 3);
    assert.deepEqual(entries[1], { error: 'EGeneral:Invalid arguments:volume' });
    const first = entries[0] as { txid: string; descr: { order: string } };
    const third = entries[2] as { txid: string; descr: { order: string } };
    assert.equal(first.descr.order, 'buy 1.00000000 XBTUSD @ limit 30000.0');
    assert.equal(third.descr.order, 'sell 0.50000000 XBTUSD @ limit 90000.0');
    const open = sim.ctx.engine.openOrders(account);
    assert.deepEqual(
      open.map((o) => o.txid),
      [first.txid, third.txid],
    );
    assert.deepEqual(
      open.map((o) => o.spec.userref),
      [1, 3],
    );
  });

  it('AddOrderBatch: an entry for another pair is dropped; more than 15 refuses the call', async () => {
    const { key, account } = fresh();
    const order = { type: 'buy', ordertype: 'limit', volume: '1', price: '30000' };
    const mixed = await signedPost(
      sim.url,
      'AddOrderBatch',
      { pair: 'XBTUSD', orders: [order, { ...order, pair: 'ETHUSD', price: '1000' }] },
      { ...key, json: true },
    );
    assert.deepEqual(errorsOf(mixed), []);
    const entries = (mixed.json as { result: { orders: Record<string, unknown>[] } }).result.orders;
    assert.ok('txid' in (entries[0] ?? {}));
    assert.deepEqual(entries[1], { error: 'EGeneral:Invalid arguments:pair' });
    assert.equal(sim.ctx.engine.openOrders(account).length, 1);

    const tooMany = await signedPost(
      sim.url,
      'AddOrderBatch',
      { pair: 'XBTUSD', orders: Array.from({ length: 16 }, () => order) },
      { ...key, json: true },
    );
    assert.deepEqual(errorsOf(tooMany), ['EGeneral:Invalid arguments:orders']);
  });

  it('EditOrder replaces the order: new txid, the old one closed as Order replaced', async () => {
    const { client } = fresh();
    const placed = await client.addOrder(limitBuy('35000', '1', { userref: 11 }));
    const original = placed.result.txid?.[0] ?? '';
    const res = await client.editOrder({
      txid: original,
      pair: 'XBTUSD',
      price: '35100',
      volume: '2',
    });
    const r = res.result as Record<string, unknown>;
    assert.equal(r['status'], 'ok');
    assert.equal(r['originaltxid'], original);
    assert.equal(r['volume'], '2.00000000');
    assert.equal(r['price'], '35100.0');
    assert.equal(r['orders_cancelled'], 1);
    assert.equal(res.result.descr?.order, 'buy 2.00000000 XBTUSD @ limit 35100.0');
    const replacement = res.result.txid ?? '';
    assert.notEqual(replacement, original);

    const open = (await client.openOrders()).result.open;
    assert.deepEqual(Object.keys(open), [replacement]);
    assert.equal(open[replacement]?.refid, original);
    // The parent's userref is not kept.
    assert.equal(open[replacement]?.userref, 0);
    const closed = (await client.closedOrders()).result.closed;
    assert.equal(closed[original]?.status, 'canceled');
    assert.equal(closed[original]?.reason, 'Order replaced');
  });

  it('EditOrder by userref; a userref shared by two orders is refused', async () => {
    const { client } = fresh();
    await client.addOrder(limitBuy('34000', '1', { userref: 21 }));
    const edited = await client.editOrder({ txid: 21, pair: 'XBTUSD', price: '34001' });
    assert.equal(edited.result.descr?.order, 'buy 1.00000000 XBTUSD @ limit 34001.0');
    await client.addOrder(limitBuy('34000', '1', { userref: 22 }));
    await client.addOrder(limitBuy('34002', '1', { userref: 22 }));
    await rejectsWith(
      client.editOrder({ txid: 22, pair: 'XBTUSD', price: '34003' }),
      'EGeneral:Invalid arguments:txid',
    );
    await rejectsWith(
      client.editOrder({ txid: 'OAAAAA-BBBBB-CCCCCC', pair: 'XBTUSD', price: '1' }),
      'EOrder:Unknown order',
    );
  });

  it('CancelOrder by txid and by userref', async () => {
    const { client, account } = fresh();
    const a = (await client.addOrder(limitBuy('33000', '1'))).result.txid?.[0] ?? '';
    await client.addOrder(limitBuy('33001', '1', { userref: 5 }));
    await client.addOrder(limitBuy('33002', '1', { userref: 5 }));
    const keep = (await client.addOrder(limitBuy('33003', '1', { userref: 6 }))).result.txid?.[0];

    assert.deepEqual((await client.cancelOrder({ txid: a })).result, { count: 1 });
    assert.equal(
      sim.ctx.engine.book(pair()).bids.some((b) => b.txid === a),
      false,
    );
    assert.deepEqual((await client.cancelOrder({ txid: 5 })).result, { count: 2 });
    assert.deepEqual(
      sim.ctx.engine.openOrders(account).map((o) => o.txid),
      [keep],
    );
    const closed = (await client.closedOrders()).result;
    assert.equal(closed.count, 3);
    assert.equal(closed.closed[a]?.reason, 'User requested');
    await rejectsWith(client.cancelOrder({ txid: a }), 'EOrder:Unknown order');
    await rejectsWith(client.cancelOrder({ txid: 999 }), 'EOrder:Unknown order');
  });

  it('CancelOrderBatch cancels ids and userrefs, skipping ones already gone', async () => {
    const { client, account } = fresh();
    const a = (await client.addOrder(limitBuy('32000', '1'))).result.txid?.[0] ?? '';
    await client.addOrder(limitBuy('32001', '1', { userref: 9 }));
    await client.addOrder(limitBuy('32002', '1', { userref: 9 }));
    const keep = (await client.addOrder(limitBuy('32003', '1'))).result.txid?.[0];
    const res = await client.cancelOrderBatch({ orders: [a, 9, a, 'OAAAAA-BBBBB-CCCCCC'] });
    assert.deepEqual(res.result, { count: 3 });
    assert.deepEqual(
      sim.ctx.engine.openOrders(account).map((o) => o.txid),
      [keep],
    );
    await rejectsWith(
      client.cancelOrderBatch({ orders: Array.from({ length: 51 }, (_, i) => i + 1) }),
      'EGeneral:Invalid arguments:orders',
    );
  });

  it('CancelAll answers the count and leaves nothing open', async () => {
    const { client, account } = fresh();
    await client.addOrder(limitBuy('31000', '1'));
    await client.addOrder({ ...limitBuy('2000', '1'), pair: 'ETHUSD' });
    assert.deepEqual((await client.cancelAll()).result, { count: 2 });
    assert.deepEqual(sim.ctx.engine.openOrders(account), []);
    assert.deepEqual((await client.cancelAll()).result, { count: 0 });
  });

  it('CancelAllOrdersAfter arms the dead man; the timeout must be under 86400', async () => {
    const { client, account } = fresh();
    const res = await client.cancelAllOrdersAfter({ timeout: 60 });
    assert.equal(res.result.currentTime, new Date(clock.now()).toISOString().replace('.000', ''));
    assert.equal(
      res.result.triggerTime,
      new Date(clock.now() + 60_000).toISOString().replace('.000', ''),
    );
    assert.equal(sim.ctx.deadman.triggerAt(account.key), clock.now() + 60_000);
    assert.equal((await client.cancelAllOrdersAfter({ timeout: 0 })).result.triggerTime, '0');
    assert.equal(sim.ctx.deadman.triggerAt(account.key), undefined);
    await rejectsWith(
      client.cancelAllOrdersAfter({ timeout: 86_400 }),
      'EGeneral:Invalid arguments:timeout',
    );
  });

  it('status modes gate order entry as the spec table says', async () => {
    const { client, account } = fresh();
    const resting = (await client.addOrder(limitBuy('30500', '1'))).result.txid?.[0] ?? '';
    try {
      sim.ctx.status.setMode('cancel_only');
      await rejectsWith(
        client.addOrder(limitBuy('30000', '1')),
        'EService:Market in cancel_only mode',
      );
      await rejectsWith(
        client.addOrder(limitBuy('30000', '1', { oflags: 'post' })),
        'EService:Market in cancel_only mode',
      );

      sim.ctx.status.setMode('post_only');
      await rejectsWith(
        client.addOrder(limitBuy('30000', '1')),
        'EService:Market in post_only mode',
      );
      const post = await client.addOrder(limitBuy('30000', '1', { oflags: 'post' }));
      assert.equal(post.result.txid?.length, 1);
      const batch = await client.addOrderBatch({
        pair: 'XBTUSD',
        orders: [
          { type: 'buy', ordertype: 'limit', volume: '1', price: '29000', oflags: 'post' },
          { type: 'buy', ordertype: 'limit', volume: '1', price: '29001' },
        ],
      });
      assert.deepEqual(batch.result.orders[1], { error: 'EService:Market in post_only mode' });
      assert.ok('txid' in (batch.result.orders[0] ?? {}));

      sim.ctx.status.setMode('maintenance');
      await rejectsWith(client.cancelOrder({ txid: resting }), 'EService:Unavailable');
      await rejectsWith(client.cancelAll(), 'EService:Unavailable');

      sim.ctx.status.setMode('cancel_only');
      assert.deepEqual((await client.cancelOrder({ txid: resting })).result, { count: 1 });
      assert.equal(sim.ctx.engine.openOrders(account).length, 2);
    } finally {
      sim.ctx.status.setMode('online');
    }
  });

  it('accepts raw form requests as other clients send them (userref txid, close[...] keys)', async () => {
    const { key, account } = fresh();
    const placed = await signedPost(
      sim.url,
      'AddOrder',
      {
        pair: 'XXBTZUSD',
        type: 'buy',
        ordertype: 'limit',
        volume: '0.1',
        price: '28000',
        userref: '314',
        'close[ordertype]': 'limit',
        'close[price]': '31000',
      },
      key,
    );
    assert.deepEqual(errorsOf(placed), []);
    const descr = (placed.json as { result: { descr: { order: string; close?: string } } }).result
      .descr;
    assert.equal(descr.order, 'buy 0.10000000 XBTUSD @ limit 28000.0');
    assert.equal(descr.close, 'close position @ limit 31000.0');
    const cancelled = await signedPost(sim.url, 'CancelOrder', { txid: '314' }, key);
    assert.deepEqual(errorsOf(cancelled), []);
    assert.deepEqual(sim.ctx.engine.openOrders(account), []);
  });
});
