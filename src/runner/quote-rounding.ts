/**
 * Turns a strategy's ideal quotes into orders the exchange accepts (DESIGN.md §3.1): prices on the
 * tick, volumes on the lot, and nothing under ordermin/costmin. Rounding only ever moves a quote
 * away from the mid, so the runner never trades more aggressively than the strategy asked.
 */
import { Decimal } from '../core/decimal.js';
import { InvalidInputError } from '../core/errors.js';
import { MAX_LEVEL, slotKey } from '../core/intent.js';
import type { PairInfo } from '../core/market.js';
import type { DesiredQuote } from './strategy-api.js';

/** A quote as it will be sent: exact tick/lot values, postOnly decided, slot key attached. */
export interface RoundedQuote extends Omit<DesiredQuote, 'postOnly'> {
  readonly postOnly: boolean;
  /** slotKey() of (side, level), e.g. `bid:0`. */
  readonly slot: string;
}

export type DropReason =
  | 'below-ordermin'
  | 'below-costmin'
  | 'non-positive'
  | 'duplicate-slot'
  | 'bad-level'
  /** price or volume is not a finite decimal (a plugin bug: NaN, Infinity, a JS number). */
  | 'not-a-decimal'
  /** tolerance or maxAgeMs is negative or not finite: it would churn or never amend. */
  | 'bad-tolerance';

export interface DroppedQuote {
  readonly quote: DesiredQuote;
  /** Position in the strategy's list, for logs. */
  readonly index: number;
  readonly reason: DropReason;
  /** Human-readable numbers behind the reason, for logs. */
  readonly detail: string;
}

export interface RoundingResult {
  readonly accepted: RoundedQuote[];
  readonly dropped: DroppedQuote[];
}

export function roundQuotes(
  quotes: readonly DesiredQuote[],
  pair: PairInfo,
  field = 'pair',
): RoundingResult {
  checkPair(pair, field);
  const accepted: RoundedQuote[] = [];
  const dropped: DroppedQuote[] = [];
  // The first quote for a slot claims it even if it is then dropped: picking a later one would
  // hide a strategy bug behind whichever duplicate happened to round well.
  const claimed = new Set<string>();

  quotes.forEach((quote, index) => {
    const drop = (reason: DropReason, detail: string): void => {
      dropped.push({ quote, index, reason, detail });
    };
    if (!Number.isInteger(quote.level) || quote.level < 0 || quote.level > MAX_LEVEL) {
      return drop('bad-level', `level ${String(quote.level)} is not an integer in 0..${MAX_LEVEL}`);
    }
    const slot = slotKey(quote);
    if (claimed.has(slot)) return drop('duplicate-slot', `a quote for ${slot} came earlier`);
    claimed.add(slot);

    const rawPrice = asDecimal(quote.price);
    const rawVolume = asDecimal(quote.volume);
    if (rawPrice === undefined || rawVolume === undefined) {
      return drop('not-a-decimal', `price ${String(quote.price)}, volume ${String(quote.volume)}`);
    }
    const toleranceProblem = badTolerance(quote);
    if (toleranceProblem !== undefined) return drop('bad-tolerance', toleranceProblem);

    const price = toTick(rawPrice, pair.tickSize, quote.side === 'sell');
    const volume = rawVolume.toDecimalPlaces(pair.lotDecimals, Decimal.ROUND_DOWN);
    if (price.lte(0) || volume.lte(0)) {
      return drop(
        'non-positive',
        `price ${price.toFixed()}, volume ${volume.toFixed()} after rounding`,
      );
    }
    if (volume.lt(pair.orderMin)) {
      return drop(
        'below-ordermin',
        `volume ${volume.toFixed()} < ordermin ${pair.orderMin.toFixed()}`,
      );
    }
    const cost = price.times(volume);
    if (pair.costMin !== undefined && cost.lt(pair.costMin)) {
      return drop('below-costmin', `cost ${cost.toFixed()} < costmin ${pair.costMin.toFixed()}`);
    }
    accepted.push({ ...quote, price, volume, postOnly: quote.postOnly ?? true, slot });
  });
  return { accepted, dropped };
}

/** Bids down, asks up: a multiple of tick, never better for the taker than the strategy asked. */
function toTick(price: Decimal, tick: Decimal, up: boolean): Decimal {
  // divToInt truncates exactly (no precision loss), and for price > 0 truncation is floor.
  const floor = price.divToInt(tick).times(tick);
  if (price.lte(0)) return floor;
  return up && floor.lt(price) ? floor.plus(tick) : floor;
}

function asDecimal(value: unknown): Decimal | undefined {
  if (value instanceof Decimal) return value.isFinite() ? value : undefined;
  if (!Decimal.isDecimal(value)) return undefined;
  // A plugin may bring its own decimal.js copy; re-wrap so arithmetic uses our configuration.
  const d = new Decimal(value);
  return d.isFinite() ? d : undefined;
}

function badTolerance(quote: DesiredQuote): string | undefined {
  const checks: [string, number | undefined][] = [
    ['tolerance.priceBps', quote.tolerance?.priceBps],
    ['tolerance.volumeFraction', quote.tolerance?.volumeFraction],
    ['maxAgeMs', quote.maxAgeMs],
  ];
  for (const [name, value] of checks) {
    if (value !== undefined && !(Number.isFinite(value) && value >= 0)) {
      return `${name} ${String(value)} is not a finite number >= 0`;
    }
  }
  return undefined;
}

function checkPair(pair: PairInfo, field: string): void {
  // Bad pair data would round every quote wrongly; that is a bug upstream, so fail loudly.
  if (!pair.tickSize.isFinite() || pair.tickSize.lte(0)) {
    throw new InvalidInputError(`${field}.tickSize`, `must be > 0, got ${pair.tickSize.toFixed()}`);
  }
  if (!Number.isInteger(pair.lotDecimals) || pair.lotDecimals < 0) {
    throw new InvalidInputError(
      `${field}.lotDecimals`,
      `must be an integer >= 0, got ${pair.lotDecimals}`,
    );
  }
}
