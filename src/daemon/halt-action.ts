import type { ControlFlags } from '../bus/index.js';
import { errorMessage, type Clock } from '../core/index.js';
import type { SpotClient } from '../exchange/index.js';

export interface HaltOutcome {
  /** False: the flag was already set (the first reason stays). */
  readonly set: boolean;
  /** Orders the exchange cancelled, or why CancelAll failed. */
  readonly cancelled: number | string;
}

/**
 * Sets the halt flag every role obeys, then cancels every order of the key itself, so a halt works
 * even while no supervisor runs. Used by `makerd halt` and by POST /halt of a process without a
 * supervisor. The executors are told, as the supervisor tells them of its own: they read their
 * orders at once (the supervisor's CancelAll after it finds none, and tells nothing).
 */
export async function haltAndCancel(
  flags: Pick<ControlFlags, 'halt' | 'cancelledAll'>,
  client: Pick<SpotClient, 'cancelAll'>,
  reason: string,
  by: string,
  clock: Clock,
): Promise<HaltOutcome> {
  const set = await flags.halt(reason, by, Math.floor(clock.now()));
  let cancelled: number;
  try {
    cancelled = (await client.cancelAll({ priority: 'high' })).result.count;
  } catch (err) {
    return { set, cancelled: `CancelAll failed: ${errorMessage(err)}` };
  }
  // Best effort, as the supervisor's: without it the executors read in 2.5 s all the same.
  if (cancelled > 0) await flags.cancelledAll(Math.floor(clock.now())).catch(() => undefined);
  return { set, cancelled };
}
