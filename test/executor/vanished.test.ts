import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { UnpublishedIntent } from '../../src/bus/index.js';
import { signedChannel } from '../../src/exchange/client/diagnostics.js';
import { executorSuite, until } from './harness.js';
import { metricValue } from '../support/metrics.js';
import { quote } from './quotes.js';

const BTC = 'XXBTZUSD';
const MARGIN_MS = 50;

void describe('Executor: a place for a slot the runner saw empty', () => {
  const suite = executorSuite({ vanished_margin_ms: MARGIN_MS });

  /** Waits until bid:0 is tracked open at `price`, then moves the clock past the margin. */
  const trackedAt = async (price: number) => {
    const o = await until(`the bid tracked open at ${price}`, async () => {
      const [live] = await suite.executor.tracker.live(BTC);
      return live?.state === 'open' && Number(live.price) === price ? live : undefined;
    });
    await suite.h.advance(MARGIN_MS + 10);
    return o;
  };
  /** Publishes bid:0 at offset `to` with the runner's view, waits for it on the book; edits sent. */
  const moveTo = async (to: number, view: Partial<UnpublishedIntent>): Promise<number> => {
    const { h } = suite;
    let edits = 0;
    const onSigned = (m: unknown): void => {
      if ((m as { endpoint?: string }).endpoint === 'EditOrder') edits += 1;
    };
    signedChannel.subscribe(onSigned);
    try {
      await h.publish([h.intent(BTC, 'bid:0', quote('bid:0', to), view)]);
      const price = `${49_000 + to}.0`;
      await until(`the bid on the book at ${price}`, async () => {
        const o = await h.simOrders();
        return o.length === 1 && o[0]?.price === price ? true : undefined;
      });
    } finally {
      signedChannel.unsubscribe(onSigned);
    }
    return edits;
  };
  const fillTheBid = async (): Promise<void> => {
    const { h } = suite;
    const taker = h.sim.addAccount();
    await h.sim
      .client({ key: taker })
      .addOrder({ pair: 'XBTUSD', type: 'sell', ordertype: 'market', volume: '0.01' });
    assert.equal((await h.simOrders()).length, 0);
  };

  void it('amends our order when it opened after the runner asked for OpenOrders', async () => {
    const { h } = suite;
    await h.publish([h.intent(BTC, 'bid:0', quote('bid:0', 0))]);
    const open = await trackedAt(49_000);
    // The runner's OpenOrders predates our order: its "empty slot" says nothing about it.
    assert.equal(await moveTo(5, { ordersAsOfMs: open.openedAtMs - 10 }), 1, 'moved by EditOrder');
  });

  void it('places at once, without an edit, when the runner found our order gone', async () => {
    const { h, executor, registry } = suite;
    const open = await trackedAt(49_005);
    await fillTheBid();
    const edits = await moveTo(7, { ordersAsOfMs: h.clock.now() });
    assert.equal(edits, 0, 'no EditOrder into "Unknown order"');
    assert.equal((await h.simRejections())['EOrder:Unknown order'], undefined);
    assert.equal(
      await metricValue(registry, 'makerd_order_rejections_total', {
        error: 'EOrder:Unknown order',
      }),
      0,
    );
    const gone = (await executor.tracker.history(BTC)).find((o) => o.txid === open.txid);
    assert.equal(gone?.reason, 'gone');
    // Routine, so a debug line (the demo logged 57 in 90 s at info), and no warning.
    const retired = suite.logs.filter(
      (l) => l.msg === 'orders the runner found gone from the book retired',
    );
    assert.deepEqual(
      retired.map((l) => [l.level, l.fields.txids]),
      [['debug', [open.txid]]],
    );

    // The next full sync records what the vanished order executed.
    await h.advance(60_000);
    const settled = await until('the vanished order settled', async () => {
      const o = (await executor.tracker.history(BTC)).find((x) => x.txid === open.txid);
      return o?.state === 'filled' ? o : undefined;
    });
    assert.equal(Number(settled.volumeExecuted), 0.01);
    const [fill] = await executor.tracker.fills(BTC);
    assert.equal(fill?.price, '49005');
    assert.equal((await executor.tracker.position(BTC)).base, '0.01');
  });

  void it('takes our order as gone when Depth showed no level at its price, within its range', async () => {
    const { h, executor } = suite;
    await trackedAt(49_007);
    // Depth shows our price: the order is there, and is amended.
    const shown = { asOfMs: h.clock.now(), prices: ['49007.0', '48990.0'] };
    assert.equal(await moveTo(9, { depthSeen: shown }), 1);
    await trackedAt(49_009);
    // Our price lies beyond the deepest level Depth showed: it says nothing about our order.
    const shallow = { asOfMs: h.clock.now(), prices: ['49030.0', '49020.0'] };
    assert.equal(await moveTo(10, { depthSeen: shallow }), 1);

    const open = await trackedAt(49_010);
    await fillTheBid();
    const missing = { asOfMs: h.clock.now(), prices: ['49011.0', '48990.0'] };
    assert.equal(await moveTo(11, { depthSeen: missing }), 0, 'placed, not edited');
    assert.equal((await h.simRejections())['EOrder:Unknown order'], undefined);
    const gone = (await executor.tracker.history(BTC)).find((o) => o.txid === open.txid);
    assert.equal(gone?.reason, 'gone');
  });

  void it('logs an edit that raced a fill at info, with the reason, not as a warning', async () => {
    const { h, logs } = suite;
    const open = await trackedAt(49_011);
    await fillTheBid();
    // The runner's views predate the fill: the executor amends, and the exchange no longer
    // knows the order.
    await h.publish([
      h.intent(BTC, 'bid:0', quote('bid:0', 13), { ordersAsOfMs: open.openedAtMs }),
    ]);
    const line = await until('the refused edit logged', () =>
      logs.find((l) => l.msg === 'order entry found its order gone'),
    );
    assert.equal(line.level, 'info');
    assert.equal(line.fields.action, 'EditOrder');
    assert.equal(line.fields.error, 'EOrder:Unknown order');
    assert.match(String(line.fields.reason), /had left the book \(filled or cancelled\)/);
    assert.deepEqual(
      logs.filter((l) => l.level === 'warn').map((l) => l.msg),
      [],
      'nothing for an operator to act on',
    );
  });
});
