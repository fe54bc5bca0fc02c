import { AsyncLocalStorage } from 'node:async_hooks';
import type { Clock } from '../core/index.js';
import { signedChannel } from '../exchange/client/diagnostics.js';

/**
 * When a call's request was signed, which is when the client hands it to the socket: the client
 * publishes on its diagnostics channel right before sending, in the caller's async context, so an
 * AsyncLocalStorage slot tells which of several concurrent calls it was.
 */
interface Stamp {
  atMs: number | undefined;
  readonly clock: Clock;
}

const current = new AsyncLocalStorage<Stamp>();
let subscribed = false;

function onSigned(): void {
  const stamp = current.getStore();
  if (stamp !== undefined && stamp.atMs === undefined) stamp.atMs = stamp.clock.now();
}

/** Runs `call` and reports when its request was signed (undefined if it never got that far). */
export async function stamped<T>(
  clock: Clock,
  call: () => Promise<T>,
  onWire: (atMs: number) => void,
): Promise<T> {
  if (!subscribed) {
    signedChannel.subscribe(onSigned);
    subscribed = true;
  }
  const stamp: Stamp = { atMs: undefined, clock };
  try {
    return await current.run(stamp, call);
  } finally {
    if (stamp.atMs !== undefined) onWire(stamp.atMs);
  }
}
