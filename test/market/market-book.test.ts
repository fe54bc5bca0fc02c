import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { dec, encodeUserref, type BookView } from '../../src/core/index.js';
import { buildSnapshot, restingInBook, withoutOurs } from '../../src/market/index.js';
import { depth, input, NOW, order } from './fixtures.js';

const prices = (book: BookView, side: 'bids' | 'asks'): string[] =>
  book[side].map((l) => `${l.price.toFixed()}x${l.volume.toFixed()}`);

const resting = (txid: string, side: 'buy' | 'sell', price: string, remaining: string) => ({
  txid,
  side,
  price: dec(price),
  remaining: dec(remaining),
  openedAtMs: NOW - 5_000,
});

describe('the market without us', () => {
  it('takes our volume off its level, and a level that was only ours away', () => {
    const snap = buildSnapshot(
      input({
        depth: depth(
          [
            ['100.0', '1.5'],
            ['99.9', '2'],
          ],
          [
            ['100.2', '0.3'],
            ['100.3', '4'],
          ],
        ),
        bookReceivedAtMs: NOW - 100,
        ownResting: [resting('B1', 'buy', '100.0', '0.5'), resting('A1', 'sell', '100.2', '0.3')],
      }),
    );
    assert.deepEqual(prices(snap.venueBook, 'bids'), ['100x1.5', '99.9x2']);
    assert.deepEqual(prices(snap.book, 'bids'), ['100x1', '99.9x2']);
    assert.deepEqual(prices(snap.book, 'asks'), ['100.3x4']);
    // Best prices, mid and microprice are the market's.
    assert.equal(snap.bestAsk?.toFixed(), '100.3');
    assert.equal(snap.mid?.toFixed(), '100.15');
    // (100 × 4 + 100.3 × 1) / 5: the market's thin bid pulls it down.
    assert.equal(snap.microprice?.toFixed(), '100.06');
  });

  it('leaves in an order the exchange acknowledged after the Depth answer arrived', () => {
    const late = { ...resting('B1', 'buy', '100.0', '0.5'), openedAtMs: NOW - 50 };
    const snap = buildSnapshot(
      input({
        depth: depth([['100.0', '1.5']], [['100.2', '1']]),
        bookReceivedAtMs: NOW - 100,
        ownResting: [late],
      }),
    );
    assert.deepEqual(prices(snap.book, 'bids'), ['100x1.5']);
  });

  it("takes out OpenOrders' orders too, the tracker's remaining volume winning", () => {
    const ours = encodeUserref(5, { side: 'buy', level: 0 }, 1);
    const listed = order({ price: '100.0', vol: '1', volExec: '0', userref: ours, opentm: 1 });
    // Another instance of the same key: still the key's own order, never a price to follow.
    const foreign = order({ price: '99.9', vol: '2', userref: null, opentm: 1 });
    const snap = buildSnapshot(
      input({
        depth: depth(
          [
            ['100.0', '1.5'],
            ['99.9', '2'],
            ['99.8', '3'],
          ],
          [['100.2', '1']],
        ),
        openOrders: { T1: listed, T2: foreign },
        // The tracker saw T1 partly filled since OpenOrders answered: 0.25 rests.
        ownResting: [resting('T1', 'buy', '100.0', '0.25')],
        bookReceivedAtMs: NOW - 100,
      }),
    );
    assert.deepEqual(prices(snap.book, 'bids'), ['100x1.25', '99.8x3']);
    assert.equal(snap.openOrders.length, 2, 'our orders are listed apart');
  });

  it('takes our volume out of the GroupedBook bucket that holds its price', () => {
    const grouped = withoutOurs(
      {
        bids: [{ price: dec('100.0'), volume: dec('3') }],
        asks: [{ price: dec('101.0'), volume: dec('2') }],
      },
      [
        { side: 'buy', price: dec('100.7'), remaining: dec('1') },
        { side: 'sell', price: dec('100.3'), remaining: dec('2') },
      ],
      dec('1'),
    );
    assert.deepEqual(prices(grouped, 'bids'), ['100x2']);
    assert.deepEqual(prices(grouped, 'asks'), []);
  });

  it('counts an order once, by txid, and only once acknowledged', () => {
    const listed = order({ price: '100.0', vol: '1', opentm: 1 });
    const own = buildSnapshot(input({ openOrders: { T1: listed } })).openOrders;
    const volumes = restingInBook(
      own,
      [
        resting('T1', 'buy', '100.0', '0.4'),
        { ...resting('P1', 'buy', '99.9', '1'), openedAtMs: 0 },
      ],
      NOW,
    );
    assert.deepEqual(
      volumes.map((v) => `${v.price.toFixed()}x${v.remaining.toFixed()}`),
      ['100x0.4'],
    );
  });
});
