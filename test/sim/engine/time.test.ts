import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { harness, levels, spec, statusOf, str } from './support.js';

void describe('time in force, expiry and start time', () => {
  void it('IOC takes what crosses and cancels the rest instead of resting it', () => {
    const h = harness();
    const lp = h.account('lp');
    const a = h.account('a');
    h.engine.place(lp, spec({ pair: h.btc, side: 'sell', volume: '0.3', price: '60000' }));
    const o = h.engine.place(
      a,
      spec({ pair: h.btc, side: 'buy', volume: '1', price: '60000', tif: 'IOC' }),
    );
    assert.equal(statusOf(o), 'canceled:Immediate or cancel');
    assert.equal(str(o.volExec), '0.3');
    assert.deepEqual(levels(h, h.btc, 'bids'), []);
    assert.equal(str(a.wallet.hold('ZUSD')), '0');
    const none = h.engine.place(
      a,
      spec({ pair: h.btc, side: 'buy', volume: '1', price: '59000', tif: 'IOC' }),
    );
    assert.equal(statusOf(none), 'canceled:Immediate or cancel');
    assert.equal(h.engine.openOrders(a).length, 0);
  });

  void it('GTD expires at expiretm: off the book, hold released', async () => {
    const h = harness();
    const a = h.account('a');
    const o = h.engine.place(
      a,
      spec({
        pair: h.btc,
        side: 'buy',
        volume: '1',
        price: '50000',
        tif: 'GTD',
        expiretmMs: h.clock.now() + 5_000,
      }),
    );
    await h.advance(4_999);
    assert.equal(o.status, 'open');
    await h.advance(1);
    assert.equal(o.status, 'expired');
    assert.equal(o.closetmMs, h.clock.now());
    assert.deepEqual(levels(h, h.btc, 'bids'), []);
    assert.equal(str(a.wallet.hold('ZUSD')), '0');
    assert.equal(h.engine.closedOrders(a)[0], o);
  });

  void it('a future starttm keeps the order pending and off book, holding funds, until then', async () => {
    const h = harness();
    const a = h.account('a');
    const startMs = h.clock.now() + 10_000;
    const o = h.engine.place(
      a,
      spec({ pair: h.btc, side: 'buy', volume: '1', price: '50000', starttmMs: startMs }),
    );
    assert.equal(o.status, 'pending');
    assert.deepEqual(levels(h, h.btc, 'bids'), []);
    assert.equal(str(a.wallet.hold('ZUSD')), '50200');
    await h.advance(9_900);
    assert.equal(o.status, 'pending');
    await h.advance(100);
    assert.equal(o.status, 'open');
    assert.deepEqual(levels(h, h.btc, 'bids'), ['50000:1']);
    assert.equal(h.engine.book(h.btc).bids[0]?.timestampNs, BigInt(startMs) * 1_000_000n);
  });

  void it('an order starting into a crossing book trades then; post-only is cancelled instead', async () => {
    const h = harness();
    const lp = h.account('lp');
    const a = h.account('a');
    const start = h.clock.now() + 1_000;
    const taker = h.engine.place(
      a,
      spec({ pair: h.btc, side: 'buy', volume: '0.1', price: '60000', starttmMs: start }),
    );
    const post = h.engine.place(
      a,
      spec({
        pair: h.btc,
        side: 'buy',
        volume: '0.1',
        price: '60000',
        post: true,
        starttmMs: start,
      }),
    );
    const market = h.engine.place(
      a,
      spec({ pair: h.btc, side: 'buy', type: 'market', volume: '0.1', starttmMs: start }),
    );
    h.engine.place(lp, spec({ pair: h.btc, side: 'sell', volume: '1', price: '59000' }));
    await h.advance(1_000);
    assert.equal(statusOf(taker), 'closed');
    assert.equal(statusOf(post), 'canceled:Post only order');
    assert.equal(statusOf(market), 'closed');
    assert.equal(str(market.cost), '5900');
    assert.equal(str(a.wallet.hold('ZUSD')), '0');
  });
});
