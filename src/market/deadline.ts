import { MakerdError, type Clock } from '../core/index.js';

/** A poll got no answer in time; the request was aborted. */
export class PollTimeoutError extends MakerdError {
  constructor(endpoint: string, ms: number) {
    super('MARKET_POLL_TIMEOUT', `${endpoint}: no answer within ${ms} ms`, { retryable: true });
  }
}

/**
 * Why the timer of a settled call is cancelled: a reason made once, since abort() without one
 * builds a DOMException with a stack trace on every poll.
 */
const SETTLED = new Error('the call settled first');

/**
 * Runs `fn` with a signal that aborts when `parent` does or when `ms` of the injected clock pass,
 * so tests with a ManualClock see the same timeouts as production. The timer and the listener
 * are dropped when `fn` settles, so a finished call leaves nothing behind.
 */
export async function withDeadline<T>(
  clock: Clock,
  parent: AbortSignal,
  ms: number,
  endpoint: string,
  fn: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  parent.throwIfAborted();
  const controller = new AbortController();
  const timer = new AbortController();
  let timedOut = false;
  const onAbort = (): void => controller.abort(parent.reason);
  parent.addEventListener('abort', onAbort, { once: true });
  clock.sleep(ms, timer.signal).then(
    () => {
      timedOut = true;
      controller.abort(new PollTimeoutError(endpoint, ms));
    },
    () => {}, // cancelled: the call settled first
  );
  try {
    return await fn(controller.signal);
  } catch (err) {
    if (timedOut && !parent.aborted) throw new PollTimeoutError(endpoint, ms);
    throw err;
  } finally {
    parent.removeEventListener('abort', onAbort);
    timer.abort(SETTLED);
  }
}
