import type { Decimal } from '../../core/index.js';
import type { SimPair } from '../markets.js';

/**
 * Market data goes out with the pair's own precision, as the exchange writes it: prices with
 * `pair_decimals`, volumes with `lot_decimals` (so `"60000.0"` and `"0.50000000"` on XBT/USD).
 */
export function formatPrice(pair: SimPair, value: Decimal): string {
  return value.toFixed(pair.pair_decimals);
}

export function formatVolume(pair: SimPair, value: Decimal): string {
  return value.toFixed(pair.lot_decimals);
}

const NS_PER_S = 1_000_000_000n;

/** Whole seconds of a nanosecond timestamp, exactly. */
export function nsToSeconds(ns: bigint): number {
  return Number(ns / NS_PER_S);
}
