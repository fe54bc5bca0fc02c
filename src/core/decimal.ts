import { Decimal as DecimalJs } from 'decimal.js';

/**
 * Money is never a float (DESIGN.md §3.1). On the wire it is a decimal string; in memory a
 * Decimal. A configured clone, so that a library user's own decimal.js settings stay theirs:
 * 40 significant digits cover any price x volume the exchange can express, with room to spare.
 */
export const Decimal = DecimalJs.clone({
  precision: 40,
  rounding: DecimalJs.ROUND_HALF_EVEN,
  toExpNeg: -30,
  toExpPos: 40,
});
export type Decimal = DecimalJs;

/** A decimal number as the exchange sends it: kept verbatim so that no digit is lost. */
export type DecimalString = string;

const DECIMAL_RE = /^[+-]?(?:\d+\.?\d*|\.\d+)$/;

export function isDecimalString(value: unknown): value is DecimalString {
  return typeof value === 'string' && DECIMAL_RE.test(value);
}

/** Parses a decimal string exactly; throws RangeError on anything that is not a plain decimal. */
export function dec(value: DecimalString | Decimal | number | bigint): Decimal {
  if (DecimalJs.isDecimal(value)) return new Decimal(value);
  if (typeof value === 'string' && !DECIMAL_RE.test(value)) {
    throw new RangeError(`not a decimal number: ${JSON.stringify(value)}`);
  }
  if (typeof value === 'number' && !Number.isFinite(value)) {
    throw new RangeError(`not a finite number: ${value}`);
  }
  return new Decimal(typeof value === 'bigint' ? value.toString() : value);
}

/**
 * Whether two decimal strings are the same amount. Doubles that differ mean the amounts do (the
 * conversion is monotonic), which settles the usual case without a decimal; equal doubles are
 * checked exactly.
 */
export function sameAmount(a: DecimalString, b: DecimalString): boolean {
  if (a === b) return true;
  if (Number(a) !== Number(b)) return false;
  return dec(a).eq(dec(b));
}

/** Plain (never exponential) decimal text for the wire. */
export function toWire(value: Decimal): DecimalString {
  return value.toFixed();
}
