import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { InvalidInputError, dec } from '../../src/core/index.js';
import { applyFill, deriveFill, emptyPosition } from '../../src/orders/index.js';
import type { Fill, Position, TrackedOrder } from '../../src/orders/types.js';
import { trackedOrder } from '../support/tracked-order.js';

const PAIR = 'XXBTZUSD';

/** A fill at `cost / volume`, the price deriveFill would give. */
function fill(
  side: 'buy' | 'sell',
  volume: string,
  cost: string,
  fee = '0',
  feeIn: 'base' | 'quote' = 'quote',
): Fill {
  return {
    pair: PAIR,
    txid: 'OTX-1',
    userref: 1,
    side,
    price: dec(cost).div(volume).toFixed(),
    volume,
    cost,
    fee,
    feeIn,
    atMs: 1_000,
  };
}

const run = (...fills: Fill[]): Position => fills.reduce(applyFill, emptyPosition(PAIR));

/** The money fields only, for compact expectations. */
const books = (p: Position) => ({
  base: p.base,
  quote: p.quote,
  fees: p.fees,
  avgPrice: p.avgPrice,
  realizedPnl: p.realizedPnl,
});

void describe('applyFill (average cost)', () => {
  const cases: Array<{ name: string; fills: Fill[]; expect: ReturnType<typeof books> }> = [
    {
      name: 'buy then sell at a profit, quote fees',
      fills: [fill('buy', '1', '100', '0.16'), fill('sell', '1', '110', '0.176')],
      expect: { base: '0', quote: '9.664', fees: '0.336', avgPrice: '0', realizedPnl: '9.664' },
    },
    {
      name: 'a partial sell realizes its share and keeps the average',
      fills: [fill('buy', '2', '200'), fill('sell', '0.5', '60')],
      expect: { base: '1.5', quote: '-140', fees: '0', avgPrice: '100', realizedPnl: '10' },
    },
    {
      name: 'buys average by volume',
      fills: [fill('buy', '1', '100'), fill('buy', '3', '360')],
      expect: { base: '4', quote: '-460', fees: '0', avgPrice: '115', realizedPnl: '0' },
    },
    {
      name: 'sell into a short, buy part back at a profit',
      fills: [fill('sell', '2', '100'), fill('buy', '1', '40')],
      expect: { base: '-1', quote: '60', fees: '0', avgPrice: '50', realizedPnl: '10' },
    },
    {
      name: 'buy the rest of the short back at a loss',
      fills: [fill('sell', '2', '100'), fill('buy', '1', '40'), fill('buy', '1', '60')],
      expect: { base: '0', quote: '0', fees: '0', avgPrice: '0', realizedPnl: '0' },
    },
    {
      name: 'a sell crossing zero closes the long and opens a short at its price',
      fills: [fill('buy', '1', '100'), fill('sell', '3', '330')],
      expect: { base: '-2', quote: '230', fees: '0', avgPrice: '110', realizedPnl: '10' },
    },
    {
      name: 'then buying the short back',
      fills: [fill('buy', '1', '100'), fill('sell', '3', '330'), fill('buy', '2', '210')],
      expect: { base: '0', quote: '20', fees: '0', avgPrice: '0', realizedPnl: '20' },
    },
    {
      name: 'a buy crossing zero closes the short and opens a long at its price',
      fills: [fill('sell', '1', '100'), fill('buy', '3', '270')],
      expect: { base: '2', quote: '-170', fees: '0', avgPrice: '90', realizedPnl: '10' },
    },
    {
      name: 'a base fee on a buy: less base, the fee valued at the fill price',
      fills: [fill('buy', '1', '100', '0.002', 'base')],
      expect: { base: '0.998', quote: '-100', fees: '0.2', avgPrice: '100', realizedPnl: '-0.2' },
    },
    {
      name: 'base fee in, quote fee out, flat: realized equals quote',
      fills: [fill('buy', '1', '100', '0.002', 'base'), fill('sell', '0.998', '109.78', '0.1')],
      expect: { base: '0', quote: '9.68', fees: '0.3', avgPrice: '0', realizedPnl: '9.68' },
    },
    {
      // The fee's 0.001 base cost 0.1 (at the average 100), not the 0.11 it is valued at.
      name: 'a base fee on a sell from a long costs the basis of the units given up',
      fills: [fill('buy', '2', '200'), fill('sell', '1', '110', '0.001', 'base')],
      expect: { base: '0.999', quote: '-90', fees: '0.11', avgPrice: '100', realizedPnl: '9.9' },
    },
    {
      name: 'and selling the rest closes the books exactly',
      fills: [
        fill('buy', '2', '200'),
        fill('sell', '1', '110', '0.001', 'base'),
        fill('sell', '0.999', '109.89'),
      ],
      expect: { base: '0', quote: '19.89', fees: '0.11', avgPrice: '0', realizedPnl: '19.89' },
    },
    {
      name: 'a base fee on a sell from flat extends the short at the fill price',
      fills: [fill('sell', '1', '100', '0.001', 'base')],
      expect: { base: '-1.001', quote: '100', fees: '0.1', avgPrice: '100', realizedPnl: '-0.1' },
    },
    {
      name: 'many small fills sum exactly (3 x 0.1 = 0.3)',
      fills: [fill('buy', '0.1', '0.01'), fill('buy', '0.1', '0.01'), fill('buy', '0.1', '0.01')],
      expect: { base: '0.3', quote: '-0.03', fees: '0', avgPrice: '0.1', realizedPnl: '0' },
    },
    {
      name: 'and sold in one go',
      fills: [
        fill('buy', '0.1', '0.01', '0.00001'),
        fill('buy', '0.1', '0.01', '0.00001'),
        fill('buy', '0.1', '0.01', '0.00001'),
        fill('sell', '0.3', '0.036', '0.00003'),
      ],
      expect: {
        base: '0',
        quote: '0.00594',
        fees: '0.00006',
        avgPrice: '0',
        realizedPnl: '0.00594',
      },
    },
    {
      name: 'an uneven average price leaves no remainder once flat',
      fills: [fill('buy', '0.7', '0.3'), fill('sell', '0.7', '0.35')],
      expect: { base: '0', quote: '0.05', fees: '0', avgPrice: '0', realizedPnl: '0.05' },
    },
  ];

  for (const c of cases) {
    void it(c.name, () => {
      const position = run(...c.fills);
      assert.deepEqual(books(position), c.expect);
      assert.equal(position.fills, c.fills.length);
      assert.equal(position.pair, PAIR);
    });
  }

  void it('ten fills of 0.1 make exactly 1, with no float residue', () => {
    const position = run(...Array.from({ length: 10 }, () => fill('buy', '0.1', '5000.1')));
    assert.equal(position.base, '1');
    assert.equal(position.quote, '-50001');
    assert.equal(position.avgPrice, '50001');
  });

  void it('keeps the fill time and counts fills', () => {
    const position = applyFill(emptyPosition(PAIR), { ...fill('buy', '1', '10'), atMs: 42 });
    assert.equal(position.updatedAtMs, 42);
    assert.equal(position.fills, 1);
    assert.deepEqual(emptyPosition('X'), {
      pair: 'X',
      base: '0',
      quote: '0',
      fees: '0',
      avgPrice: '0',
      realizedPnl: '0',
      fills: 0,
      updatedAtMs: 0,
    });
  });

  void it('refuses a fill of another pair or of no volume', () => {
    assert.throws(
      () => applyFill(emptyPosition('ETHUSD'), fill('buy', '1', '1')),
      (err) => err instanceof InvalidInputError && err.field === 'fill.pair',
    );
    assert.throws(
      () => applyFill(emptyPosition(PAIR), { ...fill('buy', '1', '1'), volume: '0' }),
      (err) => err instanceof InvalidInputError && err.field === 'fill.volume',
    );
  });

  void it('property: realized PnL = quote + base x avgPrice after any sequence of fills', () => {
    const amount = (max: number) => fc.integer({ min: 1, max }).map((n) => dec(n).div(1000));
    const arbFill = fc
      .record({
        buy: fc.boolean(),
        volume: amount(5000),
        price: amount(200_000),
        fee: fc.integer({ min: 0, max: 30 }),
        base: fc.boolean(),
      })
      .map(({ buy, volume, price, fee, base }) => {
        const cost = volume.times(price);
        // Fee as a fraction of what was traded, in the asset the order says.
        const amountFee = (base ? volume : cost).times(fee).div(10_000);
        return fill(
          buy ? 'buy' : 'sell',
          volume.toFixed(),
          cost.toFixed(),
          amountFee.toFixed(),
          base ? 'base' : 'quote',
        );
      });
    fc.assert(
      fc.property(fc.array(arbFill, { minLength: 1, maxLength: 25 }), (fills) => {
        let position = emptyPosition(PAIR);
        for (const f of fills) {
          position = applyFill(position, f);
          const books = dec(position.quote).plus(dec(position.base).times(position.avgPrice));
          const gap = books.minus(position.realizedPnl).abs();
          assert.ok(gap.lt('1e-25'), `gap ${gap.toFixed()} after ${JSON.stringify(f)}`);
          if (dec(position.base).isZero()) {
            assert.equal(position.avgPrice, '0');
            assert.equal(position.realizedPnl, position.quote);
          }
          for (const v of [position.base, position.quote, position.fees, position.avgPrice]) {
            assert.match(v, /^-?\d+(\.\d*[1-9])?$/, 'plain decimal, trailing zeros trimmed');
          }
        }
      }),
      { numRuns: 300 },
    );
  });
});

function order(overrides: Partial<TrackedOrder> = {}): TrackedOrder {
  return trackedOrder({ pair: PAIR, ...overrides });
}

void describe('deriveFill', () => {
  void it('no growth of volumeExecuted is no fill', () => {
    const before = order({ volumeExecuted: '0.5', cost: '0.25' });
    assert.equal(deriveFill(before, before, 10), undefined);
    assert.equal(deriveFill(before, order({ volumeExecuted: '0.4', cost: '0.2' }), 10), undefined);
    assert.equal(deriveFill(before, { ...before, state: 'canceled' }, 10), undefined);
  });

  void it('prices the growth at Δcost / Δvolume, to 40 significant digits', () => {
    const got = deriveFill(
      order(),
      order({ volumeExecuted: '0.7', cost: '0.3', fee: '0.0006', state: 'partially-filled' }),
      1234,
    );
    assert.deepEqual(got, {
      pair: PAIR,
      txid: 'OTX-1',
      userref: 7,
      side: 'buy',
      price: '0.4285714285714285714285714285714285714286',
      volume: '0.7',
      cost: '0.3',
      fee: '0.0006',
      feeIn: 'quote',
      atMs: 1234,
    });
  });

  void it('takes only the difference from the previous view', () => {
    const got = deriveFill(
      order({ volumeExecuted: '0.5', cost: '25.00', fee: '0.04' }),
      order({ volumeExecuted: '1.2', cost: '60.7', fee: '0.0971', feeIn: 'base' }),
      5,
    );
    assert.equal(got?.volume, '0.7');
    assert.equal(got?.cost, '35.7');
    assert.equal(got?.price, '51');
    assert.equal(got?.fee, '0.0571');
    assert.equal(got?.feeIn, 'base');
  });

  void it('keeps the txid known before when the view has none', () => {
    const got = deriveFill(order(), order({ txid: null, volumeExecuted: '1', cost: '1' }), 5);
    assert.equal(got?.txid, 'OTX-1');
  });

  void it('refuses views that cannot be of the same order, or nonsense growth', () => {
    const grown = { volumeExecuted: '1', cost: '1' };
    const refused = (before: TrackedOrder, after: TrackedOrder, field: string) =>
      assert.throws(
        () => deriveFill(before, after, 1),
        (err) => err instanceof InvalidInputError && err.field === field,
      );
    refused(order(), order({ ...grown, userref: 8 }), 'after');
    refused(order(), order({ ...grown, txid: 'OTHER' }), 'after.txid');
    refused(order({ txid: null }), order({ ...grown, txid: null }), 'after.txid');
    refused(order(), order({ ...grown, side: 'sell' }), 'after.side');
    refused(order({ cost: '2' }), order(grown), 'after.cost');
  });
});
