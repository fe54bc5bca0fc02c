import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { harness, levels, spec, statusOf, str } from './support.js';

void describe('limit orders and price-time priority', () => {
  void it('rests a limit that does not cross, best price first on each side', () => {
    const h = harness();
    const a = h.account('a');
    h.engine.place(a, spec({ pair: h.btc, side: 'buy', volume: '1', price: '59990' }));
    h.engine.place(a, spec({ pair: h.btc, side: 'buy', volume: '2', price: '59995' }));
    h.engine.place(a, spec({ pair: h.btc, side: 'sell', volume: '3', price: '60020' }));
    h.engine.place(a, spec({ pair: h.btc, side: 'sell', volume: '4', price: '60010' }));
    assert.deepEqual(levels(h, h.btc, 'bids'), ['59995:2', '59990:1']);
    assert.deepEqual(levels(h, h.btc, 'asks'), ['60010:4', '60020:3']);
    assert.equal(h.prints.length, 0);
    assert.deepEqual(h.engine.top(h.btc), {
      bid: h.engine.book(h.btc).bids[0]?.price,
      ask: h.engine.book(h.btc).asks[0]?.price,
    });
  });

  void it('fills at the resting price, better price first, then earlier order first', () => {
    const h = harness();
    const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((k) => h.account(k));
    const sa = h.engine.place(a!, spec({ pair: h.btc, side: 'sell', volume: '1', price: '60010' }));
    const sb = h.engine.place(b!, spec({ pair: h.btc, side: 'sell', volume: '1', price: '60010' }));
    const sc = h.engine.place(
      c!,
      spec({ pair: h.btc, side: 'sell', volume: '0.5', price: '60005' }),
    );
    const buy = h.engine.place(
      d!,
      spec({ pair: h.btc, side: 'buy', volume: '1.8', price: '60010' }),
    );

    assert.deepEqual(
      h.prints.map((p) => [p.price.toFixed(), p.volume.toFixed(), p.side, p.ordertype]),
      [
        ['60005', '0.5', 'buy', 'l'],
        ['60010', '1', 'buy', 'l'],
        ['60010', '0.3', 'buy', 'l'],
      ],
    );
    assert.deepEqual(
      h.prints.map((p) => p.tradeId),
      [1, 2, 3],
    );
    assert.equal(statusOf(buy), 'closed');
    assert.equal(str(buy.volExec), '1.8');
    assert.equal(str(buy.cost), '108015.5');
    assert.equal(statusOf(sc), 'closed');
    assert.equal(statusOf(sa), 'closed');
    assert.equal(statusOf(sb), 'open');
    assert.equal(str(sb.volExec), '0.3');
    assert.deepEqual(levels(h, h.btc, 'asks'), ['60010:0.7']);
    assert.equal(h.engine.book(h.btc).asks[0]?.txid, sb.txid);
    assert.equal(str(h.engine.lastTrade(h.btc)?.price), '60010');
  });

  void it('rests the unfilled part of a crossing limit at its own price', () => {
    const h = harness();
    const a = h.account('a');
    const b = h.account('b');
    h.engine.place(a, spec({ pair: h.btc, side: 'sell', volume: '0.4', price: '60000' }));
    const buy = h.engine.place(b, spec({ pair: h.btc, side: 'buy', volume: '1', price: '60100' }));
    assert.equal(statusOf(buy), 'open');
    assert.equal(str(buy.volExec), '0.4');
    assert.deepEqual(levels(h, h.btc, 'bids'), ['60100:0.6']);
    assert.deepEqual(levels(h, h.btc, 'asks'), []);
  });

  void it('notifies book listeners once per operation and trade listeners once per print', () => {
    const h = harness();
    const a = h.account('a');
    const b = h.account('b');
    h.engine.place(a, spec({ pair: h.btc, side: 'sell', volume: '1', price: '60000' }));
    h.engine.place(a, spec({ pair: h.btc, side: 'sell', volume: '1', price: '60001' }));
    assert.deepEqual(h.bookEvents, ['XXBTZUSD', 'XXBTZUSD']);
    h.engine.place(b, spec({ pair: h.btc, side: 'buy', volume: '2', price: '60001' }));
    assert.deepEqual(h.bookEvents, ['XXBTZUSD', 'XXBTZUSD', 'XXBTZUSD']);
    assert.equal(h.prints.length, 2);
  });

  void it('gives every order a unique, increasing nanosecond time within a millisecond', () => {
    const h = harness();
    const a = h.account('a');
    const o1 = h.engine.place(a, spec({ pair: h.btc, side: 'buy', volume: '1', price: '100' }));
    const o2 = h.engine.place(a, spec({ pair: h.btc, side: 'buy', volume: '1', price: '100' }));
    assert.equal(o1.opentmNs, BigInt(h.clock.now()) * 1_000_000n);
    assert.equal(o2.opentmNs, o1.opentmNs + 1n);
    assert.deepEqual(
      h.engine.book(h.btc).bids.map((e) => e.timestampNs),
      [o1.opentmNs, o2.opentmNs],
    );
    assert.match(o1.txid, /^O[A-Z2-7]{5}-[A-Z2-7]{5}-[A-Z2-7]{6}$/);
  });

  void it('stamps exact nanoseconds from a clock with fractional milliseconds', async () => {
    const h = harness();
    const a = h.account('a');
    const b = h.account('b');
    // 0.375 ms is exact in binary: T0 + 123.375 ms is 1_700_000_000_123_375_000 ns.
    await h.advance(123.375);
    assert.equal(h.clock.now(), 1_700_000_000_123.375);
    const o1 = h.engine.place(a, spec({ pair: h.btc, side: 'buy', volume: '1', price: '100' }));
    const o2 = h.engine.place(a, spec({ pair: h.btc, side: 'buy', volume: '1', price: '100' }));
    assert.equal(o1.opentmNs, 1_700_000_000_123_375_000n);
    assert.equal(o2.opentmNs, o1.opentmNs + 1n);
    // A later instant within the same millisecond starts from its own nanoseconds.
    await h.advance(0.5);
    const o3 = h.engine.place(b, spec({ pair: h.btc, side: 'buy', volume: '1', price: '100' }));
    assert.equal(o3.opentmNs, 1_700_000_000_123_875_000n);
    assert.deepEqual(
      h.engine.book(h.btc).bids.map((e) => e.timestampNs),
      [o1.opentmNs, o2.opentmNs, o3.opentmNs],
    );
  });

  void it('stamps a performance.timeOrigin + performance.now() style reading', async () => {
    const h = harness();
    const a = h.account('a');
    await h.advance(123.456);
    // The double nearest 1_700_000_000_123.456 is …123.4560546875: its ns, truncated.
    assert.equal(h.clock.now(), 1_700_000_000_123.4560546875);
    const o = h.engine.place(a, spec({ pair: h.btc, side: 'sell', volume: '1', price: '200' }));
    assert.equal(o.opentmNs, 1_700_000_000_123_456_054n);
    assert.equal(h.engine.book(h.btc).asks[0]?.timestampNs, o.opentmNs);
  });

  void it('limits the view to the best levels when asked', () => {
    const h = harness();
    const a = h.account('a');
    for (const p of ['100', '101', '101', '102']) {
      h.engine.place(a, spec({ pair: h.btc, side: 'buy', volume: '1', price: p }));
    }
    const view = h.engine.book(h.btc, 2);
    assert.deepEqual(
      view.bids.map((e) => e.price.toFixed()),
      ['102', '101', '101'],
    );
  });
});
