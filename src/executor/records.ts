import { dec, toWire, type OrderIntent } from '../core/index.js';
import type { TrackedOrder } from '../orders/types.js';

/** The records of an order the executor places: written ahead, answered, retired as gone. */

/** The write-ahead record of an order about to be placed (AddOrder, a batch's item, an edit). */
export function pendingRecord(
  pair: string,
  intent: OrderIntent,
  userref: number,
  item: { side: 'buy' | 'sell'; price: string; volume: string; postOnly: boolean },
  sentAtMs: number,
  deadlineMs: number,
): TrackedOrder {
  return {
    userref,
    txid: null,
    pair,
    slot: intent.slot,
    generation: intent.generation,
    side: item.side,
    price: toWire(dec(item.price)),
    volume: toWire(dec(item.volume)),
    volumeExecuted: '0',
    cost: '0',
    fee: '0',
    postOnly: item.postOnly,
    feeIn: 'quote',
    state: 'pending-new',
    openedAtMs: 0,
    sentAtMs,
    deadlineMs,
    updatedAtMs: sentAtMs,
    pendingCall: 'add',
    replaces: null,
    reason: null,
    origin: 'placed',
  };
}

/** The record once the exchange answered with the order's txid. */
export function openedRecord(rec: TrackedOrder, txid: string, nowMs: number): TrackedOrder {
  return {
    ...rec,
    txid,
    state: dec(rec.volumeExecuted).gt(0) ? 'partially-filled' : 'open',
    pendingCall: null,
    openedAtMs: nowMs,
    updatedAtMs: nowMs,
  };
}

/**
 * An order the exchange says is not open ("Unknown order"): retired now, so its slot is free at
 * once, and its final execution taken from ClosedOrders by the next full sync.
 */
export function retiredAsGone(order: TrackedOrder, now: number): TrackedOrder {
  return { ...order, state: 'canceled', pendingCall: null, reason: GONE, updatedAtMs: now };
}

export function isRetiredAsGone(record: TrackedOrder): boolean {
  return record.state === 'canceled' && record.reason === GONE;
}

const GONE = 'gone';
