import type { Side } from '../core/index.js';

/**
 * The executor's picture of its orders (DESIGN.md §3.6): one record per order we sent or adopted,
 * keyed by userref (known before the exchange answers, unlike the txid), kept in Redis so that a
 * restarted or standby executor knows every order it may have on the book.
 */

export const ORDER_STATES = [
  'pending-new',
  'open',
  'partially-filled',
  'filled',
  'canceled',
  'rejected',
  'unknown',
] as const;
export type OrderState = (typeof ORDER_STATES)[number];

/** States an order never leaves; its record moves to the pair's history. */
export const TERMINAL_STATES: ReadonlySet<OrderState> = new Set(['filled', 'canceled', 'rejected']);

/** States of an order resting on the book: what a cancel or an amend acts on. */
export const RESTING_STATES: ReadonlySet<OrderState> = new Set(['open', 'partially-filled']);

/** Whether the order is this instance's (not a foreign one of the key) and rests on the book. */
export function isOurResting(o: Pick<TrackedOrder, 'slot' | 'state'>): boolean {
  return o.slot !== 'foreign' && RESTING_STATES.has(o.state);
}

/** The order-entry call whose outcome is not known yet (state `unknown`) or in flight. */
export type PendingCall = 'add' | 'edit' | 'cancel';

export interface TrackedOrder {
  /** Our identity for the order: instance | slot | generation (src/core/intent.ts). */
  readonly userref: number;
  /** Exchange order id; null until the exchange told us (pending-new, or unknown after AddOrder). */
  readonly txid: string | null;
  readonly pair: string;
  /** Slot key (`bid:0`), or `foreign` for an order of the key that is not this instance's. */
  readonly slot: string;
  readonly generation: number;
  readonly side: Side;
  /** Limit price, wire decimal string. */
  readonly price: string;
  /** Total volume including what executed, wire decimal string. */
  readonly volume: string;
  readonly volumeExecuted: string;
  /** Quote amount executed so far and fees so far, as the exchange reports them (`cost`, `fee`). */
  readonly cost: string;
  readonly fee: string;
  readonly postOnly: boolean;
  /** Fee asset from the order's flags: `fcib` → base, otherwise quote (makerd sends `fciq`). */
  readonly feeIn: 'base' | 'quote';
  readonly state: OrderState;
  /**
   * When we learned the order rests (epoch ms). Later than the exchange's open time, so the ages
   * we derive from it are never older than the exchange's: penalties are never under-priced.
   */
  readonly openedAtMs: number;
  /** When the last order-entry call touching it was sent. */
  readonly sentAtMs: number;
  /** That call's `deadline` (epoch ms): after it, an unanswered call cannot still execute. */
  readonly deadlineMs: number;
  readonly updatedAtMs: number;
  /** The call in flight or unresolved; null when the record matches the exchange as far as we know. */
  readonly pendingCall: PendingCall | null;
  /** For an EditOrder replacement: the txid of the order it replaces. */
  readonly replaces: string | null;
  /** Why it was rejected or canceled (exchange error string or cancel reason). */
  readonly reason: string | null;
  /** `placed` by this executor, or `adopted` from OpenOrders at reconciliation. */
  readonly origin: 'placed' | 'adopted';
}

/** One execution of our order, derived from the change of vol_exec/cost/fee between two views. */
export interface Fill {
  readonly pair: string;
  readonly txid: string;
  readonly userref: number;
  readonly side: Side;
  /** Average price of this execution: cost / volume, exact. */
  readonly price: string;
  readonly volume: string;
  readonly cost: string;
  readonly fee: string;
  /**
   * Which asset the fee was taken in. makerd sends `fciq` on every order so this is `quote`; an
   * adopted order may carry `fcib` (the spec's default when selling).
   */
  readonly feeIn: 'base' | 'quote';
  readonly atMs: number;
}

/** Inventory and PnL of one pair since the tracker started recording, in base and quote units. */
export interface Position {
  readonly pair: string;
  /** Base bought minus base sold. */
  readonly base: string;
  /** Quote received minus quote paid, fees included. */
  readonly quote: string;
  /** Fees paid, valued in quote (a base fee at its fill's price). */
  readonly fees: string;
  /** Average cost of the open base position (0 when flat). */
  readonly avgPrice: string;
  /** Realized PnL (average-cost method), net of fees. */
  readonly realizedPnl: string;
  readonly fills: number;
  readonly updatedAtMs: number;
}
