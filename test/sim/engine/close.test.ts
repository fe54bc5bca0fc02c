import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { harness, spec, str } from './support.js';

void describe('conditional close orders', () => {
  void it('places the close when the primary fills, opposite side, for the executed volume', () => {
    const h = harness();
    const lp = h.account('lp');
    const a = h.account('a');
    const primary = h.engine.place(
      a,
      spec({
        pair: h.btc,
        side: 'buy',
        volume: '1',
        price: '60000',
        userref: 42,
        close: { ordertype: 'limit', price: '#1%' },
      }),
    );
    assert.deepEqual(h.engine.openOrders(a), [primary]);
    h.engine.place(lp, spec({ pair: h.btc, side: 'sell', volume: '0.4', price: '60000' }));
    // Partly filled and still resting: no close yet.
    assert.equal(h.engine.openOrders(a).length, 1);
    h.engine.place(lp, spec({ pair: h.btc, side: 'sell', volume: '0.6', price: '60000' }));
    const [close] = h.engine.openOrders(a);
    assert.ok(close);
    assert.equal(close.refid, primary.txid);
    assert.equal(close.spec.side, 'sell');
    assert.equal(close.spec.ordertype, 'limit');
    assert.equal(str(close.spec.volume), '1');
    assert.equal(close.spec.userref, 42);
    // `#1%` above the last trade (60000) for a sell limit.
    assert.equal(str(close.limitPrice), '60600');
    assert.equal(close.status, 'open');
  });

  void it('an IOC primary that lapses part-filled closes what it executed', () => {
    const h = harness();
    const lp = h.account('lp');
    const a = h.account('a');
    h.engine.place(lp, spec({ pair: h.btc, side: 'sell', volume: '0.25', price: '60000' }));
    const primary = h.engine.place(
      a,
      spec({
        pair: h.btc,
        side: 'buy',
        volume: '1',
        price: '60000',
        tif: 'IOC',
        close: { ordertype: 'stop-loss', price: '59000' },
      }),
    );
    const [close] = h.engine.openOrders(a);
    assert.equal(close?.refid, primary.txid);
    assert.equal(close?.status, 'pending');
    assert.equal(str(close?.spec.volume), '0.25');
    assert.equal(str(close?.stopPrice), '59000');
  });

  void it('cancelling a part-filled primary places no close', () => {
    const h = harness();
    const lp = h.account('lp');
    const a = h.account('a');
    const primary = h.engine.place(
      a,
      spec({
        pair: h.btc,
        side: 'buy',
        volume: '1',
        price: '60000',
        close: { ordertype: 'limit', price: '61000' },
      }),
    );
    h.engine.place(lp, spec({ pair: h.btc, side: 'sell', volume: '0.5', price: '60000' }));
    h.engine.cancel(a, primary);
    assert.equal(h.engine.openOrders(a).length, 0);
  });

  void it('the close is independent once placed: it trades and closes like any order', () => {
    const h = harness();
    const lp = h.account('lp');
    const a = h.account('a');
    h.engine.place(
      a,
      spec({
        pair: h.btc,
        side: 'sell',
        type: 'market',
        volume: '0.1',
        close: { ordertype: 'limit', price: '59000' },
      }),
    );
    h.engine.place(lp, spec({ pair: h.btc, side: 'buy', volume: '1', price: '60000' }));
    assert.equal(h.engine.openOrders(a).length, 0);
    const primary = h.engine.place(
      a,
      spec({
        pair: h.btc,
        side: 'sell',
        type: 'market',
        volume: '0.1',
        close: { ordertype: 'limit', price: '59000' },
      }),
    );
    const [close] = h.engine.openOrders(a);
    assert.equal(close?.refid, primary.txid);
    h.engine.cancelAll(lp);
    h.engine.place(
      h.account('x'),
      spec({ pair: h.btc, side: 'sell', volume: '0.1', price: '59000' }),
    );
    assert.equal(close?.status, 'closed');
    assert.equal(str(close?.cost), '5900');
  });
});
