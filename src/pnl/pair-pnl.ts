import { Decimal, InvalidInputError, toWire, type Side } from '../core/index.js';
import { MidHistory } from './mid-history.js';
import { Series } from './series.js';
import { StepMean } from './step-mean.js';
import type {
  AdverseSelection,
  FillRecord,
  Markout,
  MarkoutSummary,
  PnlFill,
  PnlOptions,
  PnlSplit,
  PnlSummary,
  QuoteSides,
  SeriesPoint,
} from './types.js';

const DEFAULT_HORIZONS_MS = [1_000, 10_000, 60_000];
const BPS = new Decimal(10_000);
const HOUR_MS = 3_600_000;

/** A fill being followed: its markouts fill in as mids arrive. */
interface Followed {
  readonly record: Omit<FillRecord, 'markouts'>;
  readonly markouts: Markout[];
  unresolved: number;
}

interface Due {
  readonly atMs: number;
  readonly fill: Followed;
  readonly horizon: number;
}

/** Per horizon: sums over the fills whose markout is known. */
interface MarkoutSums {
  value: Decimal;
  /** Σ value / price (base units): × 10 000 / Σ volume is the volume-weighted mean in bps. */
  relative: Decimal;
  volume: Decimal;
  fills: number;
}

/**
 * PnL attribution and markouts of one pair (docs/operations.md, "PnL attribution and markouts").
 * Fed by the caller with times in ms, in time order per kind (fills may arrive late, within
 * `historyMs`); pure arithmetic, no clock, no I/O. Live trading and replay feed the same class.
 *
 * total (mark-to-market since counting started) = cash flows of the fills + position × mark −
 * fees, the opening position entering at the first mark. spread is Σ each fill's edge against the
 * mid at its time, fees Σ fees paid, and inventory the rest: Σ signed volume × (mark − mid at the
 * fill), the gain or loss of holding. Every amount is an exact Decimal, so
 * total = spread + inventory − fees holds exactly.
 */
export class PairPnl {
  readonly horizonsMs: readonly number[];
  readonly #history: MidHistory;
  readonly #series: Series;
  readonly #keepFills: number;
  readonly #onSettled: ((record: FillRecord) => void) | undefined;

  readonly #openingBase: Decimal;
  #openingPriced = false;
  #cash = new Decimal(0);
  #position: Decimal;
  #spread = new Decimal(0);
  #fees = new Decimal(0);
  #fills = 0;
  #volumeBase = new Decimal(0);
  #volumeQuote = new Decimal(0);
  #lastFillPrice: Decimal | undefined;

  /** Per horizon, per side. */
  readonly #markouts: Record<Side, MarkoutSums>[];
  #due: Due[] = [];
  #recent: Followed[] = [];
  /** adverseSelection's answers since the last fill or resolved markout (asked every snapshot). */
  readonly #adverse = new Map<string, AdverseSelection>();

  #firstQuotesAtMs: number | undefined;
  readonly #bid = new StepMean();
  readonly #ask = new StepMean();
  readonly #both = new StepMean();
  readonly #any = new StepMean();
  readonly #bidDistance = new StepMean();
  readonly #askDistance = new StepMean();
  #resting: QuoteSides = {};
  #target: QuoteSides = {};
  readonly #ratecount = new StepMean();

  #sinceMs: number | undefined;
  #asOfMs: number | undefined;

  constructor(options: PnlOptions = {}) {
    const horizons = options.horizonsMs ?? DEFAULT_HORIZONS_MS;
    for (const h of horizons) {
      if (!(h > 0)) throw new RangeError(`markout horizons must be positive ms, got ${h}`);
    }
    this.horizonsMs = [...horizons].sort((a, b) => a - b);
    this.#history = new MidHistory(options.historyMs ?? 120_000);
    this.#series = new Series(options.seriesEveryMs ?? 10_000, options.seriesMaxPoints ?? 2_000);
    this.#keepFills = options.keepFills ?? 200;
    this.#onSettled = options.onFillSettled;
    this.#openingBase = options.openingBase ?? new Decimal(0);
    this.#position = this.#openingBase;
    this.#markouts = this.horizonsMs.map(() => ({ buy: noSums(), sell: noSums() }));
  }

  /** A mid sample (from a market snapshot). Samples must come in time order. */
  mid(atMs: number, mid: Decimal): void {
    this.#history.add(atMs, mid);
    this.#priceOpening(mid);
    // Samples come in order, so this one is the first at or after every due time up to it.
    let resolved = 0;
    for (const due of this.#due) {
      if (due.atMs > atMs) break;
      this.#resolve(due.fill, due.horizon, mid);
      resolved += 1;
    }
    if (resolved > 0) this.#due = this.#due.slice(resolved);
    this.#touch(atMs);
  }

  /**
   * One of our fills. The spread is measured against the latest mid sample at or before its time
   * (the earliest one kept if the fill is older; with no mid yet, its own price: no spread). Each
   * markout uses the first mid sample at or after time + horizon, and is pending until one comes.
   */
  fill(fill: PnlFill): void {
    if (!fill.volume.gt(0)) {
      throw new InvalidInputError('fill.volume', `must be positive, got ${fill.volume.toFixed()}`);
    }
    if (!fill.price.gt(0)) {
      throw new InvalidInputError('fill.price', `must be positive, got ${fill.price.toFixed()}`);
    }
    const sign = fill.side === 'buy' ? 1 : -1;
    const mid = this.#history.atOrBefore(fill.atMs) ?? fill.price;
    const spread = mid.minus(fill.price).times(fill.volume).times(sign);
    const notional = fill.price.times(fill.volume);
    this.#cash = sign > 0 ? this.#cash.minus(notional) : this.#cash.plus(notional);
    this.#position = this.#position.plus(sign > 0 ? fill.volume : fill.volume.neg());
    this.#spread = this.#spread.plus(spread);
    this.#fees = this.#fees.plus(fill.fee);
    this.#fills += 1;
    this.#volumeBase = this.#volumeBase.plus(fill.volume);
    this.#volumeQuote = this.#volumeQuote.plus(notional);
    this.#lastFillPrice = fill.price;
    this.#priceOpening(fill.price);

    const followed: Followed = {
      record: { ...fill, mid, spread },
      markouts: this.horizonsMs.map((horizonMs) => ({
        horizonMs,
        value: undefined,
        bps: undefined,
        mid: undefined,
      })),
      unresolved: this.horizonsMs.length,
    };
    const latest = this.#history.latest;
    this.horizonsMs.forEach((h, i) => {
      const atMs = fill.atMs + h;
      const known = latest !== undefined && latest.atMs >= atMs;
      const later = known ? this.#history.atOrAfter(atMs) : undefined;
      if (later !== undefined) this.#resolve(followed, i, later);
      else this.#wait({ atMs, fill: followed, horizon: i });
    });
    this.#recent.push(followed);
    if (this.#recent.length > this.#keepFills) this.#recent.shift();
    this.#adverse.clear();
    this.#touch(fill.atMs);
  }

  /**
   * Our best resting prices and the strategy's target prices per side, from `atMs` until the next
   * call: time at quote and distance from target are weighted by how long each state held.
   */
  quotes(atMs: number, resting: QuoteSides, target: QuoteSides): void {
    this.#firstQuotesAtMs ??= atMs;
    const bid = resting.bid !== undefined;
    const ask = resting.ask !== undefined;
    this.#bid.set(atMs, bid ? 1 : 0);
    this.#ask.set(atMs, ask ? 1 : 0);
    this.#both.set(atMs, bid && ask ? 1 : 0);
    this.#any.set(atMs, bid || ask ? 1 : 0);
    this.#bidDistance.set(atMs, distanceBps(resting.bid, target.bid));
    this.#askDistance.set(atMs, distanceBps(resting.ask, target.ask));
    this.#resting = resting;
    this.#target = target;
    this.#touch(atMs);
  }

  /** The pair's ratecount level and the tier's max, from `atMs` on. */
  ratecount(atMs: number, level: number, max: number): void {
    if (!(max > 0)) throw new InvalidInputError('ratecount.max', `must be positive, got ${max}`);
    this.#ratecount.set(atMs, level / max);
    this.#touch(atMs);
  }

  summary(): PnlSummary {
    const until = this.#asOfMs ?? 0;
    const observedMs = this.#firstQuotesAtMs === undefined ? 0 : until - this.#firstQuotesAtMs;
    const anyMs = (this.#any.mean(until) ?? 0) * observedMs;
    return {
      sinceMs: this.#sinceMs,
      asOfMs: this.#asOfMs,
      mark: this.#mark(),
      position: this.#position,
      pnl: this.#split(),
      fills: this.#fills,
      volumeBase: this.#volumeBase,
      volumeQuote: this.#volumeQuote,
      fillRatePerHour: anyMs > 0 ? (this.#fills * HOUR_MS) / anyMs : undefined,
      timeAtQuote: {
        bid: this.#bid.mean(until) ?? 0,
        ask: this.#ask.mean(until) ?? 0,
        both: this.#both.mean(until) ?? 0,
        any: this.#any.mean(until) ?? 0,
        observedMs,
      },
      quoteDistanceBps: {
        bid: this.#bidDistance.mean(until),
        ask: this.#askDistance.mean(until),
        mean: pooledMean([this.#bidDistance, this.#askDistance], until),
      },
      ratecountUse: { mean: this.#ratecount.mean(until), max: this.#ratecount.max },
      markouts: this.horizonsMs.map((horizonMs, i): MarkoutSummary => {
        const { buy, sell } = this.#markouts[i] as Record<Side, MarkoutSums>;
        return {
          horizonMs,
          meanBps: meanBps(addSums(buy, sell)),
          buyMeanBps: meanBps(buy),
          sellMeanBps: meanBps(sell),
          value: buy.value.plus(sell.value),
          fills: buy.fills + sell.fills,
          pending: this.#due.filter((d) => d.horizon === i).length,
        };
      }),
    };
  }

  /**
   * How far the mid moved against the newest `window` fills whose `horizonMs` markout is known:
   * the volume-weighted mean of −sign × (mid(t + h) − mid(t)) / mid(t), in bps, where mid(t) is the
   * mid the fill's spread was measured against. Positive: the market took back some of the
   * spread. The fill's own edge is not in it; that is what a quote's half-spread pays with.
   */
  adverseSelection(horizonMs: number, window: number): AdverseSelection {
    const i = this.horizonsMs.indexOf(horizonMs);
    if (i < 0) {
      throw new InvalidInputError(
        'horizonMs',
        `${horizonMs} is not a markout horizon (${this.horizonsMs.join(', ')})`,
      );
    }
    const key = `${horizonMs}/${window}`;
    const known = this.#adverse.get(key);
    if (known !== undefined) return known;
    let moved = new Decimal(0);
    let volume = new Decimal(0);
    let fills = 0;
    for (let k = this.#recent.length - 1; k >= 0 && fills < window; k--) {
      const f = this.#recent[k] as Followed;
      const later = f.markouts[i]?.mid;
      if (later === undefined || !f.record.mid.gt(0)) continue;
      const rise = later.minus(f.record.mid).div(f.record.mid);
      // A buy loses when the mid falls after it, a sell when it rises.
      const against = f.record.side === 'buy' ? rise.neg() : rise;
      moved = moved.plus(against.times(f.record.volume));
      volume = volume.plus(f.record.volume);
      fills += 1;
    }
    const answer = {
      bps: volume.isZero() ? new Decimal(0) : moved.div(volume).times(BPS),
      horizonMs,
      fills,
    };
    this.#adverse.set(key, answer);
    return answer;
  }

  /** The newest fills (up to keepFills), oldest first, markouts as known now. */
  fills(): FillRecord[] {
    return this.#recent.map(recordOf);
  }

  /** Chart points since counting started (see Series for the bound). */
  series(): readonly SeriesPoint[] {
    return this.#series.points();
  }

  #split(): PnlSplit {
    const mark = this.#mark();
    const held = mark === undefined ? new Decimal(0) : this.#position.times(mark);
    const total = this.#cash.plus(held).minus(this.#fees);
    return {
      total,
      spread: this.#spread,
      inventory: total.minus(this.#spread).plus(this.#fees),
      fees: this.#fees,
    };
  }

  #mark(): Decimal | undefined {
    return this.#history.latest?.mid ?? this.#lastFillPrice;
  }

  /** The opening position enters at the first mark, as if bought there: it adds no spread. */
  #priceOpening(mark: Decimal): void {
    if (this.#openingPriced) return;
    this.#openingPriced = true;
    this.#cash = this.#cash.minus(this.#openingBase.times(mark));
  }

  #resolve(fill: Followed, horizon: number, mid: Decimal): void {
    const { side, price, volume } = fill.record;
    const edge = side === 'buy' ? mid.minus(price) : price.minus(mid);
    const value = edge.times(volume);
    fill.markouts[horizon] = {
      horizonMs: this.horizonsMs[horizon] as number,
      value,
      bps: edge.div(price).times(BPS),
      mid,
    };
    const sums = (this.#markouts[horizon] as Record<Side, MarkoutSums>)[side];
    sums.value = sums.value.plus(value);
    sums.relative = sums.relative.plus(value.div(price));
    sums.volume = sums.volume.plus(volume);
    sums.fills += 1;
    fill.unresolved -= 1;
    this.#adverse.clear();
    if (fill.unresolved === 0) this.#onSettled?.(recordOf(fill));
  }

  /** Queues a markout by due time (fills may come slightly out of order). */
  #wait(due: Due): void {
    let i = this.#due.length;
    while (i > 0 && (this.#due[i - 1] as Due).atMs > due.atMs) i -= 1;
    this.#due.splice(i, 0, due);
  }

  #touch(atMs: number): void {
    this.#sinceMs ??= atMs;
    this.#asOfMs = Math.max(this.#asOfMs ?? atMs, atMs);
    if (this.#series.due(this.#asOfMs)) this.#series.add(this.#point(this.#asOfMs));
  }

  #point(atMs: number): SeriesPoint {
    const pnl = this.#split();
    return {
      atMs,
      mid: wireOf(this.#history.latest?.mid),
      bid: wireOf(this.#resting.bid),
      ask: wireOf(this.#resting.ask),
      targetBid: wireOf(this.#target.bid),
      targetAsk: wireOf(this.#target.ask),
      position: toWire(this.#position),
      total: toWire(pnl.total),
      spread: toWire(pnl.spread),
      inventory: toWire(pnl.inventory),
      fees: toWire(pnl.fees),
      ratecount: this.#ratecount.current,
    };
  }
}

function noSums(): MarkoutSums {
  return { value: new Decimal(0), relative: new Decimal(0), volume: new Decimal(0), fills: 0 };
}

function addSums(a: MarkoutSums, b: MarkoutSums): MarkoutSums {
  return {
    value: a.value.plus(b.value),
    relative: a.relative.plus(b.relative),
    volume: a.volume.plus(b.volume),
    fills: a.fills + b.fills,
  };
}

function meanBps(sums: MarkoutSums): Decimal | undefined {
  return sums.volume.isZero() ? undefined : sums.relative.div(sums.volume).times(BPS);
}

function recordOf(fill: Followed): FillRecord {
  return { ...fill.record, markouts: [...fill.markouts] };
}

function distanceBps(
  resting: Decimal | undefined,
  target: Decimal | undefined,
): number | undefined {
  if (resting === undefined || target === undefined || !target.gt(0)) return undefined;
  return resting.minus(target).abs().div(target).times(BPS).toNumber();
}

/** The time-weighted mean over every time any of `means` had a value. */
function pooledMean(means: readonly StepMean[], untilMs: number): number | undefined {
  let weighted = 0;
  let ms = 0;
  for (const m of means) {
    const t = m.definedMs(untilMs);
    weighted += (m.mean(untilMs) ?? 0) * t;
    ms += t;
  }
  if (ms > 0) return weighted / ms;
  const now = means.map((m) => m.current).filter((v): v is number => v !== undefined);
  return now.length === 0 ? undefined : now.reduce((a, b) => a + b, 0) / now.length;
}

function wireOf(value: Decimal | undefined): string | undefined {
  return value === undefined ? undefined : toWire(value);
}
