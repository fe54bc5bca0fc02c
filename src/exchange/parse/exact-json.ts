import { exactNumber } from './exact-number.js';

/**
 * Any JSON text. Node 20's JSON.parse hands a reviver the rounded double, not the source text
 * (V8 11.3 has no `context.source`), so the numbers a double cannot hold are taken out first:
 * each is replaced by a stand-in number, JSON.parse does the rest natively, and a walk puts the
 * exact values back: on a Level3 body 1.2-1.5× faster than lossless-json's parser, which
 * tokenizes every character in JavaScript (bench/README.md).
 */
export function parseExact(text: string): unknown {
  const tokens: string[] = [];
  const rewritten = standIns(text, tokens);
  let value: unknown;
  try {
    value = JSON.parse(rewritten);
  } catch (err) {
    // The stand-ins shift positions: the original text's own error names the right place.
    JSON.parse(text);
    throw err;
  }
  return tokens.length === 0 ? value : restore(value, tokens);
}

/**
 * A number token needs a look only when it has an exponent or 16+ digit-or-dot characters:
 * without an exponent, 15 such characters hold at most 15 significant digits of a value below
 * 1e15 and (unless zero) at least 1e-13, which a double keeps exactly, so JSON.parse is exact.
 * Stand-in k is the number 1e15 + k; no token left in place can reach 1e15, so a parsed number
 * of 1e15 or more is always a stand-in.
 */
const STAND_IN_BASE = 1e15;
const NUMBER_GRAMMAR = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/** The text with stand-ins, pushing each replaced token to `tokens` (index = k). */
function standIns(text: string, tokens: string[]): string {
  const n = text.length;
  let out = '';
  let copied = 0;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      // Digits inside strings are not numbers: jump to the closing quote (memchr speed).
      i = stringEnd(text, i);
      if (i < 0) break; // unterminated: JSON.parse will say so
    } else if (c === MINUS || (c >= DIGIT_0 && c <= DIGIT_9)) {
      const start = i;
      let exponent = false;
      for (;;) {
        const d = text.charCodeAt(++i);
        if ((d >= DIGIT_0 && d <= DIGIT_9) || d === DOT || d === PLUS || d === MINUS) continue;
        if (d === LOWER_E || d === UPPER_E) exponent = true;
        else break;
      }
      if (!exponent && i - start - (c === MINUS ? 1 : 0) <= 15) continue;
      const token = text.slice(start, i);
      // A malformed run stays as it is so that JSON.parse rejects it.
      if (!NUMBER_GRAMMAR.test(token)) continue;
      out += text.slice(copied, start) + String(STAND_IN_BASE + tokens.length);
      tokens.push(token);
      copied = i;
    } else {
      i++;
    }
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/** Index just past the closing quote of the string opening at `open`, or -1. */
function stringEnd(text: string, open: number): number {
  let close = text.indexOf('"', open + 1);
  while (close > 0 && text.charCodeAt(close - 1) === BACKSLASH) {
    // The quote is escaped only if an odd number of backslashes precede it.
    let first = close - 1;
    while (text.charCodeAt(first - 1) === BACKSLASH) first--;
    if ((close - first) % 2 === 0) break;
    close = text.indexOf('"', close + 1);
  }
  return close < 0 ? -1 : close + 1;
}

/** Puts the exact values back in place of the stand-ins, in place. */
function restore(value: unknown, tokens: readonly string[]): unknown {
  if (typeof value === 'number') {
    return value >= STAND_IN_BASE ? exactNumber(tokens[value - STAND_IN_BASE] ?? '') : value;
  }
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    const list: unknown[] = value;
    for (let i = 0; i < list.length; i++) list[i] = restore(list[i], tokens);
    return list;
  }
  const object = value as Record<string, unknown>;
  for (const key of Object.keys(object)) {
    const before = object[key];
    const after = restore(before, tokens);
    if (after === before) continue;
    if (key === '__proto__') {
      // Plain assignment would call the inherited __proto__ setter instead of keeping the key.
      Object.defineProperty(object, key, {
        value: after,
        writable: true,
        enumerable: true,
        configurable: true,
      });
    } else {
      object[key] = after;
    }
  }
  return object;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const MINUS = 0x2d;
const PLUS = 0x2b;
const DOT = 0x2e;
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;
const LOWER_E = 0x65;
const UPPER_E = 0x45;
