import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ExchangeError, ManualClock, type SpotClient } from '../../../src/index.js';
import type { Account } from '../../../src/sim/state/accounts.js';
import { startTestSim, type TestSim } from '../../support/sim.js';

/**
 * The matching-engine ratecount per (key, pair) after each order-entry action, against the spec's
 * penalty table by order age. Each assertion reads the meter before and after the call at the
 * same instant (the ManualClock does not move during a call), so decay never blurs the figure.
 */

async function rejectsWith(p: Promise<unknown>, raw: string): Promise<void> {
  await assert.rejects(p, (err: unknown) => {
    assert.ok(err instanceof ExchangeError, `expected an ExchangeError, got ${String(err)}`);
    assert.equal(err.raw, raw);
    return true;
  });
}

const AGES_S = [0, 7, 12, 30, 60, 200, 400];
const EDIT = [6, 5, 4, 2, 1, 0, 0];
const CANCEL = [8, 6, 5, 4, 2, 1, 0];

describe('ratecount charged by the trading endpoints', () => {
  const clock = new ManualClock();
  let sim: TestSim;
  before(async () => {
    // Time-driven work also runs before each request; a long tick keeps clock.advance cheap.
    sim = await startTestSim({ clock, config: { tick_ms: 60_000 } });
  });
  after(() => sim.close());

  function fresh(): { client: SpotClient; account: Account } {
    const key = sim.addAccount();
    const account = sim.ctx.accounts.get(key.apiKey);
    assert.ok(account);
    return { client: sim.client({ key }), account };
  }

  const xbt = () => sim.ctx.markets.requirePair('XBTUSD');
  const eth = () => sim.ctx.markets.requirePair('ETHUSD');
  const level = (account: Account, pair = xbt()) =>
    sim.ctx.limits.ratecount(account, pair).level(clock.now());

  /** Points a call added to the (key, pair) ratecount. */
  async function added(account: Account, call: () => Promise<unknown>, pair = xbt()) {
    const before = level(account, pair);
    await call();
    return Math.round((level(account, pair) - before) * 1e9) / 1e9;
  }

  async function place(client: SpotClient, price: string, userref?: number): Promise<string> {
    const res = await client.addOrder({
      pair: 'XBTUSD',
      type: 'buy',
      ordertype: 'limit',
      volume: '0.01',
      price,
      ...(userref === undefined ? {} : { userref }),
    });
    return res.result.txid?.[0] ?? '';
  }

  /** One order per age column: placed oldest first, the clock moved so each reaches its age. */
  async function ordersAged(client: SpotClient): Promise<string[]> {
    const txids: string[] = [];
    const sorted = [...AGES_S].reverse();
    for (let i = 0; i < sorted.length; i++) {
      txids.unshift(await place(client, String(20000 + i)));
      const next = sorted[i + 1];
      await clock.advance(((sorted[i] ?? 0) - (next ?? 0)) * 1000);
    }
    return txids;
  }

  it('AddOrder adds 1; AddOrderBatch adds n/2', async () => {
    const { client, account } = fresh();
    assert.equal(await added(account, () => place(client, '25000')), 1);
    const order = {
      type: 'buy' as const,
      ordertype: 'limit' as const,
      volume: '0.01',
      price: '25001',
    };
    assert.equal(
      await added(account, () =>
        client.addOrderBatch({ pair: 'XBTUSD', orders: [order, order, order, order, order] }),
      ),
      2.5,
    );
  });

  it('EditOrder adds the table value for the age of the order it replaces', async () => {
    const { client, account } = fresh();
    const txids = await ordersAged(client);
    for (const [i, txid] of txids.entries()) {
      const points = await added(account, () =>
        client.editOrder({ txid, pair: 'XBTUSD', price: String(21000 + i) }),
      );
      assert.equal(points, EDIT[i], `edit at age ${AGES_S[i]} s`);
    }
  });

  it('CancelOrder adds the table value for the order age', async () => {
    const { client, account } = fresh();
    const txids = await ordersAged(client);
    for (const [i, txid] of txids.entries()) {
      const points = await added(account, () => client.cancelOrder({ txid }));
      assert.equal(points, CANCEL[i], `cancel at age ${AGES_S[i]} s`);
    }
  });

  it('CancelOrder by userref adds each cancelled order its penalty', async () => {
    const { client, account } = fresh();
    await place(client, '22000', 4);
    await clock.advance(7_000);
    await place(client, '22001', 4);
    assert.equal(await added(account, () => client.cancelOrder({ txid: 4 })), 6 + 8);
  });

  it('CancelOrderBatch adds the summed penalties, capped at the max, and is still accepted', async () => {
    const { client, account } = fresh();
    const txids = await ordersAged(client);
    const sum = CANCEL.reduce((a, b) => a + b, 0);
    assert.equal(await added(account, () => client.cancelOrderBatch({ orders: txids })), sum);

    const fresh10: string[] = [];
    for (let i = 0; i < 10; i++) fresh10.push(await place(client, String(23000 + i)));
    const before = level(account);
    const res = await client.cancelOrderBatch({ orders: fresh10 });
    assert.equal(res.result.count, 10);
    // 10 × 8 = 80, capped at the starter max of 60, added even though it passes the max.
    assert.equal(Math.round((level(account) - before) * 1e9) / 1e9, 60);
    assert.ok(level(account) > 60);
  });

  it('CancelAll adds each pair its own orders’ penalties, uncapped', async () => {
    const { client, account } = fresh();
    await place(client, '24000');
    await clock.advance(20_000);
    await place(client, '24001');
    await client.addOrder({
      pair: 'ETHUSD',
      type: 'buy',
      ordertype: 'limit',
      volume: '0.01',
      price: '1500',
    });
    const xbtBefore = level(account);
    const ethBefore = level(account, eth());
    assert.deepEqual((await client.cancelAll()).result, { count: 3 });
    assert.equal(level(account) - xbtBefore, 4 + 8);
    assert.equal(level(account, eth()) - ethBefore, 8);
  });

  it('EOrder:Rate limit exceeded when the points do not fit; nothing happens then', async () => {
    const { client, account } = fresh();
    const resting = await place(client, '26000');
    sim.ctx.limits.addPenalty(account, xbt(), 59, clock.now());
    assert.equal(level(account), 60);
    await rejectsWith(place(client, '26001'), 'EOrder:Rate limit exceeded');
    const order = {
      type: 'buy' as const,
      ordertype: 'limit' as const,
      volume: '0.01',
      price: '26002',
    };
    await rejectsWith(
      client.addOrderBatch({ pair: 'XBTUSD', orders: [order, order] }),
      'EOrder:Rate limit exceeded',
    );
    await rejectsWith(client.cancelOrder({ txid: resting }), 'EOrder:Rate limit exceeded');
    await rejectsWith(
      client.editOrder({ txid: resting, pair: 'XBTUSD', price: '26003' }),
      'EOrder:Rate limit exceeded',
    );
    assert.deepEqual(
      sim.ctx.engine.openOrders(account).map((o) => o.txid),
      [resting],
    );
    // Other pairs have their own count.
    const ethOrder = await client.addOrder({
      pair: 'ETHUSD',
      type: 'buy',
      ordertype: 'limit',
      volume: '0.01',
      price: '1500',
    });
    assert.equal(ethOrder.result.txid?.length, 1);
    // Decay makes room again: one second frees one point on a starter key.
    await clock.advance(1_000);
    assert.ok((await place(client, '26004')).startsWith('O'));
    // A batch cancel is accepted even now.
    assert.equal((await client.cancelOrderBatch({ orders: [resting] })).result.count, 1);
  });

  it('validate=true charges nothing', async () => {
    const { client, account } = fresh();
    const txid = await place(client, '27000');
    assert.equal(
      await added(account, () =>
        client.addOrder({
          pair: 'XBTUSD',
          type: 'buy',
          ordertype: 'limit',
          volume: '0.01',
          price: '27001',
          validate: true,
        }),
      ),
      0,
    );
    assert.equal(
      await added(account, () =>
        client.editOrder({ txid, pair: 'XBTUSD', price: '27002', validate: true }),
      ),
      0,
    );
  });
});
