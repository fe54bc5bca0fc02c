import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { harness, levels, spec, statusOf, str } from './support.js';

void describe('iceberg orders', () => {
  void it('shows only the display slice and refreshes it at the back of the queue', () => {
    const h = harness();
    const ice = h.account('ice');
    const other = h.account('other');
    const taker = h.account('taker');
    const a = h.engine.place(
      ice,
      spec({ pair: h.btc, side: 'sell', volume: '1', price: '60000', displayvol: '0.2' }),
    );
    const b = h.engine.place(
      other,
      spec({ pair: h.btc, side: 'sell', volume: '0.5', price: '60000' }),
    );
    assert.deepEqual(levels(h, h.btc, 'asks'), ['60000:0.2', '60000:0.5']);
    const firstTs = h.engine.book(h.btc).asks[0]?.timestampNs ?? 0n;

    h.engine.place(taker, spec({ pair: h.btc, side: 'buy', volume: '0.3', price: '60000' }));
    // The slice went first; the next slice queues behind the visible 0.5.
    assert.deepEqual(
      h.engine.book(h.btc).asks.map((e) => [e.txid, e.qty.toFixed()]),
      [
        [b.txid, '0.4'],
        [a.txid, '0.2'],
      ],
    );
    assert.ok((h.engine.book(h.btc).asks[1]?.timestampNs ?? 0n) > firstTs);
    assert.deepEqual(
      h.prints.map((p) => p.volume.toFixed()),
      ['0.2', '0.1'],
    );

    h.engine.place(taker, spec({ pair: h.btc, side: 'buy', volume: '0.6', price: '60000' }));
    assert.equal(str(a.volExec), '0.4');
    assert.equal(statusOf(b), 'closed');
    assert.deepEqual(levels(h, h.btc, 'asks'), ['60000:0.2']);
    // The hold covers the hidden part too (fee in base when selling).
    assert.equal(str(ice.wallet.hold('XXBT')), '0.6024');
  });

  void it('hidden volume trades through successive slices within one order', () => {
    const h = harness();
    const ice = h.account('ice');
    const a = h.engine.place(
      ice,
      spec({ pair: h.btc, side: 'sell', volume: '0.5', price: '60000', displayvol: '0.2' }),
    );
    const buy = h.engine.place(
      h.account('t'),
      spec({ pair: h.btc, side: 'buy', volume: '0.45', price: '60000' }),
    );
    assert.equal(statusOf(buy), 'closed');
    assert.deepEqual(
      h.prints.map((p) => p.volume.toFixed()),
      ['0.2', '0.2', '0.05'],
    );
    // The last slice is what is left, not a full display volume.
    assert.deepEqual(levels(h, h.btc, 'asks'), ['60000:0.05']);
    assert.equal(str(a.volExec), '0.45');
  });
});
