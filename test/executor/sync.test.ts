import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { encodeUserref } from '../../src/core/index.js';
import { RedisOrderTracker } from '../../src/orders/index.js';
import { restingOrder } from './plan/fixtures.js';
import { executorSuite, startExecHarness, until, type ExecHarness } from './harness.js';
import { metricValue } from '../support/metrics.js';
import { quote } from './quotes.js';

const BTC = 'XXBTZUSD';
const DEADLINE_MS = 3_000;
const GRACE_MS = 500;

void describe('Executor: unknown outcomes', () => {
  const suite = executorSuite({ deadline_ms: DEADLINE_MS, resolve_grace_ms: GRACE_MS });

  void it('holds a slot whose answer was lost until a query after its deadline resolves it', async () => {
    const { h, executor, registry } = suite;
    // The simulator places the order, then drops the answer.
    await h.sim.admin('POST', '/_sim/faults', { paths: ['AddOrder'], drop_response_rate: 1 });
    const placed = await h.publishAndStep([h.intent(BTC, 'bid:0', quote('bid:0', 0))]);
    await h.sim.admin('POST', '/_sim/faults', {});
    assert.equal(placed.sent, 1);
    const [record] = await executor.tracker.live(BTC);
    assert.deepEqual([record?.state, record?.txid], ['unknown', null]);
    assert.equal((await h.simOrders()).length, 1, 'on the book all the same');
    assert.equal(
      await metricValue(registry, 'makerd_order_actions_total', {
        action: 'AddOrder',
        outcome: 'unknown',
      }),
      1,
    );

    // A move of the slot waits while its order is in doubt: nothing touches it before the query.
    const moved = await h.publishAndStep([h.intent(BTC, 'bid:0', quote('bid:0', 5))]);
    assert.deepEqual([moved.sent, moved.dropped], [0, 0]);
    assert.equal((await h.bus.pending(BTC)).length, 1, 'the move waits in the register');

    await h.advance(DEADLINE_MS + GRACE_MS);
    await until('the move on the book', async () => {
      const o = await h.simOrders();
      return o.length === 1 && o[0]?.price === '49005.0' ? true : undefined;
    });
    assert.equal(
      await metricValue(registry, 'makerd_unknown_outcomes_total', { resolution: 'open' }),
      1,
    );
    assert.deepEqual(await h.simRejections(), {});
  });
});

void describe('Executor: the periodic full sync', () => {
  const suite = executorSuite({ reconcile_interval_ms: 30_000 });

  void it('adopts an open order of ours the tracker had no record of', async () => {
    const { h, executor, logs } = suite;
    // As a crash between the call and its record would leave it: ours by its userref.
    const userref = encodeUserref(1, { side: 'buy', level: 3 }, 7);
    const { result } = await h.keyClient().addOrder({
      pair: 'XBTUSD',
      type: 'buy',
      ordertype: 'limit',
      price: '48000',
      volume: '0.01',
      userref,
    });
    const txid = result.txid?.[0];
    await h.advance(30_000);
    const adopted = await until('the order adopted', async () =>
      (await executor.tracker.live(BTC)).find((o) => o.txid === txid),
    );
    assert.deepEqual([adopted.slot, adopted.origin, adopted.state], ['bid:3', 'adopted', 'open']);
    assert.ok(logs.some((l) => l.msg === 'adopted an open order of ours the tracker did not know'));
  });

  void it('records an order that left the book from ClosedOrders, as no unknown outcome', async () => {
    const { h, executor, registry } = suite;
    const placed = await h.publishAndStep([h.intent(BTC, 'ask:1', quote('ask:1', 0))]);
    assert.equal(placed.sent, 1);
    const [order] = (await h.simOrders()).filter((o) => o.pair === BTC);
    assert.ok(order !== undefined);
    // Taken off the book behind the executor's back, as a fill would take it.
    await h.keyClient().cancelOrder({ txid: order.txid });
    await h.advance(30_000);
    const settled = await until('the record settled', async () => {
      const live = await executor.tracker.live(BTC);
      return live.some((o) => o.txid === order.txid) ? undefined : true;
    });
    assert.equal(settled, true);
    const total = async (resolution: string): Promise<number> =>
      metricValue(registry, 'makerd_unknown_outcomes_total', { resolution });
    assert.deepEqual(
      await Promise.all(['open', 'closed', 'queried', 'not-executed', 'lost'].map(total)),
      [0, 0, 0, 0, 0],
      'every call of this order was answered',
    );
  });
});

void describe('Executor: a record the exchange does not know', () => {
  let h: ExecHarness;
  after(async () => {
    await h.close();
  });

  void it('drops it as lost at start instead of failing the take every time', async () => {
    h = await startExecHarness({ tier: 'pro' });
    // As Redis kept from a run against another simulator: an open order this exchange never had.
    const tracker = new RedisOrderTracker({ redis: h.redis, prefix: h.prefix });
    const txid = 'OLOST1-AAAAA-BBBBBB';
    await tracker.put(
      restingOrder('bid:2', 60_000, {
        userref: encodeUserref(1, { side: 'buy', level: 2 }, 1),
        txid,
        price: '48000.0',
        volume: '0.01',
        openedAtMs: h.clock.now() - 60_000,
        sentAtMs: h.clock.now() - 60_000,
        deadlineMs: h.clock.now() - 57_000,
        updatedAtMs: h.clock.now() - 60_000,
      }),
    );
    await tracker.close();
    const { executor, logs } = await h.executor();
    assert.ok(executor.pair(BTC), 'the pair is worked');
    assert.ok(logs.some((l) => l.msg === 'order unknown to the exchange; dropped as lost'));
    assert.equal((await executor.tracker.history(BTC))[0]?.reason, 'lost');
    await h.publish([h.intent(BTC, 'bid:0', quote('bid:0', 0))]);
    await until('the bid on the book', async () =>
      (await h.simOrders()).length === 1 ? true : undefined,
    );
  });
});

void describe('Executor: stopped while a step waits', () => {
  const suite = executorSuite({ deadline_ms: DEADLINE_MS, resolve_grace_ms: GRACE_MS });

  void it('sends nothing more once stopped: the supervisor may have cancelled everything meanwhile', async () => {
    const { h, executor } = suite;
    await h.sim.admin('POST', '/_sim/faults', { paths: ['AddOrder'], drop_response_rate: 1 });
    await h.publishAndStep([h.intent(BTC, 'bid:0', quote('bid:0', 0))]);
    // The queries that resolve the lost answer come a minute late (a REST budget spent by a
    // halt's calls makes them wait as long): the step waits in them when the process stops.
    await h.sim.admin('POST', '/_sim/faults', {
      paths: ['QueryOrders', 'OpenOrders', 'ClosedOrders'],
      latency_ms: 60_000,
    });
    await h.advance(DEADLINE_MS + GRACE_MS);
    await until('the query held', () => (h.sim.ctx.faults.counts.delayed > 0 ? true : undefined));
    // Its deadline beyond the wait: the step that waits would send it, not drop it as late.
    const deadlineMs = h.clock.now() + 600_000;
    await h.publish([h.intent(BTC, 'ask:0', quote('ask:0', 0), { deadlineMs })]);
    let stopped = false;
    const stopping = executor.stop().then(() => (stopped = true));
    // Each held query answers a minute later on the clock; stopping waits for the step.
    for (let i = 0; !stopped && i < 10; i++) {
      await h.advance(60_000);
      await new Promise((r) => setTimeout(r, 20));
    }
    await stopping;
    assert.deepEqual(
      (await h.simOrders()).map((o) => o.side),
      ['buy'],
      'the ask waiting in the register was not sent',
    );
  });
});
