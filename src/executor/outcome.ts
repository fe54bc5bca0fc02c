import {
  CancelOnlyModeError,
  ExchangeError,
  KeyRejectedError,
  MissingCredentialsError,
  OrderNotOpenError,
  OrderRateLimitExceededError,
  PostOnlyModeError,
  RateLimitExceededError,
  ServiceUnavailableError,
  TemporaryLockoutError,
  ThrottledError,
  TransportError,
  UnknownOrderError,
} from '../exchange/errors/index.js';

/**
 * What a failed order-entry call means for the order and for the executor, decided by the error's
 * class: `rejected` — the exchange refused it, nothing executed; the intent is dropped with its
 * reason counted and not retried (the runner re-derives what it wants from live orders).
 * `unknown` — it may have executed: the order is put in state `unknown` and resolved by query
 * before anything touches its slot again (DESIGN.md §3.6).
 */
export type Failure =
  | {
      readonly kind: 'rejected';
      readonly reason: string;
      /**
       * What else follows: nothing (`drop`); the venue's mode (`mode`, with which); a full
       * ratecount; a pause (`wait`, until `untilMs` when the exchange said); a gone order.
       */
      readonly then: 'drop' | 'mode' | 'ratecount' | 'wait' | 'gone';
      readonly mode?: 'cancel_only' | 'post_only';
      readonly untilMs?: number | undefined;
    }
  | { readonly kind: 'unknown'; readonly reason: string };

/**
 * Whether a failed call's ratecount points go back into the model: only for refusals made before
 * the matching engine (`mode`, `gone`, `wait`). A `ratecount` refusal leaves the model full anyway,
 * and a `drop` (funds, post-only, order minimum...) may have been charged by the engine that
 * refused it; giving those back would let the model fall below the exchange's count.
 */
export function pointsBack(failure: Failure): boolean {
  return failure.kind === 'rejected' && ['mode', 'gone', 'wait'].includes(failure.then);
}

export function classifyFailure(err: unknown): Failure {
  if (err instanceof ExchangeError) return exchangeFailure(err);
  if (err instanceof TransportError) {
    if (err.outcome === 'unknown') return { kind: 'unknown', reason: err.code };
    // Never reached the engine: refused at the door (HTTP 4xx) or not sent at all.
    return { kind: 'rejected', reason: err.code, then: 'wait' };
  }
  if (err instanceof KeyRejectedError || err instanceof MissingCredentialsError) {
    return { kind: 'rejected', reason: err.code, then: 'wait' };
  }
  if (err instanceof Error && (err.name === 'AbortError' || err.name === 'TimeoutError')) {
    return { kind: 'unknown', reason: 'TIMEOUT' };
  }
  // Anything else is a bug on our side, but the request may have left: never guess.
  return { kind: 'unknown', reason: err instanceof Error ? err.name : 'error' };
}

function exchangeFailure(err: ExchangeError): Failure {
  const reason = err.raw;
  // The exchange family says an order's outcome is unknown when the engine is unavailable.
  if (err instanceof ServiceUnavailableError) return { kind: 'unknown', reason };
  if (err instanceof ThrottledError) {
    return { kind: 'rejected', reason, then: 'wait', untilMs: err.retryAtMs };
  }
  if (err instanceof CancelOnlyModeError) {
    return { kind: 'rejected', reason, then: 'mode', mode: 'cancel_only' };
  }
  if (err instanceof PostOnlyModeError) {
    return { kind: 'rejected', reason, then: 'mode', mode: 'post_only' };
  }
  if (err instanceof OrderRateLimitExceededError) {
    return { kind: 'rejected', reason, then: 'ratecount' };
  }
  if (err instanceof UnknownOrderError || err instanceof OrderNotOpenError) {
    return { kind: 'rejected', reason, then: 'gone' };
  }
  if (err instanceof RateLimitExceededError || err instanceof TemporaryLockoutError) {
    return { kind: 'rejected', reason, then: 'wait' };
  }
  // Funds, ordermin, costmin, tick size, post-only, deadline elapsed, invalid arguments, nonce:
  // refused before execution; repeating the same intent would be refused the same way.
  return { kind: 'rejected', reason, then: 'drop' };
}
