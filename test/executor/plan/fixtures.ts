import type { TrackedOrder } from '../../../src/executor/types.js';

export const NOW = 1_700_000_000_000;

/** A resting order of `slot`, `ageMs` old; buy (ask slots: sell) at 100 for 1, nothing executed. */
export function restingOrder(
  slot: string,
  ageMs: number,
  over: Partial<TrackedOrder> = {},
): TrackedOrder {
  return {
    userref: 1,
    txid: `T-${slot}`,
    pair: 'XXBTZUSD',
    slot,
    generation: 1,
    side: slot.startsWith('ask') ? 'sell' : 'buy',
    price: '100',
    volume: '1',
    volumeExecuted: '0',
    cost: '0',
    fee: '0',
    postOnly: true,
    feeIn: 'quote',
    state: 'open',
    openedAtMs: NOW - ageMs,
    sentAtMs: NOW - ageMs,
    deadlineMs: NOW - ageMs + 5_000,
    updatedAtMs: NOW - ageMs,
    pendingCall: null,
    replaces: null,
    reason: null,
    origin: 'placed',
    ...over,
  };
}
