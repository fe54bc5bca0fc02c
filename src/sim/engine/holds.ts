import { Decimal } from '../../core/index.js';
import type { SimPair } from '../markets.js';
import type { OrderFlags, Side } from './types.js';

/**
 * What an order holds (BalanceEx `hold_trade`) while it is open or pending.
 *
 * - sell: the remaining base volume; with the fee in base, plus the fee on it.
 * - buy: the remaining volume × a price, in quote; with the fee in quote, plus the fee on it. The
 *   price is the limit price (limit orders; stop-limits, at the limit they get when they fire), or
 *   the stop price for market-type stops (stop-loss, take-profit, trailing-stop). When a
 *   market-type buy stop fires, its cost is estimated from the book again and the order is
 *   cancelled (`Insufficient funds`) if the account cannot pay it.
 *
 * The fee part is reserved at the pair's highest fee rate, not the account's current one: the
 * account's rate changes with its 30-day volume while the order rests, and a hold must still cover
 * the fee when the order finally fills.
 */
export interface Hold {
  readonly asset: string;
  readonly amount: Decimal;
}

const HUNDRED = new Decimal(100);
const maxRates = new WeakMap<SimPair, Decimal>();

/** The highest fee of the pair's ladders as a fraction (0.4 % → 0.004). */
export function maxFeeRate(pair: SimPair): Decimal {
  let rate = maxRates.get(pair);
  if (rate === undefined) {
    let pct = 0;
    for (const [, p] of [...pair.fees, ...pair.fees_maker]) pct = Math.max(pct, p);
    rate = new Decimal(pct).div(HUNDRED);
    maxRates.set(pair, rate);
  }
  return rate;
}

/** The spec's default: fee in base when selling, in quote when buying, unless a flag says. */
export function feeInBase(side: Side, flags: OrderFlags): boolean {
  return flags.fcib || (!flags.fciq && side === 'sell');
}

/** The hold of an order resting (or waiting) with `remaining` base volume left. */
export function restingHold(
  pair: SimPair,
  side: Side,
  flags: OrderFlags,
  remaining: Decimal,
  price: Decimal,
): Hold {
  const inBase = feeInBase(side, flags);
  const withFee = maxFeeRate(pair).plus(1);
  if (side === 'sell') {
    return { asset: pair.base, amount: inBase ? remaining.times(withFee) : remaining };
  }
  const cost = remaining.times(price);
  return { asset: pair.quote, amount: inBase ? cost : cost.times(withFee) };
}

/** A buy's hold for a known quote cost (market orders, from the book). */
export function costHold(pair: SimPair, flags: OrderFlags, cost: Decimal): Hold {
  const inBase = feeInBase('buy', flags);
  return { asset: pair.quote, amount: inBase ? cost : cost.times(maxFeeRate(pair).plus(1)) };
}

/** A sell's hold for a known base volume (market orders). */
export function volumeHold(pair: SimPair, flags: OrderFlags, volume: Decimal): Hold {
  const inBase = feeInBase('sell', flags);
  return { asset: pair.base, amount: inBase ? volume.times(maxFeeRate(pair).plus(1)) : volume };
}
