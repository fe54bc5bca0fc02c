import {
  ExchangeError,
  KeyRejectedError,
  MissingCredentialsError,
  ThrottledError,
  TransportError,
} from '../exchange/errors/index.js';
import { NotSentError } from './errors.js';

/**
 * What a failed order-entry call means for the order and for the executor (issue #5 item 5):
 * `rejected` — the exchange refused it, nothing executed; the intent is dropped with its reason
 * counted and not retried (the runner re-derives what it wants from live orders).
 * `unknown` — it may have executed: the order is put in state `unknown` and resolved by query
 * before anything touches its slot again (DESIGN.md §3.6).
 */
export type Failure =
  | {
      readonly kind: 'rejected';
      readonly reason: string;
      /**
       * What else follows: nothing; the venue's mode; a full ratecount; a wait; a gone order; or
       * nothing at all, since the call was stopped before it was signed (`unsent`).
       */
      readonly then: 'drop' | 'mode' | 'ratecount' | 'wait' | 'gone' | 'unsent';
      /**
       * Whether the call's points are given back, when not as `then` implies: see pointsBack().
       */
      readonly pointsBack?: boolean;
      /** For `wait`: until when (epoch ms), when the exchange said. */
      readonly untilMs?: number | undefined;
    }
  | { readonly kind: 'unknown'; readonly reason: string };

const MODE_ERRORS = new Set([
  'EService:Market in cancel_only mode',
  'EService:Market in post_only mode',
]);

/**
 * Whether a failed call's ratecount points go back into the model. Only for refusals made before
 * the matching engine (`mode`, `gone`, `wait`), or as the failure says (`unsent`): a `ratecount`
 * refusal leaves the model full anyway, and a `drop` (funds, post-only, order minimum...) may
 * have been charged by the engine that refused it. Giving those back would let the model fall
 * below the exchange's count and earn a rate-limit rejection later.
 */
export function pointsBack(failure: Failure): boolean {
  if (failure.kind !== 'rejected') return false;
  return failure.pointsBack ?? ['mode', 'gone', 'wait'].includes(failure.then);
}

export function classifyFailure(err: unknown): Failure {
  if (err instanceof NotSentError) {
    return { kind: 'rejected', reason: err.message, then: 'unsent', pointsBack: err.reserved };
  }
  if (err instanceof ThrottledError) {
    return { kind: 'rejected', reason: err.raw, then: 'wait', untilMs: err.retryAtMs };
  }
  if (err instanceof ExchangeError) {
    const raw = err.raw;
    // The exchange family says an order's outcome is unknown when the engine is unavailable.
    if (raw.startsWith('EService:Unavailable')) return { kind: 'unknown', reason: raw };
    if (MODE_ERRORS.has(raw)) return { kind: 'rejected', reason: raw, then: 'mode' };
    if (raw === 'EOrder:Rate limit exceeded') {
      return { kind: 'rejected', reason: raw, then: 'ratecount' };
    }
    if (
      raw === 'EOrder:Unknown order' ||
      raw.startsWith('EOrder:Invalid order:Order is not open')
    ) {
      return { kind: 'rejected', reason: raw, then: 'gone' };
    }
    if (raw === 'EAPI:Rate limit exceeded' || raw.startsWith('EGeneral:Temporary lockout')) {
      return { kind: 'rejected', reason: raw, then: 'wait' };
    }
    // Funds, ordermin, costmin, tick size, post-only, deadline elapsed, invalid arguments, nonce:
    // refused before execution; repeating the same intent would be refused the same way.
    return { kind: 'rejected', reason: raw, then: 'drop' };
  }
  if (err instanceof TransportError) {
    if (err.outcome === 'not-sent') return { kind: 'rejected', reason: err.code, then: 'wait' };
    return { kind: 'unknown', reason: err.code };
  }
  if (err instanceof KeyRejectedError || err instanceof MissingCredentialsError) {
    return { kind: 'rejected', reason: err.code, then: 'wait' };
  }
  if (err instanceof Error && err.name === 'AbortError') {
    return { kind: 'unknown', reason: 'TIMEOUT' };
  }
  // Anything else is a bug on our side, but the request may have left: never guess.
  return { kind: 'unknown', reason: err instanceof Error ? err.name : 'error' };
}
