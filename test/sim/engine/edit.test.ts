import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Decimal } from '../../../src/core/index.js';
import { errorOf, harness, levels, printAt, px, spec, statusOf, str } from './support.js';

void describe('EditOrder', () => {
  void it('replaces the order: new txid, refid to the original, original closed as replaced', () => {
    const h = harness();
    const a = h.account('a');
    const orig = h.engine.place(
      a,
      spec({ pair: h.btc, side: 'buy', volume: '1', price: '59000', userref: 7 }),
    );
    const next = h.engine.edit(a, orig, { price: px('59100'), post: false });
    assert.notEqual(next.txid, orig.txid);
    assert.equal(next.refid, orig.txid);
    assert.equal(statusOf(orig), 'canceled:Order replaced');
    assert.equal(next.spec.userref, 0);
    assert.deepEqual(levels(h, h.btc, 'bids'), ['59100:1']);
    assert.deepEqual(h.engine.openOrders(a), [next]);
    assert.equal(str(a.wallet.hold('ZUSD')), '59336.4');
  });

  void it('loses queue priority even at the same price', () => {
    const h = harness();
    const a = h.account('a');
    const b = h.account('b');
    const mine = h.engine.place(a, spec({ pair: h.btc, side: 'buy', volume: '1', price: '59000' }));
    const theirs = h.engine.place(
      b,
      spec({ pair: h.btc, side: 'buy', volume: '1', price: '59000' }),
    );
    const next = h.engine.edit(a, mine, { volume: new Decimal('0.9'), userref: 3, post: false });
    assert.equal(next.spec.userref, 3);
    assert.deepEqual(
      h.engine.book(h.btc).bids.map((e) => e.txid),
      [theirs.txid, next.txid],
    );
  });

  void it('new volume is the total size: what executed counts toward it', () => {
    const h = harness();
    const a = h.account('a');
    const orig = h.engine.place(a, spec({ pair: h.btc, side: 'buy', volume: '1', price: '60000' }));
    h.engine.place(
      h.account('lp'),
      spec({ pair: h.btc, side: 'sell', volume: '0.4', price: '60000' }),
    );
    assert.equal(
      errorOf(() => h.engine.edit(a, orig, { volume: new Decimal('0.4'), post: false })),
      'EOrder:Invalid order:Executed volume exceeds new volume',
    );
    const next = h.engine.edit(a, orig, { volume: new Decimal('0.7'), post: false });
    assert.equal(str(next.spec.volume), '0.7');
    assert.equal(str(next.volExec), '0.4');
    assert.deepEqual(levels(h, h.btc, 'bids'), ['60000:0.3']);
    assert.equal(str(a.wallet.hold('ZUSD')), '18072');
  });

  void it('post is taken from the edit only, and a post edit that would take is refused', () => {
    const h = harness();
    const a = h.account('a');
    h.engine.place(
      h.account('lp'),
      spec({ pair: h.btc, side: 'sell', volume: '1', price: '60000' }),
    );
    const orig = h.engine.place(
      a,
      spec({ pair: h.btc, side: 'buy', volume: '1', price: '59000', post: true }),
    );
    assert.equal(orig.oflags, 'post,fciq');
    assert.equal(
      errorOf(() => h.engine.edit(a, orig, { price: px('60000'), post: true })),
      'EOrder:Post only order',
    );
    assert.equal(orig.status, 'open');
    const next = h.engine.edit(a, orig, { price: px('59500'), post: false });
    assert.equal(next.oflags, 'fciq');
  });

  void it('refuses triggered stops, orders with close terms and closed orders', () => {
    const h = harness();
    const a = h.account('a');
    const stop = h.engine.place(
      a,
      spec({
        pair: h.btc,
        side: 'sell',
        type: 'stop-loss-limit',
        volume: '0.1',
        price: '59000',
        price2: '58000',
      }),
    );
    // Not yet triggered: editable (a new stop price).
    const moved = h.engine.edit(a, stop, { price: px('59500'), post: false });
    assert.equal(str(moved.stopPrice), '59500');
    printAt(h, h.btc, '59400');
    assert.equal(moved.triggered, true);
    assert.equal(
      errorOf(() => h.engine.edit(a, moved, { price: px('58100'), post: false })),
      'EOrder:Invalid order:Triggered orders cannot be edited',
    );
    const withClose = h.engine.place(
      a,
      spec({
        pair: h.btc,
        side: 'buy',
        volume: '0.1',
        price: '50000',
        close: { ordertype: 'limit', price: '70000' },
      }),
    );
    assert.equal(
      errorOf(() => h.engine.edit(a, withClose, { price: px('50100'), post: false })),
      'EOrder:Invalid order:Orders with conditional close cannot be edited',
    );
    assert.equal(
      errorOf(() => h.engine.edit(a, stop, { price: px('59100'), post: false })),
      'EOrder:Invalid order:Order is not open',
    );
  });

  void it("counts the original's hold as available, and validateOnly changes nothing", () => {
    const h = harness();
    const a = h.account('a', { ZUSD: '60240' });
    const orig = h.engine.place(a, spec({ pair: h.btc, side: 'buy', volume: '1', price: '60000' }));
    assert.equal(str(a.wallet.available('ZUSD')), '0');
    const preview = h.engine.edit(
      a,
      orig,
      { price: px('59000'), post: false },
      { validateOnly: true },
    );
    assert.equal(str(preview.limitPrice), '59000');
    assert.equal(orig.status, 'open');
    assert.deepEqual(levels(h, h.btc, 'bids'), ['60000:1']);
    assert.equal(
      errorOf(() => h.engine.edit(a, orig, { price: px('60100'), post: false })),
      'EOrder:Insufficient funds',
    );
    const next = h.engine.edit(a, orig, { price: px('59000'), post: false });
    assert.equal(next.status, 'open');
    assert.equal(str(a.wallet.hold('ZUSD')), '59236');
  });
});
