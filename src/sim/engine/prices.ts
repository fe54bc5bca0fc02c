import { Decimal } from '../../core/index.js';
import type { OrderType, PriceSpec, Side } from './types.js';

/** Which way from the reference price: also the passive rounding direction. */
export type Direction = 'up' | 'down';

const HUNDRED = new Decimal(100);

export function isStopType(t: OrderType): boolean {
  return t !== 'market' && t !== 'limit' && t !== 'settle-position';
}

export function isTrailing(t: OrderType): boolean {
  return t === 'trailing-stop' || t === 'trailing-stop-limit';
}

/** Stop types that become a limit order (at price2) when they fire. */
export function becomesLimit(t: OrderType): boolean {
  return t === 'stop-loss-limit' || t === 'take-profit-limit' || t === 'trailing-stop-limit';
}

function isTakeProfit(t: OrderType): boolean {
  return t === 'take-profit' || t === 'take-profit-limit';
}

/**
 * Whether a stop order fires when the price rises to its stop (`up`) or falls to it (`down`).
 * Stop-loss and trailing stops protect against adverse moves: a sell fires on a fall, a buy on a
 * rise. Take-profit is the opposite.
 */
export function triggerDirection(t: OrderType, side: Side): Direction {
  const lossSide: Direction = side === 'buy' ? 'up' : 'down';
  if (!isTakeProfit(t)) return lossSide;
  return lossSide === 'up' ? 'down' : 'up';
}

/**
 * Direction of `#` and of rounding for an order's `price`. The two coincide: a buy limit below the
 * market and rounded down, a sell limit above and rounded up, a stop placed on the side it fires
 * and rounded so it fires no earlier than asked, are all the passive choice.
 */
export function priceDirection(t: OrderType, side: Side): Direction {
  if (t === 'limit' || t === 'market') return side === 'buy' ? 'down' : 'up';
  return triggerDirection(t, side);
}

/** `price2` is a limit price: passive for the order's side. */
export function limitDirection(side: Side): Direction {
  return side === 'buy' ? 'down' : 'up';
}

export function roundToTick(price: Decimal, tick: Decimal, dir: Direction): Decimal {
  const rounding = dir === 'down' ? Decimal.ROUND_FLOOR : Decimal.ROUND_CEIL;
  return price.div(tick).toDecimalPlaces(0, rounding).times(tick);
}

export function isTickMultiple(price: Decimal, tick: Decimal): boolean {
  return price.mod(tick).isZero();
}

/** A tick multiple as a whole number of ticks (exact below 2^53 ticks). */
export function toTicks(price: Decimal, tick: Decimal): number {
  return price.div(tick).toNumber();
}

/** The offset a relative price adds to or subtracts from `ref`. */
export function offsetOf(spec: Extract<PriceSpec, { kind: 'rel' }>, ref: Decimal): Decimal {
  return spec.percent ? ref.times(spec.amount).div(HUNDRED) : spec.amount;
}

/**
 * A relative price against `ref`, rounded to the tick in `dir` (`#` also moves in `dir`). Absolute
 * prices are returned as given: they are checked against the tick, not rounded.
 */
export function resolvePrice(
  spec: PriceSpec,
  ref: Decimal,
  dir: Direction,
  tick: Decimal,
): Decimal {
  if (spec.kind === 'abs') return spec.value;
  const offset = offsetOf(spec, ref);
  const up = spec.op === '+' || (spec.op === '#' && dir === 'up');
  return roundToTick(up ? ref.plus(offset) : ref.minus(offset), tick, dir);
}

/**
 * A trailing stop's stop price: `offset` below the highest price seen for a sell, above the lowest
 * for a buy, rounded so the stop fires no earlier than the offset says.
 */
export function trailingStop(
  side: Side,
  extreme: Decimal,
  offset: Extract<PriceSpec, { kind: 'rel' }>,
  tick: Decimal,
): Decimal {
  const amount = offsetOf(offset, extreme);
  return side === 'sell'
    ? roundToTick(extreme.minus(amount), tick, 'down')
    : roundToTick(extreme.plus(amount), tick, 'up');
}
