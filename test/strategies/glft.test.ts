import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { uniformFloat64 } from 'pure-rand/distribution/uniformFloat64';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';

import glft, {
  fitIntensity,
  glftCoefficients,
  glftQuoteTerms,
  type GlftState,
} from '../../strategies/glft.js';
import {
  dec,
  type Decimal,
  type DesiredQuote,
  type MarketSnapshot,
  type PublicTrade,
} from '../../src/runner/strategy-api.js';
import { InvalidInputError } from '../../src/core/index.js';
import { instantiateStrategy, StrategyLoadError } from '../../src/runner/strategy-loader.js';
import { contextFor, rows } from './harness.js';
import { PAIR, snapshot, type SnapshotFields } from './snapshot-fixture.js';

const T0 = 1_700_000_000_000;

function close(actual: number | undefined, expected: number, tolerance: number, what: string) {
  assert.ok(actual !== undefined, `${what}: missing`);
  assert.ok(
    Math.abs(actual - expected) <= tolerance,
    `${what}: got ${actual}, expected ${expected} ± ${tolerance}`,
  );
}

function closeDec(actual: Decimal | undefined, expected: string, what: string) {
  assert.ok(actual !== undefined, `${what}: missing`);
  assert.ok(
    actual.minus(dec(expected)).abs().lt(dec('0.000000001')),
    `${what}: got ${actual.toFixed()}, expected ${expected}`,
  );
}

const find = (quotes: readonly DesiredQuote[], side: 'buy' | 'sell') =>
  quotes.find((q) => q.side === side);

void describe('glft closed form', () => {
  void it('ξ = γ: A = 1, k = 0.5, γ = 0.1, σ = 4, Δ = 1 (hand-checked)', () => {
    // ξΔ/k = 0.1/0.5 = 0.2; c1 = ln(1.2)/0.1 = 0.1823215568/0.1 = 1.823215568
    // (1 + ξΔ/k)^(k/(ξΔ) + 1) = 1.2^6 = 2.985984; γ/(2AΔk) = 0.1/(2·1·1·0.5) = 0.1
    // c2 = √(0.1 · 2.985984) = √0.2985984 = 0.5464415797
    // half-spread = c1 + Δ/2·σ·c2 = 1.823215568 + 0.5·4·0.5464415797 = 2.916098727
    // skew = σ·c2 = 4 · 0.5464415797 = 2.185766319
    const c = glftCoefficients(1, 0.5, 0.1, 0.1, 1);
    close(c.c1, 1.823215568, 1e-9, 'c1');
    close(c.c2, 0.5464415797, 1e-10, 'c2');
    const terms = glftQuoteTerms(c, 4, 1);
    close(terms.halfSpread, 2.916098727, 1e-9, 'half-spread');
    close(terms.skew, 2.185766319, 1e-9, 'skew');
  });

  void it('ξ = 0: c1 = 1/k, c2 = √(γe/(2AΔk)) (hand-checked), the limit of ξ → 0', () => {
    // c1 = 1/0.5 = 2; c2 = √(0.1·e/(2·1·1·0.5)) = √0.2718281828 = 0.5213714442
    // half-spread = 2 + 0.5·4·0.5213714442 = 3.042742888; skew = 4·0.5213714442 = 2.085485777
    const c = glftCoefficients(1, 0.5, 0.1, 0, 1);
    close(c.c1, 2, 1e-12, 'c1');
    close(c.c2, 0.5213714442, 1e-10, 'c2');
    const terms = glftQuoteTerms(c, 4, 1);
    close(terms.halfSpread, 3.042742888, 1e-9, 'half-spread');
    close(terms.skew, 2.085485777, 1e-9, 'skew');
    const tiny = glftCoefficients(1, 0.5, 0.1, 1e-9, 1);
    close(tiny.c1, c.c1, 1e-8, 'c1 as ξ → 0');
    close(tiny.c2, c.c2, 1e-8, 'c2 as ξ → 0');
  });

  void it('Δ = 2 enters c1, c2 and the half-spread (hand-checked)', () => {
    // ξΔ/k = 0.2/0.5 = 0.4; c1 = ln(1.4)/0.2 = 1.682361183
    // 1.4^(0.5/0.2 + 1) = 1.4^3.5 = 3.246744585; γ/(2AΔk) = 0.1/2 = 0.05
    // c2 = √(0.05 · 3.246744585) = 0.4029109446; half = 1.682361183 + 1·4·0.4029109446
    //    = 3.294004961
    const c = glftCoefficients(1, 0.5, 0.1, 0.1, 2);
    close(c.c1, 1.682361183, 1e-9, 'c1');
    close(c.c2, 0.4029109446, 1e-10, 'c2');
    close(glftQuoteTerms(c, 4, 2).halfSpread, 3.294004961, 1e-9, 'half-spread');
  });
});

void describe('glft intensity fit', () => {
  void it('an exactly geometric count gives A, k and R² = 1', () => {
    // Reaching depth 1, 2, 3, 4 bps: 8, 4, 2, 1 arrivals over 100 s, per side /200:
    // λ = 0.04, 0.02, 0.01, 0.005 = 0.08·2^(−d): A = 0.08, k = ln 2
    const fit = fitIntensity([1.5, 1.5, 1.5, 1.5, 2.5, 2.5, 3.5, 4.5, 0.5, -3], 100, 1, 4);
    assert.equal(fit.bins, 4);
    close(fit.A, 0.08, 1e-12, 'A');
    close(fit.k, Math.LN2, 1e-12, 'k');
    close(fit.r2, 1, 1e-12, 'r2');
  });

  void it('arrivals deeper than the last bin count in it; one bin is no fit', () => {
    assert.deepEqual(fitIntensity([7, 9], 10, 1, 4), fitIntensity([4, 4], 10, 1, 4));
    assert.deepEqual(fitIntensity([1.2, 1.7], 10, 1, 4), { bins: 1 });
    assert.deepEqual(fitIntensity([], 10, 1, 4), { bins: 0 });
  });
});

/**
 * A state whose window holds the arrivals above (A = 0.08/s, k = ln 2 per bps with 4 bins of
 * 1 bps over 100 s) and whose EWMA gives σ = 10⁴·√(1.6e-7) = 4 bps/√s, with the mid 100 seen at
 * T0, so a snapshot at T0 adds nothing.
 */
function fittedState(depths = [1.5, 1.5, 1.5, 1.5, 2.5, 2.5, 3.5, 4.5]): GlftState {
  return {
    lastTradeId: 8,
    lastTradeMs: T0 - 83_000,
    midTimes: [T0],
    mids: [100],
    since: T0 - 100_000,
    arrivalTimes: depths.map((_, i) => T0 - 90_000 + i * 1000),
    arrivalDepths: depths,
    varianceSum: 1.6e-7,
    varianceWeight: 1,
    returns: 50,
  };
}

const FITTED = {
  window_s: 100,
  depth_bins: 4,
  min_trades: 8,
  gamma: 0.1,
  max_position: '1',
} as const;

/** The closed form for the fitted state: bid and ask at q order sizes, fee in bps. */
function expected(q: number, feeBps: number): { bid: number; ask: number } {
  const { halfSpread, skew } = glftQuoteTerms(glftCoefficients(0.08, Math.LN2, 0.1, 0.1, 1), 4, 1);
  const h = feeBps + halfSpread;
  return { bid: 100 * (1 - (h + q * skew) / 10_000), ask: 100 * (1 + (h - q * skew) / 10_000) };
}

function quoteOnce(options: Record<string, unknown>, fields: SnapshotFields, state?: GlftState) {
  const ctx = contextFor(glft, options);
  return glft.quote(snapshot({ takenAtMs: T0, ...fields }), state ?? glft.init(ctx), ctx);
}

void describe('glft quotes', () => {
  void it('the fitted model, hand-checked, with the maker fee added to the half-spread', () => {
    // A = 0.08, k = ln 2 = 0.6931471806, γ = ξ = 0.1, σ = 4, Δ = 1, q = 0, maker fee 25 bps:
    // ξΔ/k = 0.1442695041; c1 = ln(1.1442695041)/0.1 = 1.347664457
    // 1.1442695041^(k/(ξΔ) + 1 = 7.931471806) = 2.912163467; γ/(2AΔk) = 0.9016844006
    // c2 = √(0.9016844006 · 2.912163467) = 1.620448200; half = 1.347664457 + 2·1.6204482
    //    = 4.588560857 bps; with the fee 29.588560857 bps:
    // bid = 100·(1 − 0.0029588560857) = 99.70411439, ask = 100.29588561
    const { quotes, model } = quoteOnce({ ...FITTED, fee_floor: false }, {}, fittedState());
    closeDec(find(quotes, 'buy')?.price, '99.70411439143', 'bid');
    closeDec(find(quotes, 'sell')?.price, '100.29588560857', 'ask');
    assert.equal(model?.fit, 'ok');
    assert.equal(model?.fallback, 0);
    assert.equal(model?.reason, undefined);
    assert.equal(model?.samples, 8);
    assert.equal(model?.bins, 4);
    close(model?.A as number, 0.08, 1e-6, 'model A');
    close(model?.k as number, 0.693147, 1e-6, 'model k');
    close(model?.r2 as number, 1, 1e-6, 'model r2');
    close(model?.sigma_bps as number, 4, 1e-6, 'model sigma');
    close(model?.half_spread_bps as number, 29.5886, 1e-4, 'model half-spread');
    close(model?.skew_bps as number, 6.48179, 1e-5, 'model skew');
    for (const q of quotes) {
      assert.equal(q.volume.toFixed(), '0.01');
      assert.equal(q.level, 0);
    }
  });

  void it('ξ = 0 and the adjustment factors change the half-spread and skew', () => {
    const terms = glftQuoteTerms(glftCoefficients(0.08, Math.LN2, 0.1, 0, 1), 4, 1);
    const options = {
      ...FITTED,
      fee_floor: false,
      xi: 'zero',
      spread_adjustment: 2,
      skew_adjustment: 0.5,
    };
    const { quotes, model } = quoteOnce(options, { base: '0.02', makerFeeBps: '0' }, fittedState());
    // q = 2: shift = 2 · 0.5 · skew; half = 2 · (c1 + σc2/2)
    const h = 2 * terms.halfSpread;
    const shift = 2 * 0.5 * terms.skew;
    closeDec(find(quotes, 'buy')?.price, String(100 * (1 - (h + shift) / 10_000)), 'bid');
    closeDec(find(quotes, 'sell')?.price, String(100 * (1 + (h - shift) / 10_000)), 'ask');
    close(model?.skew_bps as number, 0.5 * terms.skew, 1e-4, 'model skew');
  });

  void it('long inventory moves both quotes down by q · skew', () => {
    const options = { ...FITTED, fee_floor: false };
    const long = quoteOnce(options, { base: '0.02' }, fittedState());
    const e = expected(2, 25);
    closeDec(find(long.quotes, 'buy')?.price, String(e.bid), 'bid');
    closeDec(find(long.quotes, 'sell')?.price, String(e.ask), 'ask');
    const flat = quoteOnce(options, {}, fittedState());
    assert.ok(find(long.quotes, 'buy')!.price.lt(find(flat.quotes, 'buy')!.price));
    assert.ok(find(long.quotes, 'sell')!.price.lt(find(flat.quotes, 'sell')!.price));
    assert.equal(long.model?.q, 2);
    const below = quoteOnce({ ...options, target_base: '0.05' }, { base: '0.02' }, fittedState());
    const s = expected(-3, 25);
    closeDec(find(below.quotes, 'buy')?.price, String(s.bid), 'bid, q = −3');
    closeDec(find(below.quotes, 'sell')?.price, String(s.ask), 'ask, q = −3');
  });

  void it('the skew is bounded by max_skew_bps and never carries a quote past the mid', () => {
    // q = 20: q · skew = 129.6 bps. max_skew_bps 20: bid at h + 20, ask at h − 20 (h = 29.5886)
    const capped = quoteOnce(
      { ...FITTED, fee_floor: false, max_skew_bps: 20 },
      { base: '0.2' },
      fittedState(),
    );
    const h = expected(0, 25).ask - 100; // in price units at mid 100: h bps / 100
    closeDec(find(capped.quotes, 'buy')?.price, String(100 - h - 0.2), 'bid');
    closeDec(find(capped.quotes, 'sell')?.price, String(100 + h - 0.2), 'ask');
    // max_skew_bps 400: the shift stops at h, so the ask is at the mid and the bid at 2h
    const wide = quoteOnce(
      { ...FITTED, fee_floor: false, max_skew_bps: 400 },
      { base: '0.2' },
      fittedState(),
    );
    closeDec(find(wide.quotes, 'sell')?.price, '100', 'ask at the mid');
    closeDec(find(wide.quotes, 'buy')?.price, String(100 - 2 * h), 'bid');
  });

  void it('max_half_spread_bps caps the half-spread, fee included', () => {
    const { quotes, model } = quoteOnce(
      { ...FITTED, fee_floor: false, max_half_spread_bps: 20 },
      {},
      fittedState(),
    );
    assert.deepEqual(
      rows(quotes).map((q) => q.price),
      ['99.8', '100.2'],
    );
    assert.equal(model?.half_spread_bps, 20);
  });

  void it('the floor (maker fee + adverse selection + min edge) holds', () => {
    // half-spread 29.59 bps < floor 25 + 10 + 2 = 37 bps: both quotes at 37 bps
    const { quotes, floor } = quoteOnce(FITTED, { adverseBps: '10' }, fittedState());
    assert.deepEqual(
      rows(quotes).map((q) => q.price),
      ['99.63', '100.37'],
    );
    assert.equal(floor?.halfSpreadBps.toFixed(), '37');
    // q = 2 skews the ask to 16.6 bps: the floor keeps it at 27, the bid moves out freely
    const long = quoteOnce(FITTED, { base: '0.02' }, fittedState());
    closeDec(find(long.quotes, 'sell')?.price, '100.27', 'ask on the floor');
    closeDec(find(long.quotes, 'buy')?.price, String(expected(2, 25).bid), 'bid');
  });

  void it('post-only keeps each quote one tick inside the opposite best price', () => {
    const { quotes } = quoteOnce(
      { ...FITTED, fee_floor: false, max_skew_bps: 400 },
      { base: '0.2', venueBids: [['100.05']] },
      fittedState(),
    );
    assert.equal(find(quotes, 'sell')?.price.toFixed(), '100.15');
  });

  void it('max_position stops the side that would grow the position', () => {
    const options = { ...FITTED, max_position: '0.05' };
    const long = quoteOnce(options, { base: '0.05' }, fittedState());
    assert.deepEqual(
      long.quotes.map((q) => q.side),
      ['sell'],
    );
    assert.equal(quoteOnce(options, { base: '0.04' }, fittedState()).quotes.length, 2);
    const short = quoteOnce({ ...options, target_base: '0.3' }, { base: '0.25' }, fittedState());
    assert.deepEqual(
      short.quotes.map((q) => q.side),
      ['buy'],
    );
  });

  void it('no mid: no quotes, and the state still learns', () => {
    const ctx = contextFor(glft, {});
    const result = glft.quote(
      snapshot({ takenAtMs: T0, bids: [], trades: [trade(1, T0 - 1, 'buy', '100.2')] }),
      glft.init(ctx),
      ctx,
    );
    assert.deepEqual(result.quotes, []);
    assert.equal(result.state?.lastTradeId, 1);
  });
});

const BASE = {
  pair: PAIR,
  log: { info: () => {}, warn: () => {} },
  field: 'pairs[0].strategy.options',
};

void describe('glft options', () => {
  const refused: [raw: Record<string, unknown>, message: string][] = [
    [
      { gamma: -0.1 },
      'pairs[0].strategy.options.gamma: expected number to be greater than 0, got -0.1',
    ],
    [{ xi: 'half' }, 'pairs[0].strategy.options.xi: must be one of gamma, zero, got "half"'],
    [{ max_position: '0' }, 'pairs[0].strategy.options.max_position: '],
  ];
  for (const [raw, message] of refused) {
    void it(`refuses ${JSON.stringify(raw)} in one line naming the field`, () => {
      assert.throws(
        () => instantiateStrategy(glft, raw, BASE),
        (e: unknown) =>
          e instanceof InvalidInputError &&
          e.message.startsWith(message) &&
          !e.message.includes('\n'),
      );
    });
  }
});

void describe('glft fallback', () => {
  void it('quotes maker fee + fallback_half_spread_bps, symmetric, before any trade', () => {
    // 25 + 30 = 55 bps around 100; q = 5 does not skew the fallback
    const { quotes, model } = quoteOnce({ fee_floor: false }, { base: '0.05' });
    assert.deepEqual(
      rows(quotes).map((q) => q.price),
      ['99.45', '100.55'],
    );
    assert.equal(model?.fit, 'fallback');
    assert.equal(model?.fallback, 1, 'numeric, for the gauge');
    assert.equal(model?.reason, 'too few trades (0 < 100)');
    assert.equal(model?.samples, 0);
    assert.equal(model?.skew_bps, 0);
    assert.equal(model?.half_spread_bps, 55);
  });

  void it('falls back when the arrivals fill too few bins, or the fit is flat (k <= 0)', () => {
    const flat = [2.5, 2.5, 2.5, 2.5, 2.5, 2.5, 2.5, 2.5];
    const few = quoteOnce({ ...FITTED, fee_floor: false }, {}, fittedState(flat));
    assert.equal(few.model?.reason, 'too few depth bins (2 < 3)');
    assert.deepEqual(
      rows(few.quotes).map((q) => q.price),
      ['99.45', '100.55'],
    );
    const degenerate = quoteOnce(
      { ...FITTED, fee_floor: false, min_bins: 2 },
      {},
      fittedState(flat),
    );
    assert.equal(degenerate.model?.fit, 'fallback');
    assert.equal(degenerate.model?.reason, 'k <= 0');
    assert.equal(degenerate.model?.k, 0);
    assert.deepEqual(
      rows(degenerate.quotes).map((q) => q.price),
      ['99.45', '100.55'],
    );
  });

  void it('falls back below min_r2, and before min_volatility_samples returns', () => {
    // Reaching 1..4 bps: 8, 7, 1, 1 arrivals: far from a line in ln λ
    const bent = [1.5, 2.5, 2.5, 2.5, 2.5, 2.5, 2.5, 4.5];
    const r2 = fitIntensity(bent, 100, 1, 4).r2 as number;
    const poor = quoteOnce({ ...FITTED, min_r2: 0.95 }, {}, fittedState(bent));
    assert.equal(poor.model?.reason, `r2 ${Number(r2.toPrecision(6))} < min_r2 0.95`);
    assert.ok(r2 < 0.95);
    const calm = quoteOnce({ ...FITTED, min_volatility_samples: 51 }, {}, fittedState());
    assert.equal(calm.model?.reason, 'too few mid returns (50 < 51)');
  });

  void it('refuses min_bins above depth_bins at start-up, naming both', () => {
    assert.throws(
      () => instantiateStrategy(glft, { min_bins: 41 }, BASE),
      (e: unknown) =>
        e instanceof StrategyLoadError &&
        e.message ===
          'strategy "glft" (for pair XBTUSD (XXBTZUSD)): init threw: min_bins (41) must not exceed depth_bins (40)',
    );
  });
});

function trade(
  tradeId: number,
  timeMs: number,
  side: 'buy' | 'sell',
  price: string | Decimal,
): PublicTrade {
  return {
    price: dec(price),
    volume: dec('0.01'),
    timeMs,
    side,
    orderType: 'market',
    tradeId,
  };
}

interface Market {
  readonly snapshots: MarketSnapshot[];
  /** Trade times known at each snapshot's end of window, for the sample count. */
  readonly times: number[];
}

/**
 * A market whose mid steps between 100, 100.5 and 101 every 7 s, with one snapshot a second, and
 * taker orders arriving as a Poisson process of `2A` a second (A a side), each reaching a depth
 * drawn from P(δ ≥ d) = e^(−kd) off the mid before it. Trades come in a batch every 10 s (the
 * last 200 kept, as the feed keeps them), so most are measured against a mid of seconds before.
 */
function poissonMarket(seconds: number, A: number, k: number, seed: number): Market {
  let rng = xoroshiro128plus(seed);
  const uniform = (): number => {
    const [u, next] = [uniformFloat64(rng), rng];
    rng = next;
    return u;
  };
  const midAt = (i: number) => 100 + (Math.floor(i / 7) % 3) * 0.5;
  const all: PublicTrade[] = [];
  let t = T0;
  for (let id = 1; ; id++) {
    t += Math.max(1, Math.round((-Math.log(1 - uniform()) / (2 * A)) * 1000));
    if (t > T0 + seconds * 1000) break;
    const side = uniform() < 0.5 ? 'buy' : 'sell';
    const depth = -Math.log(1 - uniform()) / k;
    const mid = midAt(Math.floor((t - T0) / 1000));
    const price = mid * (1 + ((side === 'buy' ? 1 : -1) * depth) / 10_000);
    all.push(trade(id, t, side, dec(price)));
  }
  const snapshots: MarketSnapshot[] = [];
  for (let i = 0; i <= seconds; i++) {
    const known = T0 + Math.floor(i / 10) * 10_000;
    const visible = all.filter((x) => x.timeMs <= known).slice(-200);
    const mid = midAt(i);
    snapshots.push(
      snapshot({
        takenAtMs: T0 + i * 1000,
        bids: [[(mid - 0.1).toFixed(1)]],
        asks: [[(mid + 0.1).toFixed(1)]],
        trades: visible,
      }),
    );
  }
  return { snapshots, times: all.map((x) => x.timeMs) };
}

void describe('glft fitted online from the trades', () => {
  const A = 2;
  const k = 0.3;
  const market = poissonMarket(660, A, k, 42);
  const options = { depth_bins: 10, window_s: 600 };

  void it('recovers A and k within 10 %, with the sample count and R²', () => {
    const ctx = contextFor(glft, options);
    let state = glft.init(ctx);
    let model: Readonly<Record<string, number | string>> | undefined;
    for (const snap of market.snapshots) {
      const result = glft.quote(snap, state, ctx);
      state = result.state ?? state;
      model = result.model;
    }
    // The window is the last 600 s before 660 s; the last batch came at 660 s.
    const end = T0 + 660_000;
    const inWindow = market.times.filter((t) => t >= end - 600_000 && t <= end).length;
    assert.equal(model?.samples, inWindow);
    assert.ok(inWindow > 2000, `${inWindow} arrivals`);
    close(model?.A as number, A, 0.1 * A, 'A');
    close(model?.k as number, k, 0.1 * k, 'k');
    assert.ok((model?.r2 as number) > 0.95, `r2 ${model?.r2}`);
    assert.equal(model?.bins, 10);
    assert.equal(model?.fit, 'ok');
    // The mid steps by 50 bps every 7 s: a 0 bps/√s market it is not.
    assert.ok((model?.sigma_bps as number) > 1);
    assert.equal(state.arrivalTimes.length, inWindow);
    assert.ok(state.midTimes.length <= 122, `${state.midTimes.length} mids kept`);
  });

  void it('falls back until the window holds min_trades arrivals', () => {
    const ctx = contextFor(glft, options);
    let state = glft.init(ctx);
    const fits: string[] = [];
    for (const snap of market.snapshots.slice(0, 40)) {
      const result = glft.quote(snap, state, ctx);
      state = result.state ?? state;
      fits.push(`${result.model?.fit}:${result.model?.samples}`);
    }
    // Nothing measured before the first batch at 10 s; 4 arrivals a second after.
    assert.equal(fits[9], 'fallback:0');
    const firstOk = fits.findIndex((f) => f.startsWith('ok'));
    assert.ok(firstOk >= 20 && firstOk <= 30, fits.join(' '));
    assert.ok(Number(fits[firstOk]?.split(':')[1]) >= 100);
  });

  void it('counts the trades of one taker order once, at its deepest', () => {
    const ctx = contextFor(glft, {});
    const first = glft.quote(snapshot({ takenAtMs: T0 }), glft.init(ctx), ctx).state!;
    const trades = [
      trade(1, T0 - 10, 'sell', '99.0'), // before the first mid: not measured
      trade(2, T0 + 500, 'buy', '100.1'),
      trade(3, T0 + 500, 'buy', '100.3'),
      trade(4, T0 + 500, 'sell', '99.8'),
      trade(5, T0 + 600, 'sell', '99.7'),
    ];
    const { state } = glft.quote(snapshot({ takenAtMs: T0 + 1000, trades }), first, ctx);
    assert.deepEqual(state?.arrivalTimes, [T0 + 500, T0 + 500, T0 + 600]);
    assert.deepEqual(
      state?.arrivalDepths.map((d) => Math.round(d * 1e6) / 1e6),
      [30, 20, 30],
    );
    // Seen again in the next snapshot: not counted twice.
    const again = glft.quote(snapshot({ takenAtMs: T0 + 2000, trades }), state, ctx).state;
    assert.equal(again?.arrivalTimes.length, 3);
    // A venue that starts its trade ids again: later trades are still new.
    const renumbered = [...trades, trade(1, T0 + 1500, 'buy', '100.4')];
    const restarted = glft.quote(
      snapshot({ takenAtMs: T0 + 3000, trades: renumbered }),
      again,
      ctx,
    ).state;
    assert.deepEqual(restarted?.arrivalTimes, [T0 + 500, T0 + 500, T0 + 600, T0 + 1500]);
  });

  void it('survives JSON.stringify/parse mid-run and quotes on identically', () => {
    const ctx = contextFor(glft, options);
    let state = glft.init(ctx);
    const half = 400;
    for (const snap of market.snapshots.slice(0, half)) state = glft.quote(snap, state, ctx).state!;
    let copy = JSON.parse(JSON.stringify(state)) as GlftState;
    assert.deepEqual(copy, state);
    for (const snap of market.snapshots.slice(half)) {
      const a = glft.quote(snap, state, ctx);
      const b = glft.quote(snap, copy, ctx);
      assert.deepEqual(rows(b.quotes), rows(a.quotes));
      assert.deepEqual(b.model, a.model);
      state = a.state!;
      copy = b.state!;
    }
    assert.equal(JSON.stringify(copy), JSON.stringify(state));
  });
});
