import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { errorOf, harness, levels, spec, str } from './support.js';

void describe('post-only orders and trading switched off', () => {
  void it('rejects a post-only order that would take, and rests one that would not', () => {
    const h = harness();
    const a = h.account('a');
    h.engine.place(
      h.account('lp'),
      spec({ pair: h.btc, side: 'sell', volume: '1', price: '60000' }),
    );
    assert.equal(
      errorOf(() =>
        h.engine.place(
          a,
          spec({ pair: h.btc, side: 'buy', volume: '1', price: '60000', post: true }),
        ),
      ),
      'EOrder:Post only order',
    );
    assert.equal(h.engine.openOrders(a).length, 0);
    assert.equal(str(a.wallet.hold('ZUSD')), '0');
    h.engine.place(
      a,
      spec({ pair: h.btc, side: 'buy', volume: '1', price: '59999.9', post: true }),
    );
    assert.deepEqual(levels(h, h.btc, 'bids'), ['59999.9:1']);
    assert.equal(h.prints.length, 0);
  });

  void it('when trading is off nothing matches: crossing orders are refused', () => {
    const h = harness();
    const a = h.account('a');
    h.engine.place(
      h.account('lp'),
      spec({ pair: h.btc, side: 'sell', volume: '1', price: '60000' }),
    );
    h.canTrade = false;
    assert.equal(
      errorOf(() =>
        h.engine.place(
          a,
          spec({ pair: h.btc, side: 'buy', volume: '1', price: '60000', post: true }),
        ),
      ),
      'EOrder:Post only order',
    );
    assert.equal(
      errorOf(() =>
        h.engine.place(a, spec({ pair: h.btc, side: 'buy', volume: '1', price: '60000' })),
      ),
      'EService:Market in post_only mode',
    );
    assert.equal(
      errorOf(() =>
        h.engine.place(a, spec({ pair: h.btc, side: 'buy', type: 'market', volume: '1' })),
      ),
      'EService:Market in post_only mode',
    );
    h.engine.place(a, spec({ pair: h.btc, side: 'buy', volume: '1', price: '59000', post: true }));
    assert.deepEqual(levels(h, h.btc, 'bids'), ['59000:1']);
    assert.deepEqual(levels(h, h.btc, 'asks'), ['60000:1']);
    assert.equal(h.prints.length, 0);
  });

  void it('an order due to start into a crossing book waits while trading is off', async () => {
    const h = harness();
    const a = h.account('a');
    h.engine.place(
      h.account('lp'),
      spec({ pair: h.btc, side: 'sell', volume: '1', price: '60000' }),
    );
    const o = h.engine.place(
      a,
      spec({
        pair: h.btc,
        side: 'buy',
        volume: '1',
        price: '60000',
        starttmMs: h.clock.now() + 100,
      }),
    );
    h.canTrade = false;
    await h.advance(200);
    assert.equal(o.status, 'pending');
    h.canTrade = true;
    await h.advance(100);
    assert.equal(o.status, 'closed');
  });
});
