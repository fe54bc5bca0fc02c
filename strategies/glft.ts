/**
 * `glft`: the closed-form quotes of Guéant, Lehalle & Fernandez-Tapia, "Dealing with the inventory
 * risk" (Mathematics and Financial Economics, 2013), as written in Guéant, "Optimal market making"
 * (Applied Mathematical Finance, 2017, eqs. 4.6-4.9) and in hftbacktest's GLFT tutorial, with the
 * intensity λ(δ) = A·e^(−kδ) and the volatility σ measured online.
 *
 *   ξ = γ:  c1 = ln(1 + ξΔ/k) / (ξΔ)
 *           c2 = √( γ / (2AΔk) · (1 + ξΔ/k)^(k/(ξΔ) + 1) )
 *   ξ = 0:  c1 = 1/k,  c2 = √( γ·e / (2AΔk) )                       (the limit ξ → 0)
 *
 *   half   = (c1 + Δ/2 · σ·c2) · spread_adjustment                   the model's half-spread [bps]
 *   skew   = σ·c2 · skew_adjustment                                  per order size of q     [bps]
 *   h      = min(maker fee + half, max_half_spread_bps)              the quoted half-spread  [bps]
 *   shift  = clamp(q · skew, ±max_skew_bps), then clamp(shift, ±h)   so no quote passes the mid
 *   bid    = s · (1 − (h + shift) / 10 000)
 *   ask    = s · (1 + (h − shift) / 10 000)
 *
 * Units: every price distance is in basis points of the mid, so one set of options suits pairs
 * of any price scale and tick:
 *   s      mid of the book without our orders                                  [quote]
 *   δ, σ   a trade's depth from the mid before it [bps]; σ the mid's volatility [bps/√s]
 *   A      arrivals per second, per side, of takers reaching the mid            [1/s]
 *   k      decay of that rate with depth                                        [1/bps]
 *   q      (base.total − target_base) / order_size                              [order sizes]
 *   Δ      1: one fill moves q by one order size                               [order sizes]
 *   γ = ξ  risk aversion, per unit of P&L counted in bps of the mid × order sizes  [1/(bps·size)]
 * The maker fee is added to the half-spread because a fill at depth δ earns δ − fee: the model's
 * optimum shifts out by the fee. A long q (q > 0) moves both quotes down.
 *
 * A and k are fitted from the public trades. Each trade not seen before (a higher id or a later
 * time than the newest seen) is measured against the latest mid the state saw at or before the trade's time (the Depth
 * answer's time; mids are kept MID_HISTORY_MS, and one older than MAX_MID_AGE_MS is not used);
 * consecutive trades of one side at one time are one taker order and count once, at the depth of
 * its deepest trade: δ = (price − mid)/mid for a taker buy, (mid − price)/mid for a taker sell.
 * Over the last window_s seconds (less until that much time was observed), for bins
 * d_i = i·depth_bin_bps, i = 1..depth_bins, λ(d_i) = (arrivals with δ ≥ d_i) / (2 · window),
 * per side, and a least-squares line through (d_i, ln λ(d_i)) over the bins with a positive
 * count gives ln A (intercept) and −k (slope); R² of that line is the fit's quality.
 *
 * σ² is the time-decayed, bias-corrected EWMA of ln(s_t / s_{t−1})² / dt over consecutive Depth
 * answers (dt in seconds; stale depth is skipped), half-life volatility_half_life_s; σ = 10⁴·√σ².
 *
 * Until the window holds min_trades arrivals in min_bins bins, min_volatility_samples returns are
 * seen, and the fit has k > 0 and R² ≥ min_r2, the quotes are symmetric (no skew) at
 * h = min(maker fee + fallback_half_spread_bps, max_half_spread_bps), and model.fit says
 * `fallback` with the reason. With fee_floor (the default) every quote also stays at least the
 * maker fee plus the measured adverse selection plus min_edge_bps from the mid (quoteFloor); with
 * post_only it stays one tick inside the opposite best price. When |base.total − target_base|
 * reaches max_position, the side that would grow it is not quoted. The state holds numbers and
 * nulls only, so it survives JSON (floats: statistics, not money; prices are computed with
 * Decimal from the mid).
 */
import {
  applyFloor,
  BPS,
  clampPostOnly,
  DecimalOption,
  EDGE_OPTIONS,
  QUOTE_HANDLING_OPTIONS,
  quoteFloor,
  quoteHandling,
  dec,
  defineStrategy,
  Type,
  type DesiredQuote,
  type MarketSnapshot,
  type PublicTrade,
  type Static,
} from '../src/runner/strategy-api.js';

/** One fill moves q by one order size. */
const DELTA = 1;
/** Mids kept to measure trades against: trades arrive in batches, up to a poll interval late. */
const MID_HISTORY_MS = 120_000;
/** A trade whose latest earlier mid is older than this is not measured (the book was stale). */
const MAX_MID_AGE_MS = 15_000;

const options = Type.Object(
  {
    gamma: Type.Number({
      exclusiveMinimum: 0,
      maximum: 1_000,
      default: 0.05,
      description:
        'γ, risk aversion in 1/(bps × order size): how strongly inventory skews the quotes and widens the half-spread.',
    }),
    xi: Type.Union([Type.Literal('gamma'), Type.Literal('zero')], {
      default: 'gamma',
      description:
        'ξ of the closed form: `gamma` (ξ = γ, the exponential-utility objective) or `zero` (its limit ξ → 0, the risk-adjusted expectation).',
    }),
    spread_adjustment: Type.Number({
      exclusiveMinimum: 0,
      maximum: 100,
      default: 1,
      description: "Factor on the model's half-spread c1 + Δ/2·σ·c2 (the tutorial's adj1).",
    }),
    skew_adjustment: Type.Number({
      minimum: 0,
      maximum: 100,
      default: 1,
      description:
        "Factor on the model's skew σ·c2 (the tutorial's adj2); 0 quotes symmetric around the mid.",
    }),
    order_size: DecimalOption({
      positive: true,
      default: '0.01',
      description: 'Volume of every quote in base units; also the unit of the inventory q.',
    }),
    target_base: DecimalOption({
      default: '0',
      description: 'Base-asset holding (base units) at which the inventory q is zero.',
    }),
    max_position: DecimalOption({
      positive: true,
      default: '0.1',
      description:
        'Base units: when |base.total - target_base| reaches this, the side that would grow it is not quoted.',
    }),
    window_s: Type.Number({
      minimum: 10,
      maximum: 86_400,
      default: 600,
      description: 'Seconds of public trades the intensity fit covers (a rolling window).',
    }),
    depth_bin_bps: Type.Number({
      exclusiveMinimum: 0,
      maximum: 1_000,
      default: 1,
      description:
        'Spacing of the depth bins d_i = i × depth_bin_bps of the fit, in bps of the mid.',
    }),
    depth_bins: Type.Integer({
      minimum: 2,
      maximum: 500,
      default: 40,
      description: 'Number of depth bins of the fit; the deepest is depth_bins × depth_bin_bps.',
    }),
    min_trades: Type.Integer({
      minimum: 1,
      maximum: 1_000_000,
      default: 100,
      description:
        'Taker arrivals the window must hold before the fit is used; until then the fallback spread.',
    }),
    min_bins: Type.Integer({
      minimum: 2,
      maximum: 500,
      default: 3,
      description:
        'Depth bins with at least one arrival the fit needs (at most depth_bins); until then the fallback spread.',
    }),
    min_r2: Type.Number({
      minimum: 0,
      maximum: 1,
      default: 0.5,
      description: "Least R² of the fit's line through ln λ; below it the fallback spread.",
    }),
    volatility_half_life_s: Type.Number({
      exclusiveMinimum: 0,
      default: 60,
      description: 'Half-life, in seconds of elapsed time, of the EWMA of squared log returns.',
    }),
    min_volatility_samples: Type.Integer({
      minimum: 1,
      maximum: 100_000,
      default: 10,
      description: 'Mid returns to observe before the fit is used; until then the fallback spread.',
    }),
    fallback_half_spread_bps: Type.Number({
      minimum: 0,
      maximum: 500,
      default: 30,
      description:
        'Half-spread beyond the maker fee, in bps of the mid, quoted symmetrically while the fit has too little data or is bad.',
    }),
    max_half_spread_bps: Type.Number({
      exclusiveMinimum: 0,
      maximum: 500,
      default: 150,
      description:
        'Largest half-spread (maker fee included), in bps of the mid; with max_skew_bps it keeps every quote inside supervisor.risk.quote_band_bps.',
    }),
    max_skew_bps: Type.Number({
      minimum: 0,
      maximum: 400,
      default: 50,
      description:
        'Largest shift of the quotes by the inventory, in bps of the mid; never more than the half-spread, so no quote passes the mid.',
    }),
    ...EDGE_OPTIONS,
    ...QUOTE_HANDLING_OPTIONS,
  },
  { additionalProperties: false },
);

/** What the strategy measured so far; plain numbers (and null) only, so it survives JSON. */
export interface GlftState {
  /** Id and time of the newest public trade already seen; null before the first. */
  readonly lastTradeId: number | null;
  readonly lastTradeMs: number | null;
  /** Mids seen (the Depth answers' times, ms, and the mids), oldest first. */
  readonly midTimes: readonly number[];
  readonly mids: readonly number[];
  /** When the first mid was seen: trades before it cannot be measured. */
  readonly since: number | null;
  /** Taker arrivals in the window, oldest first: time (ms) and depth reached (bps). */
  readonly arrivalTimes: readonly number[];
  readonly arrivalDepths: readonly number[];
  /** The volatility EWMA's decayed sum and weight, and the returns it has seen. */
  readonly varianceSum: number;
  readonly varianceWeight: number;
  readonly returns: number;
}

/** The fitted intensity λ(δ) = A·e^(−kδ); A and k only when two bins had arrivals. */
export interface IntensityFit {
  /** Bins with at least one arrival. */
  readonly bins: number;
  readonly A?: number;
  readonly k?: number;
  readonly r2?: number;
}

export interface Coefficients {
  readonly c1: number;
  readonly c2: number;
}

/**
 * c1 and c2 of the closed form (units as in the header): ξ = 0 is the limit ξ → 0, where
 * (1 + ξΔ/k)^(k/(ξΔ)) → e. log1p keeps small ξΔ/k exact.
 */
export function glftCoefficients(
  A: number,
  k: number,
  gamma: number,
  xi: number,
  delta: number,
): Coefficients {
  if (xi === 0) return { c1: 1 / k, c2: Math.sqrt((gamma * Math.E) / (2 * A * delta * k)) };
  const x = (xi * delta) / k;
  const growth = Math.exp((k / (xi * delta) + 1) * Math.log1p(x));
  return {
    c1: Math.log1p(x) / (xi * delta),
    c2: Math.sqrt((gamma / (2 * A * delta * k)) * growth),
  };
}

/** Half-spread c1 + Δ/2·σ·c2 and skew σ·c2 (before the adjustment factors). */
export function glftQuoteTerms(
  coefficients: Coefficients,
  sigma: number,
  delta: number,
): { readonly halfSpread: number; readonly skew: number } {
  const skew = sigma * coefficients.c2;
  return { halfSpread: coefficients.c1 + (delta / 2) * skew, skew };
}

/**
 * Least squares of ln λ(d_i) = ln A − k·d_i over the depth bins with arrivals, λ per second per
 * side over `spanS` seconds.
 */
export function fitIntensity(
  depths: readonly number[],
  spanS: number,
  binBps: number,
  binCount: number,
): IntensityFit {
  const counts = new Array<number>(binCount + 1).fill(0);
  for (const depth of depths) {
    if (depth < binBps) continue;
    const bin = Math.min(Math.floor(depth / binBps), binCount);
    counts[bin] = (counts[bin] as number) + 1;
  }
  let reached = 0;
  let n = 0;
  let sx = 0;
  let sy = 0;
  let sxx = 0;
  let sxy = 0;
  const xs: number[] = [];
  const ys: number[] = [];
  for (let i = binCount; i >= 1; i--) {
    reached += counts[i] as number;
    if (reached === 0) continue;
    const x = i * binBps;
    const y = Math.log(reached / (2 * spanS));
    xs.push(x);
    ys.push(y);
    n += 1;
    sx += x;
    sy += y;
    sxx += x * x;
    sxy += x * y;
  }
  if (n < 2) return { bins: n };
  const slope = (n * sxy - sx * sy) / (n * sxx - sx * sx);
  const intercept = (sy - slope * sx) / n;
  const meanY = sy / n;
  let residual = 0;
  let total = 0;
  for (let j = 0; j < n; j++) {
    const y = ys[j] as number;
    residual += (y - (intercept + slope * (xs[j] as number))) ** 2;
    total += (y - meanY) ** 2;
  }
  return { bins: n, A: Math.exp(intercept), k: -slope, r2: total > 0 ? 1 - residual / total : 0 };
}

type Options = Static<typeof options>;

export default defineStrategy({
  name: 'glft',
  version: '1.0.0',
  description:
    'Guéant-Lehalle-Fernandez-Tapia closed-form half-spread and inventory skew, with A and k fitted online from the public trades and σ from the mids.',
  options,
  init(ctx): GlftState {
    const o = ctx.options;
    if (o.min_bins > o.depth_bins) {
      throw new Error(`min_bins (${o.min_bins}) must not exceed depth_bins (${o.depth_bins})`);
    }
    return {
      lastTradeId: null,
      lastTradeMs: null,
      midTimes: [],
      mids: [],
      since: null,
      arrivalTimes: [],
      arrivalDepths: [],
      varianceSum: 0,
      varianceWeight: 0,
      returns: 0,
    };
  },
  quote(snapshot, previous, ctx) {
    const o = ctx.options;
    const observed = observeMid(previous, snapshot, o.volatility_half_life_s);
    const measured = measureTrades(observed, snapshot.trades);
    const end = Math.min(snapshot.takenAtMs, snapshot.sources.trades.receivedAtMs ?? Infinity);
    const state = dropBefore(measured, end - o.window_s * 1000);
    const s = snapshot.mid;
    if (s === undefined) return { quotes: [], state };

    const spanS = state.since === null ? 0 : Math.min(o.window_s, (end - state.since) / 1000);
    const fit: IntensityFit =
      spanS > 0
        ? fitIntensity(state.arrivalDepths, spanS, o.depth_bin_bps, o.depth_bins)
        : { bins: 0 };
    const sigma =
      state.varianceWeight > 0 ? 10_000 * Math.sqrt(state.varianceSum / state.varianceWeight) : 0;
    const orderSize = dec(o.order_size);
    const deviation = snapshot.inventory.base.total.minus(dec(o.target_base));
    const q = deviation.div(orderSize).toNumber();
    const feeBps = snapshot.fees.makerBps.toNumber();

    const samples = state.arrivalTimes.length;
    const model = modelOf(fit, o, samples, state.returns, sigma);
    const terms = model.reason === undefined ? modelTerms(fit, o, sigma) : undefined;
    const reason = model.reason ?? (terms === undefined ? 'degenerate fit' : undefined);
    const halfSpread = Math.max(
      0,
      Math.min(feeBps + (terms?.halfSpread ?? o.fallback_half_spread_bps), o.max_half_spread_bps),
    );
    const skew = terms?.skew ?? 0;
    const shift = clamp(clamp(q * skew, o.max_skew_bps), halfSpread);

    const maxPosition = dec(o.max_position);
    const common = quoteHandling(o);
    const floor = quoteFloor(snapshot, o);
    const quotes: DesiredQuote[] = [];
    if (deviation.lt(maxPosition)) {
      const raw = s.times(dec(1).minus(dec(halfSpread + shift).times(BPS)));
      const price = clampPostOnly('buy', applyFloor('buy', raw, s, floor), snapshot, o.post_only);
      if (price.gt(0)) quotes.push({ side: 'buy', level: 0, price, volume: orderSize, ...common });
    }
    if (deviation.gt(maxPosition.neg())) {
      const raw = s.times(dec(1).plus(dec(halfSpread - shift).times(BPS)));
      const price = clampPostOnly('sell', applyFloor('sell', raw, s, floor), snapshot, o.post_only);
      quotes.push({ side: 'sell', level: 0, price, volume: orderSize, ...common });
    }
    return {
      quotes,
      state,
      floor,
      model: {
        fit: reason === undefined ? 'ok' : 'fallback',
        // The same as a number, so makerd_strategy_model can alert on a fit stuck in fallback.
        fallback: reason === undefined ? 0 : 1,
        ...(reason === undefined ? {} : { reason }),
        ...model.figures,
        q: round(q),
        half_spread_bps: round(halfSpread),
        skew_bps: round(skew),
      },
    };
  },
});

/** The fit's figures for QuoteResult.model, and why it cannot be used (undefined: it can). */
function modelOf(
  fit: IntensityFit,
  o: Options,
  samples: number,
  returns: number,
  sigma: number,
): { readonly reason: string | undefined; readonly figures: Record<string, number> } {
  const figures: Record<string, number> = {
    samples,
    bins: fit.bins,
    ...(fit.A === undefined ? {} : { A: round(fit.A) }),
    ...(fit.k === undefined ? {} : { k: round(fit.k) }),
    ...(fit.r2 === undefined ? {} : { r2: round(fit.r2) }),
    ...(returns > 0 ? { sigma_bps: round(sigma) } : {}),
  };
  let reason: string | undefined;
  if (samples < o.min_trades) reason = `too few trades (${samples} < ${o.min_trades})`;
  else if (fit.bins < o.min_bins) reason = `too few depth bins (${fit.bins} < ${o.min_bins})`;
  else if (fit.k === undefined || !(fit.k > 0)) reason = 'k <= 0';
  else if (fit.r2 === undefined || fit.r2 < o.min_r2) {
    reason = `r2 ${round(fit.r2 ?? 0)} < min_r2 ${o.min_r2}`;
  } else if (returns < o.min_volatility_samples) {
    reason = `too few mid returns (${returns} < ${o.min_volatility_samples})`;
  }
  return { reason, figures };
}

/** The adjusted half-spread and skew (bps), or undefined when the numbers are not finite. */
function modelTerms(
  fit: IntensityFit,
  o: Options,
  sigma: number,
): { readonly halfSpread: number; readonly skew: number } | undefined {
  if (fit.A === undefined || fit.k === undefined) return undefined;
  const xi = o.xi === 'gamma' ? o.gamma : 0;
  const terms = glftQuoteTerms(glftCoefficients(fit.A, fit.k, o.gamma, xi, DELTA), sigma, DELTA);
  const halfSpread = terms.halfSpread * o.spread_adjustment;
  const skew = terms.skew * o.skew_adjustment;
  return Number.isFinite(halfSpread) && Number.isFinite(skew) ? { halfSpread, skew } : undefined;
}

/**
 * Feeds a new Depth answer's mid to the history and the volatility EWMA. A snapshot without a
 * mid, with stale depth, or whose book is not newer than the last one seen leaves both as they
 * were (snapshots between two Depth answers would read as a calm market).
 */
function observeMid(state: GlftState, snapshot: MarketSnapshot, halfLifeS: number): GlftState {
  const mid = snapshot.mid?.toNumber();
  if (mid === undefined || !(mid > 0) || snapshot.sources.depth.stale) return state;
  const at = snapshot.bookAsOfMs ?? snapshot.takenAtMs;
  const lastAt = state.midTimes.at(-1);
  const lastMid = state.mids.at(-1);
  if (lastAt !== undefined && at <= lastAt) return state;
  // Keep the newest mid older than the horizon too: it is the mid before a trade just inside it.
  const keepFrom = Math.max(0, firstAtOrAfter(state.midTimes, at - MID_HISTORY_MS) - 1);
  const midTimes = [...state.midTimes.slice(keepFrom), at];
  const mids = [...state.mids.slice(keepFrom), mid];
  const since = state.since ?? at;
  if (lastAt === undefined || lastMid === undefined) return { ...state, midTimes, mids, since };
  const dt = (at - lastAt) / 1000;
  const sample = Math.log(mid / lastMid) ** 2 / dt;
  const keep = 2 ** (-dt / halfLifeS);
  return {
    ...state,
    midTimes,
    mids,
    since,
    varianceSum: keep * state.varianceSum + (1 - keep) * sample,
    varianceWeight: keep * state.varianceWeight + (1 - keep),
    returns: state.returns + 1,
  };
}

/**
 * Measures the trades not seen before and adds one arrival per taker order to the window. Trade
 * ids increase with time; a later trade with a lower id (a venue that renumbered, a simulator
 * restarted) is new too.
 */
function measureTrades(state: GlftState, trades: readonly PublicTrade[]): GlftState {
  const seen = (t: PublicTrade): boolean =>
    state.lastTradeId !== null &&
    state.lastTradeMs !== null &&
    t.tradeId <= state.lastTradeId &&
    t.timeMs <= state.lastTradeMs;
  const newest = trades.at(-1);
  if (newest === undefined || seen(newest)) return state;
  const times: number[] = [];
  const depths: number[] = [];
  let group: { timeMs: number; side: string; depth: number } | undefined;
  const close = () => {
    if (group === undefined) return;
    times.push(group.timeMs);
    depths.push(group.depth);
  };
  for (const trade of trades) {
    if (seen(trade)) continue;
    const mid = midAt(state, trade.timeMs);
    if (mid === undefined) continue;
    const price = trade.price.toNumber();
    const depth = ((trade.side === 'buy' ? price - mid : mid - price) / mid) * 10_000;
    if (group !== undefined && group.timeMs === trade.timeMs && group.side === trade.side) {
      group.depth = Math.max(group.depth, depth);
    } else {
      close();
      group = { timeMs: trade.timeMs, side: trade.side, depth };
    }
  }
  close();
  return {
    ...state,
    lastTradeId: newest.tradeId,
    lastTradeMs: newest.timeMs,
    arrivalTimes: times.length === 0 ? state.arrivalTimes : [...state.arrivalTimes, ...times],
    arrivalDepths: depths.length === 0 ? state.arrivalDepths : [...state.arrivalDepths, ...depths],
  };
}

/** The window's arrivals from `fromMs` on (the same state when none is older). */
function dropBefore(state: GlftState, fromMs: number): GlftState {
  const first = firstAtOrAfter(state.arrivalTimes, fromMs);
  if (first === 0) return state;
  return {
    ...state,
    arrivalTimes: state.arrivalTimes.slice(first),
    arrivalDepths: state.arrivalDepths.slice(first),
  };
}

/** The latest mid seen at or before `timeMs`, unless it is older than MAX_MID_AGE_MS. */
function midAt(state: GlftState, timeMs: number): number | undefined {
  const i = firstAtOrAfter(state.midTimes, timeMs + 1) - 1;
  const at = state.midTimes[i];
  if (at === undefined || timeMs - at > MAX_MID_AGE_MS) return undefined;
  return state.mids[i];
}

/** Index of the first time ≥ t in an ascending list (its length when none). */
function firstAtOrAfter(times: readonly number[], t: number): number {
  let lo = 0;
  let hi = times.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((times[mid] as number) < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** x kept within ±bound. */
function clamp(x: number, bound: number): number {
  return Math.max(-bound, Math.min(bound, x));
}

/** Six significant digits: what /status and the console show. */
function round(x: number): number {
  return Number(x.toPrecision(6));
}
