import { Decimal, type BookView, type PriceLevel, type Side } from '../core/index.js';

/** One of our orders resting on the book, as far as taking it out of a book needs it. */
export interface RestingVolume {
  readonly side: Side;
  readonly price: Decimal;
  /** What still rests: volume less executed. */
  readonly remaining: Decimal;
}

/**
 * The market without us: each level of `venue` less our resting volume at its price; a level
 * whose volume was all ours (or less than ours: the book moved since) is gone. With `bucket`, a
 * GroupedBook's levels: our volume leaves the bucket that holds its price (bids round down, asks
 * up, to a multiple of `bucket`, as the exchange groups them).
 */
export function withoutOurs(
  venue: BookView,
  ours: readonly RestingVolume[],
  bucket?: Decimal,
): BookView {
  if (ours.length === 0) return venue;
  return {
    bids: sideWithout(venue.bids, ours, 'buy', bucket),
    asks: sideWithout(venue.asks, ours, 'sell', bucket),
  };
}

function sideWithout(
  levels: readonly PriceLevel[],
  ours: readonly RestingVolume[],
  side: Side,
  bucket: Decimal | undefined,
): readonly PriceLevel[] {
  const byPrice = new Map<string, Decimal>();
  for (const o of ours) {
    if (o.side !== side || !o.remaining.gt(0)) continue;
    const price = bucket === undefined ? o.price : bucketOf(o.price, side, bucket);
    const key = price.toFixed();
    byPrice.set(key, (byPrice.get(key) ?? new Decimal(0)).plus(o.remaining));
  }
  if (byPrice.size === 0) return levels;
  const out: PriceLevel[] = [];
  for (const level of levels) {
    const mine = byPrice.get(level.price.toFixed());
    if (mine === undefined) {
      out.push(level);
      continue;
    }
    const left = level.volume.minus(mine);
    if (left.gt(0)) out.push({ price: level.price, volume: left });
  }
  return out;
}

function bucketOf(price: Decimal, side: Side, bucket: Decimal): Decimal {
  const steps = price.div(bucket);
  return (side === 'buy' ? steps.floor() : steps.ceil()).times(bucket);
}
