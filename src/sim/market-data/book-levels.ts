import type { Decimal } from '../../core/index.js';
import type { BookEntry } from '../engine/types.js';

export interface PriceLevel {
  readonly price: Decimal;
  readonly qty: Decimal;
  /** Newest queue time at the level, ns. */
  readonly newestNs: bigint;
  /** Resting orders at the level. */
  readonly orders: number;
}

/**
 * Sums a side of the book (best first) into price levels, best first, stopping after `maxLevels`.
 * `key` maps an entry's price to its level's price (identity for Depth, the grouped level for
 * GroupedBook); it must keep the side's order.
 */
export function aggregate(
  entries: readonly BookEntry[],
  maxLevels: number,
  key: (price: Decimal) => Decimal = (p) => p,
): PriceLevel[] {
  const out: PriceLevel[] = [];
  let cur: { price: Decimal; qty: Decimal; newestNs: bigint; orders: number } | undefined;
  for (const e of entries) {
    const price = key(e.price);
    if (cur !== undefined && cur.price.eq(price)) {
      cur.qty = cur.qty.plus(e.qty);
      if (e.timestampNs > cur.newestNs) cur.newestNs = e.timestampNs;
      cur.orders += 1;
      continue;
    }
    if (out.length === maxLevels) return out;
    cur = { price, qty: e.qty, newestNs: e.timestampNs, orders: 1 };
    out.push(cur);
  }
  return out;
}

/**
 * GroupedBook's rounding: a level spans `grouping` ticks; asks round up and bids round down, so
 * a grouped level is never better than the orders it holds.
 */
export function groupedLevel(side: 'bids' | 'asks', tick: Decimal, grouping: number) {
  const size = tick.times(grouping);
  return (price: Decimal): Decimal => {
    const steps = price.div(size);
    return (side === 'bids' ? steps.floor() : steps.ceil()).times(size);
  };
}

/** The entries of the best `maxLevels` price levels (0 = all), best first, in queue order. */
export function topLevelEntries(entries: readonly BookEntry[], maxLevels: number): BookEntry[] {
  if (maxLevels === 0) return [...entries];
  const out: BookEntry[] = [];
  let levels = 0;
  let prev: Decimal | undefined;
  for (const e of entries) {
    if (prev === undefined || !prev.eq(e.price)) {
      if (levels === maxLevels) break;
      levels += 1;
      prev = e.price;
    }
    out.push(e);
  }
  return out;
}
