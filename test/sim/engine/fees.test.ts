import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { harness, printAt, spec, str } from './support.js';

void describe('fees, ledgers, holds and 30-day volume', () => {
  void it('charges maker and taker rates in the default fee currencies and posts both legs', () => {
    const h = harness();
    const maker = h.account('maker');
    const taker = h.account('taker');
    const sell = h.engine.place(
      maker,
      spec({ pair: h.btc, side: 'sell', volume: '1', price: '60000' }),
    );
    const buy = h.engine.place(
      taker,
      spec({ pair: h.btc, side: 'buy', volume: '1', price: '60000' }),
    );

    // Selling: fee in base at the maker rate (0.25 %). Buying: fee in quote at the taker rate (0.4 %).
    assert.equal(str(sell.fee), '0.0025');
    assert.equal(str(buy.fee), '240');
    assert.equal(str(maker.wallet.balance('XXBT')), '98.9975');
    assert.equal(str(maker.wallet.balance('ZUSD')), '1060000');
    assert.equal(str(taker.wallet.balance('XXBT')), '101');
    assert.equal(str(taker.wallet.balance('ZUSD')), '939760');

    const [mt] = h.engine.trades(maker);
    const [tt] = h.engine.trades(taker);
    assert.ok(mt && tt);
    assert.deepEqual(
      [mt.maker, mt.feeAsset, str(mt.fee), mt.postxid],
      [true, 'XXBT', '0.0025', buy.txid],
    );
    assert.deepEqual(
      [tt.maker, tt.feeAsset, str(tt.fee), tt.postxid],
      [false, 'ZUSD', '240', sell.txid],
    );
    assert.equal(mt.tradeId, tt.tradeId);
    assert.notEqual(mt.id, tt.id);

    const entries = taker.wallet.ledger.filter((e) => e.refid === tt.id);
    assert.deepEqual(
      entries.map((e) => [e.type, e.asset, str(e.amount), str(e.fee), str(e.balance)]),
      [
        ['trade', 'XXBT', '1', '0', '101'],
        ['trade', 'ZUSD', '-60000', '240', '939760'],
      ],
    );
    assert.deepEqual(
      tt.ledgers,
      entries.map((e) => e.id),
    );
    assert.equal(str(h.engine.collectedFees().get('XXBT')), '0.0025');
    assert.equal(str(h.engine.collectedFees().get('ZUSD')), '240');
  });

  void it('fcib on a buy takes the fee from the base received; fciq on a sell from the quote', () => {
    const h = harness();
    const buyer = h.account('buyer');
    const seller = h.account('seller');
    const bid = h.engine.place(
      buyer,
      spec({ pair: h.btc, side: 'buy', volume: '2', price: '50000', fcib: true }),
    );
    // fcib buy holds the cost only; fciq sell holds the volume only.
    assert.equal(str(buyer.wallet.hold('ZUSD')), '100000');
    assert.equal(bid.oflags, 'fcib');
    const ask = h.engine.place(
      seller,
      spec({ pair: h.btc, side: 'sell', volume: '2', price: '50000', fciq: true }),
    );
    assert.equal(str(buyer.wallet.balance('XXBT')), '101.995');
    assert.equal(str(buyer.wallet.balance('ZUSD')), '900000');
    assert.equal(str(seller.wallet.balance('XXBT')), '98');
    assert.equal(str(seller.wallet.balance('ZUSD')), '1099600');
    assert.equal(str(bid.fee), '0.005');
    assert.equal(str(ask.fee), '400');
  });

  void it('moves accounts down the fee ladder with 30-day USD volume', async () => {
    const h = harness();
    const maker = h.account('maker');
    const taker = h.account('taker');
    assert.equal(str(h.engine.volumeUsd(taker)), '0');
    h.engine.place(maker, spec({ pair: h.btc, side: 'sell', volume: '1', price: '60000' }));
    h.engine.place(taker, spec({ pair: h.btc, side: 'buy', volume: '1', price: '60000' }));
    assert.equal(str(h.engine.volumeUsd(taker)), '60000');
    assert.equal(str(h.engine.volumeUsd(maker)), '60000');
    h.engine.place(maker, spec({ pair: h.btc, side: 'sell', volume: '0.1', price: '60000' }));
    const second = h.engine.place(
      taker,
      spec({ pair: h.btc, side: 'buy', volume: '0.1', price: '60000' }),
    );
    // 60000 ≥ 50000: taker 0.24 %.
    assert.equal(str(second.fee), '14.4');
    await h.advance(30 * 24 * 3600 * 1000);
    assert.equal(str(h.engine.volumeUsd(taker)), '0');
  });

  void it('converts non-USD quotes at the last <quote>ZUSD price', () => {
    const h = harness();
    const a = h.account('a');
    const b = h.account('b');
    printAt(h, h.btc, '50000');
    h.engine.place(a, spec({ pair: h.ethbtc, side: 'sell', volume: '2', price: '0.05' }));
    h.engine.place(b, spec({ pair: h.ethbtc, side: 'buy', volume: '2', price: '0.05' }));
    assert.equal(str(h.engine.volumeUsd(b)), '5000');
  });

  void it('resizes holds on each partial fill and releases them at the end', () => {
    const h = harness();
    const a = h.account('a');
    const lp = h.account('lp');
    h.engine.place(a, spec({ pair: h.btc, side: 'buy', volume: '1', price: '60000' }));
    assert.equal(str(a.wallet.hold('ZUSD')), '60240');
    h.engine.place(lp, spec({ pair: h.btc, side: 'sell', volume: '0.25', price: '59000' }));
    // Filled at its own price (60000) as the resting order: 0.75 left at 60000 plus fee reserve.
    assert.equal(str(a.wallet.hold('ZUSD')), '45180');
    assert.equal(str(a.wallet.balance('ZUSD')), '984962.5');
    h.engine.place(lp, spec({ pair: h.btc, side: 'sell', volume: '0.75', price: '60000' }));
    assert.equal(str(a.wallet.hold('ZUSD')), '0');
  });

  void it("keeps a user account's newest history only when the engine is told a bound", () => {
    for (const kept of [undefined, 5]) {
      const h = harness(kept === undefined ? {} : { userHistoryKept: kept });
      const maker = h.account('maker');
      const taker = h.account('taker');
      for (let i = 0; i < 12; i++) {
        h.engine.place(maker, spec({ pair: h.btc, side: 'sell', volume: '0.1', price: '60000' }));
        h.engine.place(taker, spec({ pair: h.btc, side: 'buy', volume: '0.1', price: '60000' }));
      }
      const sizes = [
        h.engine.closedOrders(taker).length,
        h.engine.trades(taker).length,
        taker.wallet.ledger.length,
      ];
      if (kept === undefined) {
        assert.deepEqual(sizes.slice(0, 2), [12, 12], 'a paper venue keeps everything');
        assert.ok(sizes[2] !== undefined && sizes[2] >= 24);
      } else {
        // Trimmed back to the bound each time it doubles: never more than twice it.
        for (const size of sizes) assert.ok(size >= kept && size <= 2 * kept, sizes.join(', '));
      }
    }
  });
});
