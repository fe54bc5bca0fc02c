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
 * supervisor.
 */
export async function haltAndCancel(
  flags: Pick<ControlFlags, 'halt'>,
  client: Pick<SpotClient, 'cancelAll'>,
  reason: string,
  by: string,
  clock: Clock,
): Promise<HaltOutcome> {
  const set = await flags.halt(reason, by, Math.floor(clock.now()));
  try {
    return { set, cancelled: (await client.cancelAll({ priority: 'high' })).result.count };
  } catch (err) {
    return { set, cancelled: `CancelAll failed: ${errorMessage(err)}` };
  }
}
