import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { harness, levels, spec, statusOf, str } from './support.js';

void describe('self-trade prevention', () => {
  const setup = () => {
    const h = harness();
    const me = h.account('me');
    const other = h.account('other');
    const mine = h.engine.place(
      me,
      spec({ pair: h.btc, side: 'sell', volume: '1', price: '60000' }),
    );
    const theirs = h.engine.place(
      other,
      spec({ pair: h.btc, side: 'sell', volume: '1', price: '60010' }),
    );
    return { h, me, mine, theirs };
  };

  void it('cancel-newest (default) cancels the incoming order and leaves the resting one', () => {
    const { h, me, mine } = setup();
    const o = h.engine.place(me, spec({ pair: h.btc, side: 'buy', volume: '2', price: '60010' }));
    assert.equal(statusOf(o), 'canceled:Self trade prevention');
    assert.equal(mine.status, 'open');
    assert.equal(h.prints.length, 0);
    assert.deepEqual(levels(h, h.btc, 'asks'), ['60000:1', '60010:1']);
    assert.equal(str(me.wallet.hold('ZUSD')), '0');
  });

  void it('cancel-oldest cancels the resting order and goes on matching', () => {
    const { h, me, mine, theirs } = setup();
    const o = h.engine.place(
      me,
      spec({ pair: h.btc, side: 'buy', volume: '2', price: '60010', stptype: 'cancel-oldest' }),
    );
    assert.equal(statusOf(mine), 'canceled:Self trade prevention');
    assert.equal(statusOf(theirs), 'closed');
    assert.equal(str(o.volExec), '1');
    assert.deepEqual(levels(h, h.btc, 'bids'), ['60010:1']);
    assert.deepEqual(levels(h, h.btc, 'asks'), []);
  });

  void it('cancel-both cancels both', () => {
    const { h, me, mine } = setup();
    const o = h.engine.place(
      me,
      spec({ pair: h.btc, side: 'buy', volume: '2', price: '60010', stptype: 'cancel-both' }),
    );
    assert.equal(statusOf(mine), 'canceled:Self trade prevention');
    assert.equal(statusOf(o), 'canceled:Self trade prevention');
    assert.deepEqual(levels(h, h.btc, 'asks'), ['60010:1']);
  });

  void it('keeps what traded before it met its own order', () => {
    const h = harness();
    const me = h.account('me');
    h.engine.place(
      h.account('x'),
      spec({ pair: h.btc, side: 'sell', volume: '0.5', price: '59990' }),
    );
    h.engine.place(me, spec({ pair: h.btc, side: 'sell', volume: '1', price: '60000' }));
    const o = h.engine.place(me, spec({ pair: h.btc, side: 'buy', volume: '2', price: '60000' }));
    assert.equal(statusOf(o), 'canceled:Self trade prevention');
    assert.equal(str(o.volExec), '0.5');
  });
});
