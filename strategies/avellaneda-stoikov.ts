/**
 * `avellaneda-stoikov`: the inventory-aware quotes of Avellaneda & Stoikov, "High-frequency trading
 * in a limit order book" (Quantitative Finance, 2008), in the infinite-horizon form used by most
 * market makers: the time left to the horizon is a constant τ = horizon_s instead of T - t.
 *
 *   r = s - q * γ * σ² * τ                           reservation price          [quote]
 *   r = s + clamp(r - s, ±s * max_skew_bps / 10 000) bounded skew
 *   δ = γ * σ² * τ + (2 / γ) * ln(1 + γ / k)         total optimal spread       [quote]
 *   δ = min(δ, s * max_spread_bps / 10 000)          cap
 *   δ = max(δ, s * min_spread_bps / 10 000)          floor
 *   bid_n = r - δ/2 - s * n * level_spacing_bps / 10 000
 *   ask_n = r + δ/2 + s * n * level_spacing_bps / 10 000
 *
 * Units:
 *   s  mid price, in quote currency per base unit                              [quote]
 *   q  inventory deviation in order sizes: (base.total - target_base) / order_size  [1]
 *   γ  risk_aversion                                                           [1/quote]
 *   σ  volatility of the mid in absolute price terms: σ = σ_rel * s             [quote/√s]
 *   τ  horizon_s                                                               [s]
 *   k  order_book_liquidity, the decay of fill intensity with distance from s   [1/quote]
 *
 * σ_rel is estimated from the snapshots: for consecutive snapshots with a mid and a fresh depth
 * source, x = ln(s_t / s_{t-1})² / dt is one sample of the variance per second (dt in seconds from
 * takenAtMs; snapshots with dt <= 0 are ignored). The samples are averaged by a time-decayed,
 * bias-corrected EWMA: with w = 2^(-dt / volatility_half_life_s),
 *   sum = w * sum + (1 - w) * x,  weight = w * weight + (1 - w),  σ_rel² = sum / weight.
 * Until min_samples samples have been seen, σ_rel = initial_volatility. Using σ = σ_rel * s makes
 * σ²τ a price² quantity, so r and δ come out in quote currency; γ and k are therefore in 1/quote
 * and must be chosen for the price scale of the pair (k = 1.5, γ = 0.1 give a base spread of about
 * 1.29 quote units). The state holds only strings and numbers so that it survives JSON.
 *
 * With fee_floor (the default) every quote stays at least the maker fee plus the measured adverse
 * selection plus min_edge_bps from the mid (quoteFloor). With post_only, bids are capped at bestAsk - tick and asks floored at bestBid + tick. When
 * |base.total - target_base| >= max_inventory the side that would grow the deviation is not quoted.
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
  type Decimal,
  type DesiredQuote,
  type MarketSnapshot,
} from '../src/runner/strategy-api.js';

const LN2 = dec(2).ln();

const options = Type.Object(
  {
    risk_aversion: Type.Number({
      exclusiveMinimum: 0,
      maximum: 1_000,
      default: 0.1,
      description: 'γ, in 1/quote: how strongly inventory moves the reservation price.',
    }),
    order_book_liquidity: Type.Number({
      exclusiveMinimum: 0,
      default: 1.5,
      description:
        'k, in 1/quote: how fast the chance of a fill decays with distance from the mid (larger k, tighter spread).',
    }),
    horizon_s: Type.Number({
      minimum: 0,
      default: 60,
      description: 'τ, in seconds: the constant horizon of the infinite-horizon variant.',
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
    max_inventory: DecimalOption({
      positive: true,
      default: '0.1',
      description:
        'Base units: when |base.total - target_base| reaches this, the side that would grow the deviation is not quoted.',
    }),
    volatility_half_life_s: Type.Number({
      exclusiveMinimum: 0,
      default: 60,
      description: 'Half-life, in seconds of elapsed time, of the EWMA of squared log returns.',
    }),
    initial_volatility: Type.Number({
      minimum: 0,
      maximum: 1,
      default: 0.0005,
      description:
        'Relative volatility of the mid per √second used until min_samples returns are seen.',
    }),
    min_samples: Type.Integer({
      minimum: 0,
      maximum: 100_000,
      default: 10,
      description:
        'Returns to observe before the estimated volatility replaces initial_volatility.',
    }),
    max_skew_bps: Type.Number({
      minimum: 0,
      maximum: 10_000,
      default: 100,
      description:
        'Cap on |r − s|, the reservation price away from the mid, in bps of the mid: a large inventory in a volatile spell moves the quotes at most this far (the risk limits halt on a quote beyond supervisor.risk.quote_band_bps).',
    }),
    max_spread_bps: Type.Number({
      minimum: 0,
      maximum: 10_000,
      default: 400,
      description:
        'Cap on the total spread δ, in bps of the mid, whatever the volatility estimate says.',
    }),
    min_spread_bps: Type.Number({
      minimum: 0,
      maximum: 10_000,
      default: 5,
      description: 'Floor on the total spread δ, in basis points of the mid.',
    }),
    levels: Type.Integer({
      minimum: 1,
      maximum: 20,
      default: 1,
      description: 'Quotes per side; level 0 is the Avellaneda-Stoikov quote.',
    }),
    level_spacing_bps: Type.Number({
      minimum: 0,
      maximum: 10_000,
      default: 10,
      description: 'Extra distance per level on each side, in basis points of the mid.',
    }),
    ...EDGE_OPTIONS,
    ...QUOTE_HANDLING_OPTIONS,
  },
  { additionalProperties: false },
);

/** The volatility estimator; decimal strings and plain numbers only, so it survives JSON. */
export interface AvellanedaStoikovState {
  /** Mid and time of the last snapshot that fed the estimator. */
  readonly lastMid: string | undefined;
  readonly lastAtMs: number | undefined;
  /** Decayed sum of variance samples and of their weights (bias correction). */
  readonly varianceSum: string;
  readonly varianceWeight: string;
  /** Returns seen so far. */
  readonly samples: number;
}

export default defineStrategy({
  name: 'avellaneda-stoikov',
  version: '1.0.0',
  description:
    'Avellaneda-Stoikov (2008) reservation price and optimal spread, infinite-horizon variant, with an EWMA volatility estimate.',
  options,
  init: (): AvellanedaStoikovState => ({
    lastMid: undefined,
    lastAtMs: undefined,
    varianceSum: '0',
    varianceWeight: '0',
    samples: 0,
  }),
  quote(snapshot, previous, ctx) {
    const o = ctx.options;
    const state = observe(previous, snapshot, o.volatility_half_life_s);
    const s = snapshot.mid;
    if (s === undefined) return { quotes: [], state };

    const sigmaRel =
      state.samples >= o.min_samples && dec(state.varianceWeight).gt(0)
        ? dec(state.varianceSum).div(dec(state.varianceWeight)).sqrt()
        : dec(o.initial_volatility);
    const sigma = sigmaRel.times(s);
    const gamma = dec(o.risk_aversion);
    const k = dec(o.order_book_liquidity);
    const inventoryRisk = gamma.times(sigma.pow(2)).times(dec(o.horizon_s));

    const orderSize = dec(o.order_size);
    const deviation = snapshot.inventory.base.total.minus(dec(o.target_base));
    const q = deviation.div(orderSize);
    const maxSkew = s.times(dec(o.max_skew_bps)).times(BPS);
    const reservation = s.minus(clampAbs(q.times(inventoryRisk), maxSkew));
    const spreadCap = s.times(dec(o.max_spread_bps)).times(BPS);
    const optimal = minOf(inventoryRisk.plus(liquidityTerm(gamma, k)), spreadCap);
    const spreadFloor = s.times(dec(o.min_spread_bps)).times(BPS);
    const halfSpread = maxOf(optimal, spreadFloor).div(2);

    const maxInventory = dec(o.max_inventory);
    const quoteBids = deviation.lt(maxInventory);
    const quoteAsks = deviation.gt(maxInventory.neg());

    const common = quoteHandling(o);
    const floor = quoteFloor(snapshot, o);
    const bids: DesiredQuote[] = [];
    const asks: DesiredQuote[] = [];
    for (let level = 0; level < o.levels; level++) {
      const offset = halfSpread.plus(s.times(dec(o.level_spacing_bps)).times(level).times(BPS));
      if (quoteBids) {
        const raw = applyFloor('buy', reservation.minus(offset), s, floor);
        const price = clampPostOnly('buy', raw, snapshot, o.post_only);
        if (price.gt(0)) bids.push({ side: 'buy', level, price, volume: orderSize, ...common });
      }
      if (quoteAsks) {
        const raw = applyFloor('sell', reservation.plus(offset), s, floor);
        const price = clampPostOnly('sell', raw, snapshot, o.post_only);
        if (price.gt(0)) asks.push({ side: 'sell', level, price, volume: orderSize, ...common });
      }
    }
    return { quotes: [...bids, ...asks], state, floor };
  },
});

/**
 * Feeds one snapshot to the volatility estimator. A snapshot without a mid, with a stale depth
 * source (its mid is old, so its return would read as a calm market) or not later than the last
 * one leaves the estimator as it was.
 */
function observe(
  state: AvellanedaStoikovState,
  snapshot: MarketSnapshot,
  halfLifeS: number,
): AvellanedaStoikovState {
  const mid = snapshot.mid;
  if (mid === undefined || !mid.gt(0) || snapshot.sources.depth.stale) return state;
  if (state.lastMid === undefined || state.lastAtMs === undefined) {
    return { ...state, lastMid: mid.toFixed(), lastAtMs: snapshot.takenAtMs };
  }
  const dtMs = snapshot.takenAtMs - state.lastAtMs;
  if (dtMs <= 0) return state;
  const dt = dec(dtMs).div(1000);
  const lastMid = dec(state.lastMid);
  const sample = mid.eq(lastMid) ? dec(0) : mid.div(lastMid).ln().pow(2).div(dt);
  const keep = decay(dtMs, halfLifeS);
  const add = dec(1).minus(keep);
  return {
    lastMid: mid.toFixed(),
    lastAtMs: snapshot.takenAtMs,
    varianceSum: keep.times(dec(state.varianceSum)).plus(add.times(sample)).toFixed(),
    varianceWeight: keep.times(dec(state.varianceWeight)).plus(add).toFixed(),
    samples: state.samples + 1,
  };
}

/**
 * The EWMA's weight on the past after `dtMs`: 2^(-dt / half-life). Snapshots follow a poll
 * interval, so the same few dt recur, and an exponential to 40 digits at every snapshot was most
 * of what this strategy allocated: kept by dt and half-life, at most DECAYS_KEPT of them.
 */
const DECAYS = new Map<string, Decimal>();
const DECAYS_KEPT = 1_000;

function decay(dtMs: number, halfLifeS: number): Decimal {
  const key = `${dtMs}/${halfLifeS}`;
  let keep = DECAYS.get(key);
  if (keep === undefined) {
    if (DECAYS.size >= DECAYS_KEPT) DECAYS.clear();
    keep = dec(dtMs).div(1000).div(dec(halfLifeS)).times(LN2).neg().exp();
    DECAYS.set(key, keep);
  }
  return keep;
}

/** (2/γ)·ln(1 + γ/k), the spread's part that depends on the options alone, by γ and k. */
const LIQUIDITY_TERMS = new Map<string, Decimal>();

function liquidityTerm(gamma: Decimal, k: Decimal): Decimal {
  const key = `${gamma.toString()}/${k.toString()}`;
  let term = LIQUIDITY_TERMS.get(key);
  if (term === undefined) {
    term = dec(2)
      .div(gamma)
      .times(dec(1).plus(gamma.div(k)).ln());
    LIQUIDITY_TERMS.set(key, term);
  }
  return term;
}

function maxOf(a: Decimal, b: Decimal): Decimal {
  return a.gte(b) ? a : b;
}

function minOf(a: Decimal, b: Decimal): Decimal {
  return a.lte(b) ? a : b;
}

/** `x` limited to [−limit, limit]. */
function clampAbs(x: Decimal, limit: Decimal): Decimal {
  return x.gt(limit) ? limit : x.lt(limit.neg()) ? limit.neg() : x;
}
