import { isSafeNumber } from 'lossless-json';

/**
 * The conversion rule of parseJsonBigInts for one JSON number token: a number when a double holds
 * it exactly, a bigint for a longer integer, else (a non-integer a double would round) the token's
 * text. Non-integers are decided by lossless-json's isSafeNumber, as the lossless-json parser this
 * replaced decided them.
 */
export function exactNumber(token: string): number | bigint | string {
  if (isIntegerToken(token)) return exactInteger(token);
  return isSafeNumber(token) ? Number(token) : token;
}

/** The same rule for a token known to be an integer: its digit count decides. */
export function exactInteger(token: string): number | bigint {
  const digits = token.charCodeAt(0) === MINUS ? token.length - 1 : token.length;
  if (digits <= 15) return Number(token);
  if (digits >= 17) return BigInt(token);
  // 16 digits: on either side of 2^53 = 9007199254740992.
  const value = Number(token);
  return Number.isSafeInteger(value) ? value : BigInt(token);
}

function isIntegerToken(token: string): boolean {
  for (let i = token.charCodeAt(0) === MINUS ? 1 : 0; i < token.length; i++) {
    const c = token.charCodeAt(i);
    if (c < DIGIT_0 || c > DIGIT_9) return false;
  }
  return true;
}

const MINUS = 0x2d;
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;
