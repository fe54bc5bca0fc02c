import type { TrackedOrder } from '../../../src/orders/types.js';
import { trackedOrder } from '../../support/tracked-order.js';

export const NOW = 1_700_000_000_000;

/** A resting order of `slot`, `ageMs` old; buy (ask slots: sell) at 100 for 1, nothing executed. */
export function restingOrder(
  slot: string,
  ageMs: number,
  over: Partial<TrackedOrder> = {},
): TrackedOrder {
  return trackedOrder({
    userref: 1,
    txid: `T-${slot}`,
    slot,
    side: slot.startsWith('ask') ? 'sell' : 'buy',
    price: '100',
    openedAtMs: NOW - ageMs,
    sentAtMs: NOW - ageMs,
    deadlineMs: NOW - ageMs + 5_000,
    updatedAtMs: NOW - ageMs,
    ...over,
  });
}
