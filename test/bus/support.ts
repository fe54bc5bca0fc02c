import type { UnpublishedIntent } from '../../src/bus/index.js';

export { REDIS_URL, deleteKeys, freshPrefix } from '../support/redis.js';

export const PAIR = 'XXBTZUSD';

export function intent(overrides: Partial<UnpublishedIntent> = {}): UnpublishedIntent {
  const now = Date.now();
  return {
    instance: 1,
    pair: PAIR,
    slot: 'bid:0',
    action: 'place',
    desired: { side: 'buy', price: '50000.0', volume: '0.01', postOnly: true },
    target: undefined,
    reason: 'new',
    createdAtMs: now,
    deadlineMs: now + 60_000,
    snapshotSeq: 1,
    snapshotAtMs: now,
    ...overrides,
  };
}

/** Polls `check` in real time: for outcomes produced by other connections or a BullMQ worker. */
export async function waitFor(
  check: () => boolean | Promise<boolean>,
  what: string,
): Promise<void> {
  const until = Date.now() + 5_000;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

export function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}
