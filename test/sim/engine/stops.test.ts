import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Decimal } from '../../../src/core/index.js';
import { harness, levels, printAt, spec, statusOf, str } from './support.js';

void describe('stop and take-profit orders', () => {
  void it('stop-loss sell rests off book until the last trade touches its price, then sells', () => {
    const h = harness();
    const lp = h.account('lp');
    const s = h.account('s');
    h.engine.place(lp, spec({ pair: h.btc, side: 'buy', volume: '1', price: '58900' }));
    const stop = h.engine.place(
      s,
      spec({ pair: h.btc, side: 'sell', type: 'stop-loss', volume: '0.5', price: '59000' }),
    );
    assert.equal(stop.status, 'pending');
    assert.equal(stop.triggered, false);
    assert.equal(str(stop.stopPrice), '59000');
    assert.deepEqual(levels(h, h.btc, 'asks'), []);
    assert.equal(str(s.wallet.hold('XXBT')), '0.502');

    printAt(h, h.btc, '59100');
    assert.equal(stop.status, 'pending');
    printAt(h, h.btc, '59000');
    assert.equal(stop.triggered, true);
    assert.equal(stop.misc, 'stopped');
    assert.equal(statusOf(stop), 'closed');
    assert.equal(str(stop.cost), '29450');
    assert.deepEqual(levels(h, h.btc, 'bids'), ['58900:0.5']);
    assert.equal(str(s.wallet.hold('XXBT')), '0');
  });

  void it('stop-loss buy fires on a rise, take-profit sell on a rise, take-profit buy on a fall', () => {
    const cases = [
      {
        side: 'buy',
        type: 'stop-loss',
        stop: '61000',
        miss: '60900',
        hit: '61000',
        misc: 'stopped',
      },
      {
        side: 'sell',
        type: 'take-profit',
        stop: '61500',
        miss: '61400',
        hit: '61600',
        misc: 'touched',
      },
      {
        side: 'buy',
        type: 'take-profit',
        stop: '59000',
        miss: '59100',
        hit: '58000',
        misc: 'touched',
      },
    ] as const;
    for (const c of cases) {
      const h = harness();
      const lp = h.account('lp');
      h.engine.place(lp, spec({ pair: h.btc, side: 'sell', volume: '5', price: '65000' }));
      h.engine.place(lp, spec({ pair: h.btc, side: 'buy', volume: '5', price: '55000' }));
      const o = h.engine.place(
        h.account('a'),
        spec({ pair: h.btc, side: c.side, type: c.type, volume: '0.1', price: c.stop }),
      );
      printAt(h, h.btc, c.miss);
      assert.equal(o.triggered, false, `${c.side} ${c.type} at ${c.miss}`);
      printAt(h, h.btc, c.hit);
      assert.equal(o.triggered, true, `${c.side} ${c.type} at ${c.hit}`);
      assert.equal(o.misc, c.misc);
      assert.equal(statusOf(o), 'closed');
      assert.equal(str(h.engine.lastTrade(h.btc)?.price), c.side === 'buy' ? '65000' : '55000');
    }
  });

  void it('stop-limit becomes a limit at price2, which may be relative to the trigger', () => {
    const h = harness();
    const a = h.account('a');
    const o = h.engine.place(
      a,
      spec({
        pair: h.btc,
        side: 'sell',
        type: 'stop-loss-limit',
        volume: '0.2',
        price: '59000',
        price2: '-100',
      }),
    );
    assert.equal(str(o.limitPrice), '58900');
    printAt(h, h.btc, '58950');
    assert.equal(o.triggered, true);
    // Nothing bids at or above 58900: it rests as a limit order.
    assert.equal(o.status, 'open');
    assert.deepEqual(levels(h, h.btc, 'asks'), ['58900:0.2']);
  });

  void it('resolves relative stop prices against the last trade with # following the type', () => {
    const h = harness();
    const a = h.account('a');
    const place = (side: 'buy' | 'sell', type: 'stop-loss' | 'take-profit', price: string) =>
      str(h.engine.place(a, spec({ pair: h.btc, side, type, volume: '0.01', price })).stopPrice);
    // No trade yet: the pair's initial price, 60000.
    assert.equal(place('sell', 'stop-loss', '#1000'), '59000');
    assert.equal(place('buy', 'stop-loss', '#1000'), '61000');
    assert.equal(place('sell', 'take-profit', '#1000'), '61000');
    assert.equal(place('buy', 'take-profit', '#1000'), '59000');
    assert.equal(place('sell', 'stop-loss', '-1.5%'), '59100');
    assert.equal(place('sell', 'stop-loss', '+0.5%'), '60300');
    printAt(h, h.btc, '50000.3');
    // 50000.3 × 0.997 = 49850.2991: a sell stop-loss rounds down (fires no earlier).
    assert.equal(place('sell', 'stop-loss', '#0.3%'), '49850.2');
    assert.equal(place('buy', 'stop-loss', '#0.3%'), '50150.4');
  });

  void it('trailing stop follows the best price since placement', () => {
    const h = harness();
    const lp = h.account('lp');
    const a = h.account('a');
    h.engine.place(lp, spec({ pair: h.btc, side: 'buy', volume: '1', price: '50000' }));
    const trail = h.engine.place(
      a,
      spec({ pair: h.btc, side: 'sell', type: 'trailing-stop', volume: '0.1', price: '+100' }),
    );
    assert.equal(str(trail.stopPrice), '59900');
    printAt(h, h.btc, '60500');
    assert.equal(str(trail.stopPrice), '60400');
    printAt(h, h.btc, '60450');
    assert.equal(str(trail.stopPrice), '60400');
    assert.equal(trail.triggered, false);
    printAt(h, h.btc, '60400');
    assert.equal(trail.triggered, true);
    assert.equal(statusOf(trail), 'closed');

    const pct = h.engine.place(
      a,
      spec({ pair: h.btc, side: 'buy', type: 'trailing-stop', volume: '0.01', price: '+1%' }),
    );
    // Last is 60400 (the trailing sell's own print was at 50000 against lp: last is 50000).
    assert.equal(str(h.engine.lastTrade(h.btc)?.price), '50000');
    assert.equal(str(pct.stopPrice), '50500');
  });

  void it('trailing-stop-limit buy: the stop follows the low, the limit is an offset from it', () => {
    const h = harness();
    const a = h.account('a', { ZUSD: '100000' });
    const o = h.engine.place(
      a,
      spec({
        pair: h.btc,
        side: 'buy',
        type: 'trailing-stop-limit',
        volume: '1',
        price: '+200',
        price2: '+0',
      }),
    );
    assert.equal(str(o.stopPrice), '60200');
    assert.equal(str(a.wallet.hold('ZUSD')), '60440.8');
    printAt(h, h.btc, '59000');
    assert.equal(str(o.stopPrice), '59200');
    assert.equal(str(o.limitPrice), '59200');
    // The hold follows the limit down.
    assert.equal(str(a.wallet.hold('ZUSD')), '59436.8');
    printAt(h, h.btc, '59200');
    assert.equal(o.triggered, true);
    assert.equal(o.status, 'open');
    assert.deepEqual(levels(h, h.btc, 'bids'), ['59200:1']);
  });

  void it('trigger=index fires on the index price at the next tick, last price as fallback', async () => {
    const h = harness();
    const lp = h.account('lp');
    const a = h.account('a');
    h.engine.place(lp, spec({ pair: h.btc, side: 'buy', volume: '1', price: '57000' }));
    const o = h.engine.place(
      a,
      spec({
        pair: h.btc,
        side: 'sell',
        type: 'stop-loss',
        volume: '0.1',
        price: '58000',
        trigger: 'index',
      }),
    );
    await h.advance(100);
    assert.equal(o.triggered, false);
    h.index.set(h.btc.id, new Decimal('57999'));
    await h.advance(100);
    assert.equal(o.triggered, true);
    assert.equal(statusOf(o), 'closed');
  });

  void it('a fired market buy that the account cannot pay is cancelled for insufficient funds', () => {
    const h = harness();
    const lp = h.account('lp');
    const a = h.account('a', { ZUSD: '6100' });
    h.engine.place(lp, spec({ pair: h.btc, side: 'sell', volume: '1', price: '70000' }));
    const o = h.engine.place(
      a,
      spec({ pair: h.btc, side: 'buy', type: 'stop-loss', volume: '0.1', price: '60500' }),
    );
    assert.equal(str(a.wallet.hold('ZUSD')), '6074.2');
    printAt(h, h.btc, '60500');
    assert.equal(statusOf(o), 'canceled:Insufficient funds');
    assert.equal(str(a.wallet.hold('ZUSD')), '0');
    assert.equal(str(a.wallet.balance('ZUSD')), '6100');
  });

  void it('does not fire while trading is off, and fires once it is back', async () => {
    const h = harness();
    const lp = h.account('lp');
    const a = h.account('a');
    h.engine.place(lp, spec({ pair: h.btc, side: 'buy', volume: '1', price: '58000' }));
    printAt(h, h.btc, '59000');
    h.canTrade = false;
    const o = h.engine.place(
      a,
      spec({ pair: h.btc, side: 'sell', type: 'stop-loss', volume: '0.1', price: '59500' }),
    );
    await h.advance(100);
    assert.equal(o.triggered, false);
    h.canTrade = true;
    await h.advance(100);
    assert.equal(o.triggered, true);
    assert.equal(statusOf(o), 'closed');
  });

  void it("a fired stop's own prints can fire the next stop in the same operation", () => {
    const h = harness();
    const lp = h.account('lp');
    const a = h.account('a');
    h.engine.place(lp, spec({ pair: h.btc, side: 'buy', volume: '1', price: '58500' }));
    h.engine.place(lp, spec({ pair: h.btc, side: 'buy', volume: '1', price: '57000' }));
    const first = h.engine.place(
      a,
      spec({ pair: h.btc, side: 'sell', type: 'stop-loss', volume: '1', price: '59000' }),
    );
    const second = h.engine.place(
      a,
      spec({ pair: h.btc, side: 'sell', type: 'stop-loss', volume: '0.5', price: '58500' }),
    );
    printAt(h, h.btc, '59000');
    // The first sells 1 at 58500; that print reaches the second, which sells at 57000.
    assert.equal(statusOf(first), 'closed');
    assert.equal(statusOf(second), 'closed');
    assert.deepEqual(
      h.prints.map((p) => p.price.toFixed()),
      ['59000', '58500', '57000'],
    );
  });
});
