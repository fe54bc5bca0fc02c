import { describe, it } from 'node:test';
import assert from 'node:assert/strict';

import spread from '../../strategies/spread.js';
import { contextFor, rows, type QuoteRow } from './harness.js';
import { snapshot, type SnapshotFields } from './snapshot-fixture.js';

/** These tests check the formulas: the fee floor has its own tests (fee-floor.test.ts). */
const FORMULA = { fee_floor: false } as const;

interface Row {
  readonly name: string;
  readonly options?: Record<string, unknown>;
  readonly snap?: SnapshotFields;
  readonly expected: readonly QuoteRow[];
}

const bid = (level: number, price: string, volume = '0.01'): QuoteRow => ({
  side: 'buy',
  level,
  price,
  volume,
});
const ask = (level: number, price: string, volume = '0.01'): QuoteRow => ({
  side: 'sell',
  level,
  price,
  volume,
});

// Unless a row says otherwise the book is 99.9 / 100.1 (mid 100, tick 0.1) and the balances are
// zero, so baseShare is undefined and neither skew nor the inventory cut applies.
const table: readonly Row[] = [
  {
    name: 'defaults: one level, 20 bps wide around the mid',
    // 100 * (1 -/+ 10 bps) = 99.9 / 100.1
    expected: [bid(0, '99.9'), ask(0, '100.1')],
  },
  {
    name: 'symmetric levels spaced 10 bps apart',
    options: { levels: 3 },
    // half-spreads 10, 20, 30 bps of 100 -> 0.1, 0.2, 0.3
    expected: [
      bid(0, '99.9'),
      bid(1, '99.8'),
      bid(2, '99.7'),
      ask(0, '100.1'),
      ask(1, '100.2'),
      ask(2, '100.3'),
    ],
  },
  {
    name: 'wider spread and spacing in bps of the reference',
    options: { levels: 2, min_spread_bps: 50, level_spacing_bps: 25 },
    snap: { bids: [['1999'], ['1998']], asks: [['2001']] },
    // mid 2000; half 25 bps = 5, level 1 half 50 bps = 10
    expected: [bid(0, '1995'), bid(1, '1990'), ask(0, '2005'), ask(1, '2010')],
  },
  {
    name: 'size multiplier grows volume geometrically per level',
    options: { levels: 3, order_size: '0.5', size_multiplier: 1.5 },
    // 0.5, 0.5 * 1.5 = 0.75, 0.5 * 1.5^2 = 1.125
    expected: [
      bid(0, '99.9', '0.5'),
      bid(1, '99.8', '0.75'),
      bid(2, '99.7', '1.125'),
      ask(0, '100.1', '0.5'),
      ask(1, '100.2', '0.75'),
      ask(2, '100.3', '1.125'),
    ],
  },
  {
    name: 'microprice reference',
    options: { reference: 'microprice' },
    snap: { bids: [['99.9', '3']], asks: [['100.1', '1']] },
    // microprice = (99.9 * 1 + 100.1 * 3) / 4 = 100.05; 100.05 * 0.999 = 99.94995, * 1.001 = 100.15005
    expected: [bid(0, '99.94995'), ask(0, '100.15005')],
  },
  {
    name: 'microprice reference falls back to the mid when the snapshot has none',
    options: { reference: 'microprice' },
    snap: { microprice: null },
    expected: [bid(0, '99.9'), ask(0, '100.1')],
  },
  {
    name: 'skew: too much base shifts both quotes down',
    options: { inventory_skew_bps: 10 },
    snap: { base: '3', quote: '100' },
    // value 400, baseShare 0.75, deviation +0.25 -> shift 10 * 0.25 / 0.5 = 5 bps down
    // bid 100 * (1 - 15 bps) = 99.85, ask 100 * (1 + 5 bps) = 100.05
    expected: [bid(0, '99.85'), ask(0, '100.05')],
  },
  {
    name: 'skew: too little base shifts both quotes up',
    options: { inventory_skew_bps: 10 },
    snap: { base: '1', quote: '300' },
    // baseShare 0.25, deviation -0.25 -> shift 5 bps up: bid 100 * (1 - 5 bps), ask 100 * (1 + 15 bps)
    expected: [bid(0, '99.95'), ask(0, '100.15')],
  },
  {
    name: 'skew: full deviation shifts by exactly inventory_skew_bps, relative to the target',
    options: { inventory_skew_bps: 8, inventory_target: 0.25 },
    snap: { base: '3', quote: '100' },
    // baseShare 0.75 - target 0.25 = +0.5 -> shift 8 bps: bid 100 * (1 - 18 bps), ask 100 * (1 + 2 bps)
    expected: [bid(0, '99.82'), ask(0, '100.02')],
  },
  {
    name: 'skew: inventory on target leaves the quotes centred',
    options: { inventory_skew_bps: 50 },
    snap: { base: '2', quote: '200' },
    expected: [bid(0, '99.9'), ask(0, '100.1')],
  },
  {
    name: 'max inventory share: above it, no bids',
    options: { max_inventory_share: 0.7 },
    snap: { base: '3', quote: '100' },
    // baseShare 0.75 > 0.7
    expected: [ask(0, '100.1')],
  },
  {
    name: 'max inventory share: below 1 - it, no asks',
    options: { max_inventory_share: 0.7, levels: 2 },
    snap: { base: '1', quote: '300' },
    // baseShare 0.25 < 0.3
    expected: [bid(0, '99.9'), bid(1, '99.8')],
  },
  {
    name: 'max inventory share: inside the band, both sides',
    options: { max_inventory_share: 0.8 },
    snap: { base: '3', quote: '100' },
    expected: [bid(0, '99.9'), ask(0, '100.1')],
  },
  {
    name: 'post-only clamp on a one-tick book: each side stays one tick inside the other',
    options: { min_spread_bps: 0 },
    snap: { bids: [['100.0']], asks: [['100.1']] },
    // both ideal prices are the mid 100.05; bid <= 100.1 - 0.1 = 100, ask >= 100.0 + 0.1 = 100.1
    expected: [bid(0, '100'), ask(0, '100.1')],
  },
  {
    name: 'post-only clamp: a strong skew cannot push the ask through the best bid',
    options: { inventory_skew_bps: 100, inventory_target: 0 },
    snap: { base: '1', quote: '0' },
    // baseShare 1, deviation +1 -> shift 200 bps down: bid 100 * (1 - 210 bps) = 97.9,
    // ask 100 * (1 - 190 bps) = 98.1 -> floored to best bid + tick = 100
    expected: [bid(0, '97.9'), ask(0, '100')],
  },
  {
    name: 'post-only clamp with a coarse tick',
    options: { min_spread_bps: 2 },
    snap: { bids: [['100']], asks: [['101']], tickSize: '1' },
    // mid 100.5, ideal 100.5 * (1 -/+ 1 bp) = 100.48995 / 100.51005; caps 100 / 101
    expected: [bid(0, '100'), ask(0, '101')],
  },
  {
    name: 'post_only false: no clamp, the quote may cross',
    options: { min_spread_bps: 0, post_only: false },
    snap: { bids: [['100.0']], asks: [['100.1']] },
    expected: [bid(0, '100.05'), ask(0, '100.05')],
  },
  {
    name: 'no asks in the book: no mid, no quotes',
    options: { levels: 3 },
    snap: { asks: [], base: '1', quote: '100' },
    expected: [],
  },
  {
    name: 'empty book: no quotes',
    snap: { bids: [], asks: [] },
    expected: [],
  },
  {
    name: 'levels so deep that the price would be negative are dropped',
    options: { levels: 3, min_spread_bps: 10_000, level_spacing_bps: 5_000 },
    // bid half-spreads 5 000, 10 000, 15 000 bps -> 50, 0 (dropped), -50 (dropped)
    expected: [bid(0, '50'), ask(0, '150'), ask(1, '200'), ask(2, '250')],
  },
];

void describe('spread strategy: quotes', () => {
  for (const row of table) {
    void it(row.name, () => {
      const ctx = contextFor(spread, { ...FORMULA, ...row.options });
      const result = spread.quote(snapshot(row.snap), spread.init(ctx), ctx);
      assert.deepEqual(rows(result.quotes), row.expected);
    });
  }

  void it('carries tolerance, maxAge and postOnly on every quote', () => {
    const ctx = contextFor(spread, {
      ...FORMULA,
      levels: 2,
      refresh_tolerance_bps: 7,
      volume_tolerance: 0.25,
      max_order_age_s: 30,
      post_only: false,
    });
    const { quotes } = spread.quote(snapshot(), spread.init(ctx), ctx);
    assert.equal(quotes.length, 4);
    for (const q of quotes) {
      assert.deepEqual(q.tolerance, { priceBps: 7, volumeFraction: 0.25 });
      assert.equal(q.maxAgeMs, 30_000);
      assert.equal(q.postOnly, false);
    }
  });

  void it('defaults: postOnly true, tolerance 5 bps / 10 %, no maxAgeMs', () => {
    const ctx = contextFor(spread, FORMULA);
    const { quotes } = spread.quote(snapshot(), spread.init(ctx), ctx);
    assert.equal(quotes.length, 2);
    for (const q of quotes) {
      assert.deepEqual(q.tolerance, { priceBps: 5, volumeFraction: 0.1 });
      assert.equal(q.postOnly, true);
      assert.equal('maxAgeMs' in q, false);
    }
  });

  void it('one quote per (side, level) and the same answer for the same input', () => {
    const ctx = contextFor(spread, { ...FORMULA, levels: 5, inventory_skew_bps: 20 });
    const snap = snapshot({ base: '1', quote: '50' });
    const first = spread.quote(snap, spread.init(ctx), ctx);
    const again = spread.quote(snap, first.state ?? spread.init(ctx), ctx);
    assert.deepEqual(rows(again.quotes), rows(first.quotes));
    const slots = new Set(first.quotes.map((q) => `${q.side}:${q.level}`));
    assert.equal(slots.size, first.quotes.length);
    assert.equal(slots.size, 10);
  });
});
