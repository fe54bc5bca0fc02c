import { isInteger, isSafeNumber, parse as parseLossless } from 'lossless-json';

/**
 * JSON.parse keeps decimal strings exact (they are strings) and is the fast path. Bodies that carry
 * integers beyond 2^53 (Level3 nanosecond timestamps, DESIGN.md §3.2) go through this parser,
 * which turns every unsafe integer into a bigint instead of rounding it.
 */
export function parseJsonBigInts(text: string): unknown {
  return parseLossless(text, null, (value: string) => {
    if (isSafeNumber(value)) return Number(value);
    if (isInteger(value)) return BigInt(value);
    // A non-integer that does not fit a double: keep its text rather than lose digits.
    return value;
  });
}
