import { MakerdError, type Clock } from '../../core/index.js';

/**
 * Where signed requests get their `nonce` (DESIGN.md §3.3; spec, Authentication 3).
 *
 * The exchange rejects any nonce that is not above the last one it accepted for the key, and a
 * burst of rejections earns the key a temporary lockout, so a nonce may never be reused and never
 * go down: not across restarts, not between processes sharing a key. We use Unix time in
 * milliseconds, bumped by one when the clock has not moved (or moved back): the values stay near
 * the wall clock, so a source whose state was lost still starts above anything used before, and
 * they stay far below 2^53, so a JS `number` holds them exactly.
 *
 * Take the nonce at the moment the request is signed, never earlier. The exchange compares each
 * arriving nonce with the highest it has seen; a nonce drawn early (when a job is queued, before a
 * rate-limit wait, before a retry delay) is overtaken by requests that drew theirs later, and when
 * it finally arrives it is below the high-water mark and rejected. Drawing late keeps the order of
 * nonces the order in which requests go out.
 */
export interface NonceSource {
  /** The next nonce for the key: a safe unsigned integer above every nonce handed out before. */
  next(): Promise<number>;
  /** Releases resources the source owns; sources that own none omit it. */
  close?(): Promise<void>;
}

export type NonceErrorCode =
  /** The clock gave something that is not a non-negative safe number of milliseconds. */
  | 'NONCE_CLOCK_INVALID'
  /** The stored last nonce is not an integer a nonce can follow: an operator has to look. */
  | 'NONCE_STATE_CORRUPT'
  /** The next nonce would leave the exactly representable range. */
  | 'NONCE_EXHAUSTED'
  /** The shared store could not be reached; no nonce was handed out. */
  | 'NONCE_STORE_UNAVAILABLE';

/**
 * A nonce could not be produced. Nothing was signed with it, so the request was not sent; only
 * `NONCE_STORE_UNAVAILABLE` is worth retrying as is.
 */
export class NonceError extends MakerdError {
  declare readonly code: NonceErrorCode;

  constructor(code: NonceErrorCode, message: string, options: { cause?: unknown } = {}) {
    super(code, message, { cause: options.cause, retryable: code === 'NONCE_STORE_UNAVAILABLE' });
  }
}

/** The highest nonce we hand out: above it a JS number no longer counts in steps of one. */
export const MAX_NONCE = Number.MAX_SAFE_INTEGER;

/** The clock as whole milliseconds; fractions are dropped so nonces stay integers. */
export function clockMillis(clock: Clock): number {
  const raw = clock.now();
  const ms = Math.floor(raw);
  if (!Number.isSafeInteger(ms) || ms < 0) {
    throw new NonceError(
      'NONCE_CLOCK_INVALID',
      `clock returned ${String(raw)}, not a non-negative number of milliseconds`,
    );
  }
  return ms;
}
