import {
  InvalidInputError,
  closestName,
  dec,
  toWire,
  type Decimal,
  type Side,
} from '../core/index.js';
import type { PairLimits, RiskConfig } from './risk-config.js';

/** One of our orders resting on the book. */
export interface RiskOrder {
  readonly side: Side;
  readonly price: Decimal;
  /** Remaining volume. */
  readonly volume: Decimal;
  /**
   * The exchange's word on it is awaited (placed or edited with no answer yet, or in doubt): it
   * counts for the count, volume and notional limits, but its price may be stale (an edit that did
   * go through), so it is not judged for crossing or the band. Judging such records halted on
   * "our bid crosses our ask" after dropped answers though the book never held a crossed pair.
   */
  readonly inDoubt?: boolean;
}

/** What the guard looks at for one pair. */
export interface PairRisk {
  /** Exchange pair id. */
  readonly pair: string;
  readonly altname: string;
  readonly quoteAsset: string;
  readonly base: Decimal;
  readonly quote: Decimal;
  readonly avgPrice: Decimal;
  readonly realizedPnl: Decimal;
  /** Fills since records began (a running count). */
  readonly fills: number;
  readonly mid: Decimal | undefined;
  /** When the mid was read from the exchange (epoch ms). */
  readonly midAtMs: number | undefined;
  readonly orders: readonly RiskOrder[];
}

export interface Breach {
  /** The limit's config name (max_base, max_loss, stale_after_s...). */
  readonly limit: string;
  readonly pair: string | undefined;
  /** For people: what, how much, against what limit. */
  readonly reason: string;
}

/** How near a pair (or, for the loss limits, all pairs: `all`) is to a configured limit. */
export interface LimitUsage {
  readonly limit: string;
  /** Altname, or `all`. */
  readonly pair: string;
  /** Used ÷ allowed: 1 is the limit; a profit is 0 loss. */
  readonly ratio: number;
}

/** What the limits measured this round, for charts and near-limit alerts. */
export interface RiskReading {
  readonly usage: readonly LimitUsage[];
  /** Realized PnL plus the position marked to mid, per pair altname (no mid: left out). */
  readonly markedPnl: ReadonlyMap<string, Decimal>;
}

const TEN_K = dec(10_000);
const DAY_MS = 86_400_000;

/**
 * Checks positions, orders and prices against the configured limits. Keeps what the loss and
 * fill-rate limits measure from: the marked PnL when it started and at each UTC midnight, and the
 * recent fill counts. The first breach found is returned; the supervisor halts on it.
 */
export class RiskGuard {
  readonly #config: RiskConfig;
  #startPnl: Decimal | undefined;
  #day: { readonly index: number; readonly pnl: Decimal } | undefined;
  /** (time, fills) samples within the fill-rate window, per pair. */
  readonly #fillSamples = new Map<string, { atMs: number; fills: number }[]>();

  constructor(config: RiskConfig) {
    this.#config = config;
  }

  check(pairs: readonly PairRisk[], nowMs: number): Breach | undefined {
    for (const p of pairs) {
      const breach = this.#pairBreach(p, nowMs);
      if (breach !== undefined) return breach;
    }
    return this.#lossBreach(pairs, nowMs);
  }

  #pairBreach(p: PairRisk, nowMs: number): Breach | undefined {
    const c = this.#config;
    const limits = this.limitsOf(p);
    const at = (limit: string, reason: string): Breach => ({
      limit,
      pair: p.pair,
      reason: `${p.altname}: ${reason}`,
    });
    if (over(p.base, limits.max_base)) {
      return at('max_base', `base position ${toWire(p.base)} beyond max_base ${limits.max_base}`);
    }
    if (over(p.quote, limits.max_quote)) {
      return at(
        'max_quote',
        `quote position ${toWire(p.quote)} beyond max_quote ${limits.max_quote}`,
      );
    }
    if (p.mid === undefined || p.midAtMs === undefined) {
      return at('stale_after_s', 'no market price known');
    }
    const ageS = (nowMs - p.midAtMs) / 1000;
    if (ageS > c.stale_after_s) {
      return at(
        'stale_after_s',
        `market data ${ageS.toFixed(1)} s old, stale_after_s ${c.stale_after_s}; ` +
          'makerd resume clears it once the data is fresh',
      );
    }
    const quotes = quotesBreach(p.orders, p.mid, limits, c.quote_band_bps);
    if (quotes !== undefined) return at(quotes.limit, quotes.reason);
    return this.#fillRateBreach(p, nowMs);
  }

  #fillRateBreach(p: PairRisk, nowMs: number): Breach | undefined {
    const rate = this.#config.fill_rate;
    if (rate === undefined) return undefined;
    const windowMs = rate.window_s * 1000;
    const samples = (this.#fillSamples.get(p.pair) ?? []).filter((s) => s.atMs >= nowMs - windowMs);
    samples.push({ atMs: nowMs, fills: p.fills });
    this.#fillSamples.set(p.pair, samples);
    const fills = p.fills - (samples[0]?.fills ?? p.fills);
    if (fills <= rate.max_fills) return undefined;
    return {
      limit: 'fill_rate',
      pair: p.pair,
      reason: `${p.altname}: ${fills} fills within ${rate.window_s} s, fill_rate.max_fills ${rate.max_fills}`,
    };
  }

  /**
   * How near each configured position and loss limit is, and each pair's marked PnL. Call after
   * check(): the loss limits measure from what check() recorded.
   */
  reading(pairs: readonly PairRisk[]): RiskReading {
    const c = this.#config;
    const usage: LimitUsage[] = [];
    const markedPnl = new Map<string, Decimal>();
    const ratio = (used: Decimal, max: string | undefined, limit: string, pair: string): void => {
      if (max !== undefined) usage.push({ limit, pair, ratio: used.div(dec(max)).toNumber() });
    };
    for (const p of pairs) {
      const limits = this.limitsOf(p);
      ratio(p.base.abs(), limits.max_base, 'max_base', p.altname);
      ratio(p.quote.abs(), limits.max_quote, 'max_quote', p.altname);
      if (p.mid !== undefined) markedPnl.set(p.altname, markedPnlOf(p, p.mid));
    }
    const pnl = totalMarkedPnl(pairs);
    const lossSince = (from: Decimal | undefined): Decimal =>
      pnl === undefined || from === undefined ? dec(0) : maxOf(dec(0), from.minus(pnl));
    if (pnl !== undefined && this.#startPnl !== undefined) {
      ratio(lossSince(this.#startPnl), c.max_loss, 'max_loss', 'all');
      ratio(lossSince(this.#day?.pnl), c.max_daily_loss, 'max_daily_loss', 'all');
    }
    return { usage, markedPnl };
  }

  /** Realized plus open positions marked to mid, all pairs (one quote asset). */
  #lossBreach(pairs: readonly PairRisk[], nowMs: number): Breach | undefined {
    const c = this.#config;
    if (c.max_loss === undefined && c.max_daily_loss === undefined) return undefined;
    // No mid: stale_after_s has said so already.
    const pnl = totalMarkedPnl(pairs);
    if (pnl === undefined) return undefined;
    this.#startPnl ??= pnl;
    const day = Math.floor(nowMs / DAY_MS);
    if (this.#day?.index !== day) this.#day = { index: day, pnl };
    const quote = pairs[0]?.quoteAsset ?? '';
    const loss = (since: Decimal): Decimal => since.minus(pnl);
    if (c.max_loss !== undefined && loss(this.#startPnl).greaterThan(dec(c.max_loss))) {
      return {
        limit: 'max_loss',
        pair: undefined,
        reason: `loss since start ${toWire(loss(this.#startPnl))} ${quote} beyond max_loss ${c.max_loss}`,
      };
    }
    if (c.max_daily_loss !== undefined && loss(this.#day.pnl).greaterThan(dec(c.max_daily_loss))) {
      return {
        limit: 'max_daily_loss',
        pair: undefined,
        reason: `loss today ${toWire(loss(this.#day.pnl))} ${quote} beyond max_daily_loss ${c.max_daily_loss}`,
      };
    }
    return undefined;
  }

  limitsOf(p: Pick<PairRisk, 'pair' | 'altname'>): PairLimits {
    return pairLimits(this.#config, p);
  }
}

/**
 * What a set of our orders (resting, or about to be sent) must satisfy whatever else is known:
 * how many, how large, not crossing each other, not far from mid. The supervisor checks the
 * orders on the book; the runner checks a strategy's quotes before they become intents.
 */
export function quotesBreach(
  orders: readonly RiskOrder[],
  mid: Decimal,
  limits: PairLimits,
  bandBps: number,
): { limit: string; reason: string } | undefined {
  if (limits.max_open_orders !== undefined && orders.length > limits.max_open_orders) {
    return {
      limit: 'max_open_orders',
      reason: `${orders.length} orders open, max_open_orders ${limits.max_open_orders}`,
    };
  }
  // One pass, and limits parsed once: the runner runs this on every tick before publishing.
  const maxVolume = limitOf(limits.max_order_volume);
  const maxNotional = limitOf(limits.max_order_notional);
  const band = mid.times(bandBps).dividedBy(TEN_K);
  const [low, high] = [mid.minus(band), mid.plus(band)];
  let bestBid: Decimal | undefined;
  let bestAsk: Decimal | undefined;
  let outOfBand: RiskOrder | undefined;
  for (const o of orders) {
    if (maxVolume !== undefined && o.volume.abs().greaterThan(maxVolume)) {
      return {
        limit: 'max_order_volume',
        reason: `${o.side} order of ${toWire(o.volume)} beyond max_order_volume ${limits.max_order_volume}`,
      };
    }
    if (maxNotional !== undefined) {
      const notional = o.price.times(o.volume);
      if (notional.abs().greaterThan(maxNotional)) {
        return {
          limit: 'max_order_notional',
          reason: `${o.side} order worth ${toWire(notional)} beyond max_order_notional ${limits.max_order_notional}`,
        };
      }
    }
    if (o.inDoubt === true) continue;
    if (o.side === 'buy') {
      if (bestBid === undefined || o.price.greaterThan(bestBid)) bestBid = o.price;
    } else if (bestAsk === undefined || o.price.lessThan(bestAsk)) bestAsk = o.price;
    outOfBand ??= o.price.lessThan(low) || o.price.greaterThan(high) ? o : undefined;
  }
  if (bestBid !== undefined && bestAsk !== undefined && bestBid.greaterThanOrEqualTo(bestAsk)) {
    return {
      limit: 'crossed_quotes',
      reason: `our bid ${toWire(bestBid)} crosses our ask ${toWire(bestAsk)}`,
    };
  }
  if (outOfBand !== undefined) {
    const bps = outOfBand.price.minus(mid).abs().dividedBy(mid).times(TEN_K);
    return {
      limit: 'quote_band_bps',
      reason: `${outOfBand.side} at ${toWire(outOfBand.price)} is ${bps.toFixed(0)} bps from mid ${toWire(mid)}, quote_band_bps ${bandBps}`,
    };
  }
  return undefined;
}

/** A pair's limits: `limits`, with the pair's own entry (by altname or id) over them. */
export function pairLimits(config: RiskConfig, p: Pick<PairRisk, 'pair' | 'altname'>): PairLimits {
  return { ...config.limits, ...(config.pairs[p.altname] ?? config.pairs[p.pair]) };
}

function maxOf(a: Decimal, b: Decimal): Decimal {
  return a.greaterThan(b) ? a : b;
}

function markedPnlOf(p: PairRisk, mid: Decimal): Decimal {
  return p.realizedPnl.plus(p.base.times(mid.minus(p.avgPrice)));
}

/** The marked PnL of every pair, summed; undefined while any pair has no mid. */
function totalMarkedPnl(pairs: readonly PairRisk[]): Decimal | undefined {
  let pnl = dec(0);
  for (const p of pairs) {
    if (p.mid === undefined) return undefined;
    pnl = pnl.plus(markedPnlOf(p, p.mid));
  }
  return pnl;
}

/** |value| beyond a configured limit (none configured: never). */
function over(value: Decimal, max: string | undefined): boolean {
  const limit = limitOf(max);
  return limit !== undefined && value.abs().greaterThan(limit);
}

function limitOf(max: string | undefined): Decimal | undefined {
  return max === undefined ? undefined : dec(max);
}

/** A loss limit sums pairs, so every pair must share one quote asset. */
export function checkLossQuote(config: RiskConfig, quoteAssets: readonly string[]): void {
  if (config.max_loss === undefined && config.max_daily_loss === undefined) return;
  const distinct = [...new Set(quoteAssets)];
  if (distinct.length > 1) {
    throw new InvalidInputError(
      config.max_loss === undefined ? 'supervisor.risk.max_daily_loss' : 'supervisor.risk.max_loss',
      `sums the PnL of every pair, but they are quoted in ${distinct.join(' and ')}`,
    );
  }
}

/**
 * Every per-pair limit must name a traded pair (by altname or id, as `pairLimits` looks it up): a
 * misspelt key would otherwise leave that pair under the general limits without a word.
 */
export function checkRiskPairs(
  config: RiskConfig,
  pairs: readonly Pick<PairRisk, 'pair' | 'altname'>[],
): void {
  const names = pairs.flatMap((p) => [p.altname, p.pair]);
  for (const key of Object.keys(config.pairs)) {
    if (names.includes(key)) continue;
    const close = closestName(key, names);
    throw new InvalidInputError(
      `supervisor.risk.pairs.${key}`,
      `names no traded pair${close === undefined ? '' : `; did you mean ${close}?`} ` +
        `(makerd trades ${pairs.map((p) => p.altname).join(', ')})`,
    );
  }
}
