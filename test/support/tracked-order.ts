import type { TrackedOrder } from '../../src/orders/index.js';

/** A resting order of ours as the tracker holds it: a bid of 1 at 0.5, placed, open. */
export function trackedOrder(overrides: Partial<TrackedOrder> = {}): TrackedOrder {
  return {
    userref: 7,
    txid: 'OTX-1',
    pair: 'XXBTZUSD',
    slot: 'bid:0',
    generation: 1,
    side: 'buy',
    price: '0.5',
    volume: '1',
    volumeExecuted: '0',
    cost: '0',
    fee: '0',
    postOnly: true,
    feeIn: 'quote',
    state: 'open',
    openedAtMs: 1,
    sentAtMs: 1,
    deadlineMs: 2,
    updatedAtMs: 1,
    pendingCall: null,
    replaces: null,
    reason: null,
    origin: 'placed',
    ...overrides,
  };
}
