import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { dec, InvalidInputError } from '../../src/core/index.js';
import type { PairInfo } from '../../src/core/market.js';
import { roundQuotes, type DropReason } from '../../src/runner/quote-rounding.js';
import type { DesiredQuote, Side } from '../../src/runner/strategy-api.js';

const pairWith = (
  tickSize: string,
  orderMin = '0.0001',
  costMin: string | null = '0.5',
): PairInfo => ({
  id: 'XXBTZUSD',
  altname: 'XBTUSD',
  base: 'XXBT',
  quote: 'ZUSD',
  tickSize: dec(tickSize),
  priceDecimals: dec(tickSize).decimalPlaces(),
  lotDecimals: 8,
  orderMin: dec(orderMin),
  costMin: costMin === null ? undefined : dec(costMin),
  feeLadder: { maker: [], taker: [] },
});

const q = (side: Side, level: number, price: string, volume: string): DesiredQuote => ({
  side,
  level,
  price: dec(price),
  volume: dec(volume),
});

void describe('roundQuotes: price to tick away from the mid, volume down to the lot', () => {
  const cases: [tick: string, side: Side, price: string, want: string][] = [
    ['0.1', 'buy', '100.19', '100.1'],
    ['0.1', 'sell', '100.11', '100.2'],
    ['0.1', 'buy', '100.1', '100.1'],
    ['0.1', 'sell', '100.1', '100.1'],
    ['0.1', 'sell', '100.100000000000000000000001', '100.2'],
    ['0.00001', 'buy', '0.123456789', '0.12345'],
    ['0.00001', 'sell', '0.123450001', '0.12346'],
    ['0.00001', 'sell', '0.12345', '0.12345'],
    ['0.5', 'buy', '100.49', '100'],
    ['0.5', 'sell', '100.01', '100.5'],
  ];
  for (const [tick, side, price, want] of cases) {
    void it(`tick ${tick}: ${side} ${price} -> ${want}`, () => {
      const { accepted, dropped } = roundQuotes([q(side, 0, price, '100')], pairWith(tick));
      assert.deepEqual(dropped, []);
      assert.equal(accepted[0]?.price.toFixed(), want);
    });
  }

  void it('rounds volume down to lotDecimals and keeps exact strings', () => {
    const { accepted } = roundQuotes([q('buy', 0, '100', '0.123456789999')], pairWith('0.1'));
    assert.equal(accepted[0]?.volume.toFixed(), '0.12345678');
  });

  void it('keeps the rest of the quote, defaults postOnly to true and adds the slot key', () => {
    const { accepted } = roundQuotes(
      [
        { ...q('sell', 3, '101', '1'), tolerance: { priceBps: 2 }, maxAgeMs: 60_000 },
        { ...q('buy', 1, '99', '1'), postOnly: false },
      ],
      pairWith('0.1'),
    );
    assert.deepEqual(
      accepted.map((a) => ({ ...a, price: a.price.toFixed(), volume: a.volume.toFixed() })),
      [
        {
          side: 'sell',
          level: 3,
          price: '101',
          volume: '1',
          tolerance: { priceBps: 2 },
          maxAgeMs: 60_000,
          postOnly: true,
          slot: 'ask:3',
        },
        { side: 'buy', level: 1, price: '99', volume: '1', postOnly: false, slot: 'bid:1' },
      ],
    );
  });
});

void describe('roundQuotes: drops', () => {
  const cases: [name: string, quote: DesiredQuote, pair: PairInfo, reason: DropReason][] = [
    [
      'volume rounds to zero',
      q('buy', 0, '100', '0.000000009'),
      pairWith('0.1', '0'),
      'non-positive',
    ],
    [
      'bid rounds to price zero',
      q('buy', 0, '0.05', '100'),
      pairWith('0.1', '0', null),
      'non-positive',
    ],
    ['negative price', q('sell', 0, '-1', '1'), pairWith('0.1'), 'non-positive'],
    [
      'under ordermin after rounding',
      q('buy', 0, '100', '0.000099999'),
      pairWith('0.1'),
      'below-ordermin',
    ],
    ['under costmin', q('buy', 0, '10', '0.049'), pairWith('0.1'), 'below-costmin'],
    [
      'costmin checked on the rounded price',
      q('buy', 0, '10.09', '0.0496'),
      pairWith('0.1', '0.0001', '0.5'),
      'below-costmin',
    ],
    ['fractional level', q('buy', 0.5, '100', '1'), pairWith('0.1'), 'bad-level'],
    ['negative level', q('buy', -1, '100', '1'), pairWith('0.1'), 'bad-level'],
    ['level over 127', q('sell', 128, '100', '1'), pairWith('0.1'), 'bad-level'],
    [
      'NaN price',
      { ...q('buy', 0, '1', '1'), price: dec('1').div(0).minus(dec('1').div(0)) },
      pairWith('0.1'),
      'not-a-decimal',
    ],
    [
      'negative tolerance',
      { ...q('buy', 0, '100', '1'), tolerance: { priceBps: -1 } },
      pairWith('0.1'),
      'bad-tolerance',
    ],
  ];
  for (const [name, quote, pair, reason] of cases) {
    void it(`${name}: ${reason}`, () => {
      const { accepted, dropped } = roundQuotes([quote], pair);
      assert.deepEqual(accepted, []);
      assert.equal(dropped.length, 1);
      assert.equal(dropped[0]?.reason, reason);
      assert.equal(dropped[0]?.quote, quote);
      assert.equal(dropped[0]?.index, 0);
    });
  }

  void it('accepts exactly ordermin and exactly costmin', () => {
    const { accepted } = roundQuotes([q('buy', 0, '5', '0.1')], pairWith('0.1', '0.1', '0.5'));
    assert.equal(accepted.length, 1);
  });

  void it('skips the costmin check when the pair has none', () => {
    const { accepted } = roundQuotes([q('buy', 0, '1', '0.0001')], pairWith('0.1', '0.0001', null));
    assert.equal(accepted.length, 1);
  });

  void it('keeps the first quote of a slot and drops later ones, even when the first is dropped', () => {
    const quotes = [
      q('buy', 0, '100', '0.00000001'),
      q('buy', 0, '100', '1'),
      q('sell', 0, '101', '1'),
      q('sell', 0, '102', '1'),
      q('buy', 1, '99', '1'),
    ];
    const { accepted, dropped } = roundQuotes(quotes, pairWith('0.1'));
    assert.deepEqual(
      accepted.map((a) => [a.slot, a.price.toFixed()]),
      [
        ['ask:0', '101'],
        ['bid:1', '99'],
      ],
    );
    assert.deepEqual(
      dropped.map((d) => [d.index, d.reason]),
      [
        [0, 'below-ordermin'],
        [1, 'duplicate-slot'],
        [3, 'duplicate-slot'],
      ],
    );
  });

  void it('explains a drop with the numbers', () => {
    const { dropped } = roundQuotes([q('buy', 0, '10', '0.049')], pairWith('0.1'));
    assert.equal(dropped[0]?.detail, 'cost 0.49 < costmin 0.5');
  });

  void it('rejects pair data that would make every rounding wrong', () => {
    assert.throws(
      () => roundQuotes([], pairWith('0'), 'pairs[0]'),
      (e: unknown) => e instanceof InvalidInputError && e.field === 'pairs[0].tickSize',
    );
  });
});
