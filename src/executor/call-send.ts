import type { OrderIntent } from '../core/index.js';
import type { CallOptions } from '../exchange/index.js';
import { arrivalOf } from './order-entry-link.js';
import type { PairScope } from './pair-context.js';
import type { WireTimes } from './wire-times.js';

/** What sending an order-entry call uses of its pair. */
export type SendScope = PairScope<'answeredAtMs' | 'now' | 'link', 'clock'>;

/** When a call is sent and its `deadline`: an unanswered call cannot execute after it. */
export interface CallTimes {
  readonly sentAtMs: number;
  readonly deadlineMs: number;
  readonly deadline: string;
}

/** A call prepared now: its `deadline` fitted to the link (order-entry-link.ts). */
export function callTimes(ctx: SendScope): CallTimes {
  const sentAtMs = ctx.now();
  const deadlineMs = sentAtMs + ctx.link.deadlineMs();
  return { sentAtMs, deadlineMs, deadline: new Date(deadlineMs).toISOString() };
}

/**
 * Hands an order-entry call to the client with our own answer timeout (fitted to the link, on
 * the injected clock), observing tick-to-wire for its intents and the round trip for the link.
 * `times` are those of a call that carries them as its `deadline` (not a cancel).
 */
export async function sendCall<T>(
  ctx: SendScope,
  wire: WireTimes,
  action: string,
  items: readonly { readonly intent: OrderIntent }[],
  call: (options: CallOptions) => Promise<T>,
  times?: CallTimes,
): Promise<T> {
  const { clock } = ctx.deps;
  const sentAtMs = clock.now();
  wire.sent(
    action,
    items.map((i) => i.intent),
    sentAtMs,
  );
  const ms = ctx.link.timeoutMs();
  const timeout = new AbortController();
  const answered = new AbortController();
  clock.sleep(ms, answered.signal).then(
    () => timeout.abort(new DOMException(`no answer within ${ms} ms`, 'TimeoutError')),
    () => undefined,
  );
  const observe = (err: unknown): void => {
    const timedOut = timeout.signal.aborted;
    const arrival = arrivalOf(err, timedOut);
    if (arrival === undefined) return;
    const elapsedMs = timedOut ? ms : clock.now() - sentAtMs;
    ctx.link.observe(elapsedMs, arrival, times && times.deadlineMs - times.sentAtMs);
  };
  try {
    const answer = await call({ signal: timeout.signal });
    observe(undefined);
    return answer;
  } catch (err) {
    observe(err);
    throw err;
  } finally {
    answered.abort();
    ctx.answeredAtMs = clock.now();
  }
}
