import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { errorOf, harness, levels, spec, statusOf, str } from './support.js';

void describe('market orders', () => {
  void it('sweeps levels best first and closes when filled', () => {
    const h = harness();
    const maker = h.account('maker');
    const taker = h.account('taker');
    h.engine.place(maker, spec({ pair: h.btc, side: 'sell', volume: '1', price: '60000' }));
    h.engine.place(maker, spec({ pair: h.btc, side: 'sell', volume: '1', price: '60100' }));
    const o = h.engine.place(
      taker,
      spec({ pair: h.btc, side: 'buy', type: 'market', volume: '1.5' }),
    );
    assert.equal(statusOf(o), 'closed');
    assert.equal(str(o.cost), '90050');
    assert.deepEqual(
      h.prints.map((p) => [p.price.toFixed(), p.volume.toFixed(), p.ordertype]),
      [
        ['60000', '1', 'm'],
        ['60100', '0.5', 'm'],
      ],
    );
    assert.deepEqual(levels(h, h.btc, 'asks'), ['60100:0.5']);
    assert.equal(str(taker.wallet.hold('ZUSD')), '0');
  });

  void it('stops 1 % from the best price at entry unless nompp', () => {
    const h = harness();
    const maker = h.account('maker');
    const taker = h.account('taker');
    h.engine.place(maker, spec({ pair: h.btc, side: 'sell', volume: '1', price: '60000' }));
    h.engine.place(maker, spec({ pair: h.btc, side: 'sell', volume: '1', price: '60600' }));
    h.engine.place(maker, spec({ pair: h.btc, side: 'sell', volume: '1', price: '60600.1' }));
    const protectedBuy = h.engine.place(
      taker,
      spec({ pair: h.btc, side: 'buy', type: 'market', volume: '3' }),
    );
    assert.equal(statusOf(protectedBuy), 'canceled:Market price protection');
    assert.equal(str(protectedBuy.volExec), '2');
    assert.deepEqual(levels(h, h.btc, 'asks'), ['60600.1:1']);

    h.engine.place(maker, spec({ pair: h.btc, side: 'sell', volume: '1', price: '70000' }));
    const free = h.engine.place(
      taker,
      spec({ pair: h.btc, side: 'buy', type: 'market', volume: '2', nompp: true }),
    );
    assert.equal(statusOf(free), 'closed');
    assert.deepEqual(levels(h, h.btc, 'asks'), []);
  });

  void it('lapses with no fill on an empty book', () => {
    const h = harness();
    const o = h.engine.place(
      h.account('a'),
      spec({ pair: h.btc, side: 'sell', type: 'market', volume: '1' }),
    );
    assert.equal(statusOf(o), 'canceled:Insufficient liquidity');
    assert.equal(str(o.volExec), '0');
  });

  void it('viqc: volume is what to spend (buy) or receive (sell) in quote', () => {
    const h = harness();
    const maker = h.account('maker');
    const taker = h.account('taker');
    h.engine.place(maker, spec({ pair: h.btc, side: 'sell', volume: '1', price: '60000' }));
    const buy = h.engine.place(
      taker,
      spec({ pair: h.btc, side: 'buy', type: 'market', volume: '30000', viqc: true }),
    );
    assert.equal(statusOf(buy), 'closed');
    assert.equal(str(buy.volExec), '0.5');
    assert.equal(str(buy.cost), '30000');
    assert.equal(str(buy.fee), '120');
    assert.equal(buy.oflags, 'fciq,viqc');

    h.engine.place(maker, spec({ pair: h.btc, side: 'buy', volume: '1', price: '59000' }));
    // 10000 / 59000 = 0.16949152.54…: whole lots only, the dust stays unspent.
    const sell = h.engine.place(
      taker,
      spec({ pair: h.btc, side: 'sell', type: 'market', volume: '10000', viqc: true }),
    );
    assert.equal(statusOf(sell), 'closed');
    assert.equal(str(sell.volExec), '0.16949152');
    assert.equal(str(sell.cost), '9999.99968');
  });

  void it('checks funds against what the book says the order will cost', () => {
    const h = harness();
    const maker = h.account('maker');
    const poor = h.account('poor', { ZUSD: '1000' });
    h.engine.place(maker, spec({ pair: h.btc, side: 'sell', volume: '0.01', price: '60000' }));
    h.engine.place(maker, spec({ pair: h.btc, side: 'sell', volume: '1', price: '60001' }));
    assert.equal(
      errorOf(() =>
        h.engine.place(poor, spec({ pair: h.btc, side: 'buy', type: 'market', volume: '0.02' })),
      ),
      'EOrder:Insufficient funds',
    );
    const ok = h.engine.place(
      poor,
      spec({ pair: h.btc, side: 'buy', type: 'market', volume: '0.016' }),
    );
    assert.equal(statusOf(ok), 'closed');
    // 600 + 360.006 and 0.4 % taker fee on that.
    assert.equal(str(poor.wallet.balance('ZUSD')), '36.153976');
    assert.equal(str(poor.wallet.balance('XXBT')), '0.016');
  });
});
