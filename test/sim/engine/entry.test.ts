import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { SimError } from '../../../src/sim/errors.js';
import { errorOf, harness, levels, spec, statusOf, str } from './support.js';

void describe('batches, cancels and lookups', () => {
  void it('placeBatch skips invalid orders, returning their errors in their slots', () => {
    const h = harness();
    const a = h.account('a');
    const out = h.engine.placeBatch(a, [
      spec({ pair: h.btc, side: 'buy', volume: '1', price: '59000' }),
      spec({ pair: h.btc, side: 'buy', volume: '0.00001', price: '59000' }),
      spec({ pair: h.btc, side: 'buy', volume: '2', price: '59000' }),
    ]);
    assert.equal(out.length, 3);
    assert.ok(out[1] instanceof SimError);
    assert.equal(out[1].errorString, 'EOrder:Order minimum not met');
    const [first, , third] = out;
    assert.ok(first !== undefined && !(first instanceof SimError));
    assert.ok(third !== undefined && !(third instanceof SimError));
    assert.deepEqual(
      h.engine.book(h.btc).bids.map((e) => e.txid),
      [first.txid, third.txid],
    );
  });

  void it('placeBatch processes in order: a later order can fill against an earlier one', () => {
    const h = harness();
    const a = h.account('a', { ZUSD: '1000', XXBT: '0' });
    const lp = h.account('lp');
    h.engine.place(lp, spec({ pair: h.btc, side: 'sell', volume: '1', price: '1000' }));
    const out = h.engine.placeBatch(a, [
      spec({ pair: h.btc, side: 'buy', volume: '0.5', price: '1000' }),
      // Sells what the first order just bought.
      spec({ pair: h.btc, side: 'sell', volume: '0.4', price: '1100' }),
      spec({ pair: h.btc, side: 'buy', volume: '0.6', price: '1000' }),
    ]);
    assert.ok(!(out[1] instanceof SimError));
    assert.ok(out[2] instanceof SimError);
    assert.equal(out[2].errorString, 'EOrder:Insufficient funds');
  });

  void it('placeBatch refuses orders for several pairs', () => {
    const h = harness();
    const a = h.account('a');
    assert.equal(
      errorOf(() =>
        h.engine.placeBatch(a, [
          spec({ pair: h.btc, side: 'buy', volume: '1', price: '59000' }),
          spec({ pair: h.eth, side: 'buy', volume: '1', price: '2000' }),
        ]),
      ),
      'EGeneral:Invalid arguments:pair',
    );
    assert.equal(h.engine.openOrders(a).length, 0);
  });

  void it('cancel takes the order off the book, releases its hold, lists it closed', () => {
    const h = harness();
    const a = h.account('a');
    const o1 = h.engine.place(a, spec({ pair: h.btc, side: 'buy', volume: '1', price: '59000' }));
    const o2 = h.engine.place(a, spec({ pair: h.btc, side: 'sell', volume: '1', price: '61000' }));
    h.engine.cancel(a, o1);
    h.engine.cancel(a, o2, 'Dead man switch');
    h.engine.cancel(a, o2);
    assert.equal(statusOf(o1), 'canceled:User requested');
    assert.equal(statusOf(o2), 'canceled:Dead man switch');
    assert.deepEqual(levels(h, h.btc, 'bids'), []);
    assert.equal(str(a.wallet.hold('ZUSD')), '0');
    assert.equal(str(a.wallet.hold('XXBT')), '0');
    assert.deepEqual(h.engine.closedOrders(a), [o2, o1]);
    assert.equal(h.engine.order(o1.txid), o1);
  });

  void it('cancelAll cancels open and pending orders of every pair and returns them', () => {
    const h = harness();
    const a = h.account('a');
    const b = h.account('b');
    const o1 = h.engine.place(a, spec({ pair: h.btc, side: 'buy', volume: '1', price: '59000' }));
    const o2 = h.engine.place(
      a,
      spec({ pair: h.eth, side: 'sell', type: 'stop-loss', volume: '1', price: '2000' }),
    );
    const keep = h.engine.place(b, spec({ pair: h.btc, side: 'buy', volume: '1', price: '59000' }));
    assert.deepEqual(h.engine.cancelAll(a), [o1, o2]);
    assert.equal(h.engine.openOrders(a).length, 0);
    assert.deepEqual(h.engine.openOrders(b), [keep]);
    assert.deepEqual(h.engine.cancelAll(a), []);
  });

  void it('find: by txid, or by userref (number or numeric string), open and pending only', () => {
    const h = harness();
    const a = h.account('a');
    const b = h.account('b');
    const o1 = h.engine.place(
      a,
      spec({ pair: h.btc, side: 'buy', volume: '1', price: '59000', userref: 5 }),
    );
    const o2 = h.engine.place(
      a,
      spec({ pair: h.eth, side: 'buy', volume: '1', price: '2000', userref: 5 }),
    );
    const o3 = h.engine.place(
      a,
      spec({ pair: h.btc, side: 'buy', volume: '1', price: '58000', userref: -9 }),
    );
    h.engine.place(b, spec({ pair: h.btc, side: 'buy', volume: '1', price: '59000', userref: 5 }));
    assert.deepEqual(h.engine.find(a, o1.txid), [o1]);
    assert.deepEqual(h.engine.find(a, 5), [o1, o2]);
    assert.deepEqual(h.engine.find(a, '5'), [o1, o2]);
    assert.deepEqual(h.engine.find(a, '-9'), [o3]);
    assert.deepEqual(h.engine.find(b, o1.txid), []);
    h.engine.cancel(a, o1);
    assert.deepEqual(h.engine.find(a, o1.txid), []);
    assert.deepEqual(h.engine.find(a, 5), [o2]);
  });

  void it('lists open orders oldest first and trades oldest first, each findable by id', () => {
    const h = harness();
    const a = h.account('a');
    const lp = h.account('lp');
    const o1 = h.engine.place(a, spec({ pair: h.btc, side: 'buy', volume: '1', price: '50000' }));
    const o2 = h.engine.place(a, spec({ pair: h.eth, side: 'buy', volume: '1', price: '2000' }));
    assert.deepEqual(h.engine.openOrders(a), [o1, o2]);
    assert.deepEqual(h.engine.openOrders(a, h.eth), [o2]);
    h.engine.place(lp, spec({ pair: h.btc, side: 'sell', volume: '0.1', price: '50000' }));
    h.engine.place(lp, spec({ pair: h.btc, side: 'sell', volume: '0.2', price: '50000' }));
    const trades = h.engine.trades(a);
    assert.deepEqual(
      trades.map((t) => t.vol.toFixed()),
      ['0.1', '0.2'],
    );
    assert.deepEqual(
      o1.trades,
      trades.map((t) => t.id),
    );
    assert.equal(h.engine.trade(trades[0]?.id ?? ''), trades[0]);
    assert.match(trades[0]?.id ?? '', /^T[A-Z2-7]{5}-[A-Z2-7]{5}-[A-Z2-7]{6}$/);
  });
});
