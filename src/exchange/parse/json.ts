import { parseExact } from './exact-json.js';
import { readLevel3Layout } from './level3-layout.js';

/**
 * JSON.parse keeps decimal strings exact (they are strings) and is the fast path. Bodies that carry
 * integers beyond 2^53 (Level3 nanosecond timestamps, DESIGN.md §3.2) go through this parser. Its
 * contract, the same as lossless-json's parse with the number callback in `exactNumber`: every
 * integer beyond 2^53 becomes a bigint, every other integer a number, strings stay as sent, and a
 * non-integer that does not fit a double keeps its text rather than lose digits. Duplicate keys
 * keep the last value, as JSON.parse does.
 *
 * Level3's usual layout is read directly (level3-layout.ts); anything else takes `parseExact`.
 */
export function parseJsonBigInts(text: string): unknown {
  return readLevel3Layout(text) ?? parseExact(text);
}
