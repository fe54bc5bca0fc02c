import type { OrderIntent } from '../core/index.js';
import type { CallOptions } from '../exchange/index.js';
import type { PairScope } from './pair-context.js';
import type { WireTimes } from './wire-times.js';

/** What sending an order-entry call uses of its pair. */
export type SendScope = PairScope<'now', 'clock' | 'config'>;

/** When a call is sent and its `deadline`: an unanswered call cannot execute after it. */
export function callTimes(ctx: SendScope): {
  sentAtMs: number;
  deadlineMs: number;
  deadline: string;
} {
  const sentAtMs = ctx.now();
  const deadlineMs = sentAtMs + ctx.deps.config.deadline_ms;
  return { sentAtMs, deadlineMs, deadline: new Date(deadlineMs).toISOString() };
}

/**
 * Hands an order-entry call to the client with our own answer timeout (`request_timeout_ms`, on
 * the injected clock), observing tick-to-wire for its intents.
 */
export async function sendCall<T>(
  ctx: SendScope,
  wire: WireTimes,
  action: string,
  items: readonly { readonly intent: OrderIntent }[],
  call: (options: CallOptions) => Promise<T>,
): Promise<T> {
  const { clock, config } = ctx.deps;
  wire.sent(
    action,
    items.map((i) => i.intent),
    clock.now(),
  );
  const ms = config.request_timeout_ms;
  const timeout = new AbortController();
  const answered = new AbortController();
  clock.sleep(ms, answered.signal).then(
    () => timeout.abort(new DOMException(`no answer within ${ms} ms`, 'TimeoutError')),
    () => undefined,
  );
  try {
    return await call({ signal: timeout.signal });
  } finally {
    answered.abort();
  }
}
