import { describe, it } from 'node:test';
import assert from 'node:assert/strict';

import avellanedaStoikov, {
  type AvellanedaStoikovState,
} from '../../strategies/avellaneda-stoikov.js';
import { dec, type Decimal, type DesiredQuote } from '../../src/runner/strategy-api.js';
import { contextFor, rows, runSequence } from './harness.js';
import { snapshot, type SnapshotFields } from './snapshot-fixture.js';

/** These tests check the formulas: the fee floor has its own tests (fee-floor.test.ts). */
const FORMULA = { fee_floor: false } as const;

/** The paper's formulas, written out independently of the plugin. */
interface Model {
  readonly s: string;
  readonly base: string;
  readonly targetBase?: string;
  readonly orderSize?: string;
  readonly gamma?: number;
  readonly k?: number;
  readonly tau?: number;
  /** Relative volatility per √s, as a decimal. */
  readonly sigmaRel: Decimal | string;
  readonly minSpreadBps?: number;
}

function model(m: Model): { reservation: Decimal; spread: Decimal; bid: Decimal; ask: Decimal } {
  const s = dec(m.s);
  const gamma = dec(m.gamma ?? 0.1);
  const k = dec(m.k ?? 1.5);
  const tau = dec(m.tau ?? 60);
  const sigmaAbs = dec(m.sigmaRel).times(s);
  const q = dec(m.base)
    .minus(dec(m.targetBase ?? '0'))
    .div(dec(m.orderSize ?? '0.01'));
  const reservation = s.minus(q.times(gamma).times(sigmaAbs.pow(2)).times(tau));
  const raw = gamma
    .times(sigmaAbs.pow(2))
    .times(tau)
    .plus(dec(2).div(gamma).times(gamma.div(k).plus(1).ln()));
  const floor = s.times(dec(m.minSpreadBps ?? 5)).div(10_000);
  const spread = raw.gt(floor) ? raw : floor;
  return {
    reservation,
    spread,
    bid: reservation.minus(spread.div(2)),
    ask: reservation.plus(spread.div(2)),
  };
}

const EPS = dec('0.000000000000000000000001');
function assertClose(actual: Decimal | undefined, expected: Decimal, what: string): void {
  assert.ok(actual !== undefined, `${what}: missing`);
  assert.ok(
    actual.minus(expected).abs().lt(EPS),
    `${what}: got ${actual.toFixed()}, expected ${expected.toFixed()}`,
  );
}

const find = (quotes: readonly DesiredQuote[], side: 'buy' | 'sell', level = 0) =>
  quotes.find((q) => q.side === side && q.level === level);

interface Row {
  readonly name: string;
  readonly options?: Record<string, unknown>;
  readonly snap: SnapshotFields;
  readonly model: Model;
}

// Book 99.9 / 100.1 (mid 100) unless stated; one snapshot, so σ_rel = initial_volatility.
const table: readonly Row[] = [
  {
    name: 'zero inventory: symmetric around the mid',
    snap: { base: '0' },
    // σ = 0.0005 * 100 = 0.05, γσ²τ = 0.1 * 0.0025 * 60 = 0.015, δ = 0.015 + 20 ln(16/15)
    model: { s: '100', base: '0', sigmaRel: '0.0005' },
  },
  {
    name: 'long inventory: q = 5 order sizes',
    snap: { base: '0.05' },
    model: { s: '100', base: '0.05', sigmaRel: '0.0005' },
  },
  {
    name: 'short of the target: q = -3, reservation above the mid',
    options: { target_base: '0.05' },
    snap: { base: '0.02' },
    model: { s: '100', base: '0.02', targetBase: '0.05', sigmaRel: '0.0005' },
  },
  {
    name: 'other parameters, other price scale',
    options: {
      risk_aversion: 0.002,
      order_book_liquidity: 0.05,
      horizon_s: 300,
      order_size: '0.25',
      max_inventory: '10',
      initial_volatility: 0.0002,
    },
    // σ = 6, γσ²τ = 21.6, q = 1: r = 29978.4, δ = 21.6 + 1000 ln(1.04) ≈ 60.82
    snap: { bids: [['29990']], asks: [['30010']], base: '0.25', tickSize: '1' },
    model: {
      s: '30000',
      base: '0.25',
      orderSize: '0.25',
      gamma: 0.002,
      k: 0.05,
      tau: 300,
      sigmaRel: '0.0002',
    },
  },
];

void describe('avellaneda-stoikov strategy: quotes against the formulas', () => {
  for (const row of table) {
    void it(row.name, () => {
      const ctx = contextFor(avellanedaStoikov, { ...FORMULA, ...row.options });
      const { quotes } = avellanedaStoikov.quote(
        snapshot(row.snap),
        avellanedaStoikov.init(ctx),
        ctx,
      );
      const expected = model(row.model);
      assert.equal(quotes.length, 2);
      assertClose(find(quotes, 'buy')?.price, expected.bid, 'bid');
      assertClose(find(quotes, 'sell')?.price, expected.ask, 'ask');
      assert.equal(find(quotes, 'buy')?.volume.toFixed(), row.model.orderSize ?? '0.01');
    });
  }

  void it('hand-checked: q = 5, σ_rel = 0.001, s = 100, γ = 0.1, k = 1.5, τ = 60', () => {
    // σ = 0.1, γσ²τ = 0.1 * 0.01 * 60 = 0.06; r = 100 - 5 * 0.06 = 99.7
    // δ = 0.06 + (2 / 0.1) ln(1 + 0.1 / 1.5) = 0.06 + 20 * 0.0645385211 = 1.3507704228
    // bid = 99.7 - 0.6753852114 = 99.0246147886, ask = 99.7 + 0.6753852114 = 100.3753852114
    const ctx = contextFor(avellanedaStoikov, { ...FORMULA, initial_volatility: 0.001 });
    const { quotes } = avellanedaStoikov.quote(
      snapshot({ base: '0.05' }),
      avellanedaStoikov.init(ctx),
      ctx,
    );
    assert.equal(find(quotes, 'buy')?.price.toDecimalPlaces(10).toFixed(), '99.0246147886');
    assert.equal(find(quotes, 'sell')?.price.toDecimalPlaces(10).toFixed(), '100.3753852114');
  });

  void it('zero inventory: the quotes are centred on the mid', () => {
    const ctx = contextFor(avellanedaStoikov, FORMULA);
    const { quotes } = avellanedaStoikov.quote(snapshot(), avellanedaStoikov.init(ctx), ctx);
    const bid = find(quotes, 'buy')?.price;
    const ask = find(quotes, 'sell')?.price;
    assert.ok(bid !== undefined && ask !== undefined);
    assertClose(bid.plus(ask).div(2), dec(100), 'centre');
  });

  void it('long inventory moves the reservation price down by q·γ·σ²·τ, spread unchanged', () => {
    const ctx = contextFor(avellanedaStoikov, FORMULA);
    const flat = avellanedaStoikov.quote(snapshot(), avellanedaStoikov.init(ctx), ctx).quotes;
    const long = avellanedaStoikov.quote(
      snapshot({ base: '0.07' }),
      avellanedaStoikov.init(ctx),
      ctx,
    ).quotes;
    // q = 7, σ = 0.05: 7 * 0.1 * 0.0025 * 60 = 0.105
    const shift = dec('0.105');
    assertClose(find(long, 'buy')?.price, find(flat, 'buy')!.price.minus(shift), 'bid');
    assertClose(find(long, 'sell')?.price, find(flat, 'sell')!.price.minus(shift), 'ask');
  });

  void it('min_spread_bps floors δ (exact numbers)', () => {
    // σ = 0, k = 1000: δ = 20 ln(1.0001) ≈ 0.002 < 100 * 5 bps = 0.05, so δ = 0.05
    const ctx = contextFor(avellanedaStoikov, {
      ...FORMULA,
      initial_volatility: 0,
      order_book_liquidity: 1000,
    });
    const { quotes } = avellanedaStoikov.quote(snapshot(), avellanedaStoikov.init(ctx), ctx);
    assert.deepEqual(rows(quotes), [
      { side: 'buy', level: 0, price: '99.975', volume: '0.01' },
      { side: 'sell', level: 0, price: '100.025', volume: '0.01' },
    ]);
  });

  void it('levels are spaced by level_spacing_bps of the mid', () => {
    const ctx = contextFor(avellanedaStoikov, {
      ...FORMULA,
      initial_volatility: 0,
      order_book_liquidity: 1000,
      levels: 3,
      level_spacing_bps: 20,
    });
    const { quotes } = avellanedaStoikov.quote(snapshot(), avellanedaStoikov.init(ctx), ctx);
    // δ/2 = 0.025 and 20 bps of 100 = 0.2 per level
    assert.deepEqual(
      rows(quotes).map((q) => `${q.side}${q.level}@${q.price}`),
      [
        'buy0@99.975',
        'buy1@99.775',
        'buy2@99.575',
        'sell0@100.025',
        'sell1@100.225',
        'sell2@100.425',
      ],
    );
  });

  void it('max_inventory stops the side that would grow the deviation', () => {
    const long = contextFor(avellanedaStoikov, { ...FORMULA, max_inventory: '0.1' });
    const atMax = avellanedaStoikov.quote(
      snapshot({ base: '0.1' }),
      avellanedaStoikov.init(long),
      long,
    );
    assert.deepEqual(
      atMax.quotes.map((q) => q.side),
      ['sell'],
    );
    const justUnder = avellanedaStoikov.quote(
      snapshot({ base: '0.09' }),
      avellanedaStoikov.init(long),
      long,
    );
    assert.equal(justUnder.quotes.length, 2);

    const short = contextFor(avellanedaStoikov, {
      ...FORMULA,
      max_inventory: '0.1',
      target_base: '0.3',
    });
    const below = avellanedaStoikov.quote(
      snapshot({ base: '0.15' }),
      avellanedaStoikov.init(short),
      short,
    );
    assert.deepEqual(
      below.quotes.map((q) => q.side),
      ['buy'],
    );
  });

  void it('post-only clamp: a large inventory cannot push the ask through the best bid', () => {
    // q = 9 with σ_rel = 0.01: σ = 1, γσ²τ = 6, r = 100 - 54 = 46: the ask would be far below
    // 99.9 (the skew and spread caps lifted to reach it)
    const ctx = contextFor(avellanedaStoikov, {
      ...FORMULA,
      initial_volatility: 0.01,
      max_inventory: '1',
      max_skew_bps: 10_000,
      max_spread_bps: 10_000,
    });
    const { quotes } = avellanedaStoikov.quote(
      snapshot({ base: '0.09' }),
      avellanedaStoikov.init(ctx),
      ctx,
    );
    assert.equal(find(quotes, 'sell')?.price.toFixed(), '100');
    assert.ok(find(quotes, 'buy')!.price.lt(dec('99.9')));
  });

  void it('caps the skew and the spread in bps of the mid (max_skew_bps, max_spread_bps)', () => {
    // As above, r would be 46 and δ = 6 + (2/0.1)·ln(1 + 0.1/1.5) = 7.29: capped, r = 100 − 1
    // (100 bps of 100) and δ = 4 (400 bps), so bid 97 and ask 101.
    const ctx = contextFor(avellanedaStoikov, {
      ...FORMULA,
      initial_volatility: 0.01,
      max_inventory: '1',
      post_only: false,
    });
    const { quotes } = avellanedaStoikov.quote(
      snapshot({ base: '0.09', bids: [['99.9']], asks: [['100.1']] }),
      avellanedaStoikov.init(ctx),
      ctx,
    );
    assert.equal(find(quotes, 'buy')?.price.toFixed(), '97');
    assert.equal(find(quotes, 'sell')?.price.toFixed(), '101');
  });

  void it('post-only clamp on a tight book, and none when post_only is false', () => {
    // δ = 100.05 * 5 bps = 0.050025 (floor) around 100.05: 100.0249875 / 100.0750125;
    // post-only caps them at 100.1 - 0.1 = 100 and floors them at 100.0 + 0.1 = 100.1
    const options = { initial_volatility: 0, order_book_liquidity: 1000 };
    const tight: SnapshotFields = { bids: [['100.0']], asks: [['100.1']] };
    const on = contextFor(avellanedaStoikov, { ...FORMULA, ...options });
    const clamped = avellanedaStoikov.quote(snapshot(tight), avellanedaStoikov.init(on), on);
    assert.deepEqual(
      rows(clamped.quotes).map((q) => q.price),
      ['100', '100.1'],
    );
    const off = contextFor(avellanedaStoikov, { ...FORMULA, ...options, post_only: false });
    const free = avellanedaStoikov.quote(snapshot(tight), avellanedaStoikov.init(off), off);
    assert.deepEqual(
      rows(free.quotes).map((q) => q.price),
      ['100.0249875', '100.0750125'],
    );
    assert.ok(free.quotes.every((q) => q.postOnly === false));
  });

  void it('no mid: no quotes', () => {
    const ctx = contextFor(avellanedaStoikov, FORMULA);
    const { quotes } = avellanedaStoikov.quote(
      snapshot({ bids: [] }),
      avellanedaStoikov.init(ctx),
      ctx,
    );
    assert.deepEqual(quotes, []);
  });

  void it('carries tolerance, maxAge and postOnly', () => {
    const ctx = contextFor(avellanedaStoikov, {
      ...FORMULA,
      refresh_tolerance_bps: 3,
      volume_tolerance: 0.5,
      max_order_age_s: 12.5,
      post_only: false,
      levels: 2,
    });
    const { quotes } = avellanedaStoikov.quote(snapshot(), avellanedaStoikov.init(ctx), ctx);
    assert.equal(quotes.length, 4);
    for (const q of quotes) {
      assert.deepEqual(q.tolerance, { priceBps: 3, volumeFraction: 0.5 });
      assert.equal(q.maxAgeMs, 12_500);
      assert.equal(q.postOnly, false);
    }
  });
});

void describe('avellaneda-stoikov strategy: volatility estimate carried in state', () => {
  const T0 = 1_700_000_000_000;
  const at = (i: number, mid: '100' | '101' = '100'): SnapshotFields =>
    mid === '100'
      ? { takenAtMs: T0 + i * 1000, bids: [['99.9']], asks: [['100.1']] }
      : { takenAtMs: T0 + i * 1000, bids: [['100.9']], asks: [['101.1']] };
  const calm = Array.from({ length: 12 }, (_, i) => snapshot(at(i)));

  void it('uses initial_volatility until min_samples returns are seen', () => {
    const { quotes, states } = runSequence(avellanedaStoikov, FORMULA, calm.slice(0, 10));
    assert.equal(states.at(-1)?.samples, 9);
    const expected = model({ s: '100', base: '0', sigmaRel: '0.0005' });
    assertClose(find(quotes, 'buy')?.price, expected.bid, 'bid');
  });

  void it('a flat mid estimates zero volatility; a jump raises it (exact EWMA)', () => {
    const flat = runSequence(avellanedaStoikov, FORMULA, calm);
    assert.equal(flat.states.at(-1)?.samples, 11);
    const flatSpread = spreadOf(flat.quotes);
    assertClose(flatSpread, model({ s: '100', base: '0', sigmaRel: '0' }).spread, 'flat δ');

    const jumped = runSequence(avellanedaStoikov, FORMULA, [...calm, snapshot(at(12, '101'))]);
    const state = jumped.states.at(-1) as AvellanedaStoikovState;
    assert.equal(state.samples, 12);
    assert.equal(state.lastMid, '101');
    // Eleven zero samples, then x = ln(1.01)² per 1 s; w = 2^(-1/60) per step:
    // σ² = (1 - w) x / (1 - w^12)
    const w = dec(2).pow(dec(-1).div(60));
    const x = dec('1.01').ln().pow(2);
    const variance = dec(1)
      .minus(w)
      .times(x)
      .div(dec(1).minus(w.pow(12)));
    const expected = model({ s: '101', base: '0', sigmaRel: variance.sqrt() });
    assertClose(spreadOf(jumped.quotes), expected.spread, 'δ after the jump');
    assertClose(find(jumped.quotes, 'buy')?.price, expected.bid, 'bid after the jump');
    assert.ok(spreadOf(jumped.quotes).gt(flatSpread.times(dec('1.01'))));
  });

  void it('snapshots with dt = 0, without a mid or with stale depth do not feed the estimator', () => {
    const sequence = [
      snapshot(at(0)),
      snapshot(at(1)),
      snapshot({ ...at(1), bids: [['50']], asks: [['150']] }), // same takenAtMs: ignored
      snapshot({ ...at(2), bids: [] }), // no mid
      snapshot({ ...at(3, '101'), staleSources: ['depth'] }), // stale depth
      snapshot(at(4)),
    ];
    const { states } = runSequence(avellanedaStoikov, FORMULA, sequence);
    assert.deepEqual(
      states.map((s) => s.samples),
      [0, 1, 1, 1, 1, 2],
    );
    // The last return spans 3 s of an unchanged mid: still a zero sample.
    assert.equal(dec(states.at(-1)!.varianceSum).toFixed(), '0');
  });

  void it('the state survives a JSON round trip unchanged', () => {
    const { states } = runSequence(avellanedaStoikov, FORMULA, [...calm, snapshot(at(12, '101'))]);
    const last = states.at(-1);
    assert.deepEqual(JSON.parse(JSON.stringify(last)), last);
  });
});

function spreadOf(quotes: readonly DesiredQuote[]): Decimal {
  const bid = find(quotes, 'buy')?.price;
  const ask = find(quotes, 'sell')?.price;
  assert.ok(bid !== undefined && ask !== undefined, 'two-sided quotes');
  return ask.minus(bid);
}
