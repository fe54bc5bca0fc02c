import type { OrderIntent, TradingMode } from '../../core/index.js';
import type { MatchingEngineLimits } from '../../exchange/limits/index.js';
import type { TrackedOrder } from '../../orders/types.js';

/**
 * The planner's contract: a pure function from (pending intents, our orders, the ratecount level)
 * to the order-entry calls to make now, priced on the spec's penalty table by order age. Nothing
 * here does I/O; src/executor runs the calls and updates the tracker.
 */

export interface BatchRules {
  /** AddOrderBatch is used only with at least this many orders (the venue family requires 2). */
  readonly addMin: number;
  /** AddOrderBatch max orders (spec: 15). */
  readonly addMax: number;
  /** CancelOrderBatch max ids (spec: 50). */
  readonly cancelMax: number;
}

export interface PlanInput {
  readonly nowMs: number;
  readonly limits: MatchingEngineLimits;
  /** The (key, pair) ratecount level now, decay applied. */
  readonly level: number;
  /** Points kept free under the max: the plan spends at most max − headroom − level. */
  readonly headroom: number;
  /**
   * Orders of the key resting on the pair now (ours in any live state, adopted and foreign too);
   * placements beyond limits.maxOpenOrders − openOrders wait.
   */
  readonly openOrders: number;
  /**
   * What the venue allows now. `online` and `post_only` (the runner already made every placement
   * post-only): everything; `cancel_only`: cancels only; `maintenance` and `halted`: nothing but
   * cancels, which are planned and fail harmlessly if the venue refuses them.
   */
  readonly mode: TradingMode;
  readonly batch: BatchRules;
  /** One entry per pending intent (at most one per slot), in any order. */
  readonly work: readonly SlotWork[];
}

export interface SlotWork {
  readonly intent: OrderIntent;
  /**
   * The tracked order the slot holds now (state open or partially-filled), if any. The planner
   * acts on this, not on intent.target: the runner's view may be one poll old. A cancel whose slot
   * holds nothing is dropped (`gone`); an amend whose slot holds nothing is planned as a place,
   * and a place whose slot already holds an order as an amend of it.
   */
  readonly live: TrackedOrder | undefined;
}

/** One order-entry call. Calls are executed in plan order; `after` calls wait for their cancel. */
export type PlannedCall =
  | {
      readonly kind: 'CancelOrder';
      readonly item: CancelItem;
      readonly cost: number;
    }
  | {
      readonly kind: 'CancelOrderBatch';
      readonly items: readonly CancelItem[];
      /** Sum of per-order penalties capped at limits.max (the spec's rule); may exceed the budget. */
      readonly cost: number;
    }
  | {
      readonly kind: 'EditOrder';
      readonly item: EditItem;
      readonly cost: number;
    }
  | {
      readonly kind: 'AddOrder';
      readonly item: AddItem;
      readonly cost: number;
    }
  | {
      readonly kind: 'AddOrderBatch';
      readonly items: readonly AddItem[];
      /** n / 2. */
      readonly cost: number;
    };

export interface CancelItem {
  readonly intent: OrderIntent;
  readonly order: TrackedOrder;
  /**
   * `cancel` for a cancel intent; `replace` when an amend is done as cancel then add (the slot's
   * AddItem with `replacing` set follows in a later call of the same plan).
   */
  readonly purpose: 'cancel' | 'replace';
}

export interface EditItem {
  readonly intent: OrderIntent;
  readonly order: TrackedOrder;
  /** Total volume to send: order.volumeExecuted + desired remaining volume, wire string. */
  readonly volume: string;
  readonly price: string;
  readonly postOnly: boolean;
}

export interface AddItem {
  readonly intent: OrderIntent;
  readonly side: 'buy' | 'sell';
  readonly price: string;
  /** Remaining volume the slot should hold. */
  readonly volume: string;
  readonly postOnly: boolean;
  /** Set when this add completes an amend done as cancel + add: send only if that cancel succeeded. */
  readonly replacing: TrackedOrder | undefined;
}

export type DeferReason = 'budget' | 'open-orders';
export type DropReason =
  /** cancel of a slot that holds no live order. */
  | 'gone'
  /** the slot's order is in an unresolved or in-flight call: nothing touches it until resolved. */
  | 'busy'
  /** the venue's mode forbids it (cancel_only, maintenance, halted). */
  | 'mode'
  /** the slot already holds exactly the desired order. */
  | 'unchanged';

export interface Plan {
  readonly calls: readonly PlannedCall[];
  /** Intents left pending (kept in the register, retried when the budget allows). */
  readonly deferred: readonly { readonly intent: OrderIntent; readonly reason: DeferReason }[];
  /** Intents that will never be sent, with why (counted, not retried). */
  readonly dropped: readonly { readonly intent: OrderIntent; readonly reason: DropReason }[];
  /** Points the calls add (the over-budget batch cancel included). */
  readonly cost: number;
  /**
   * Ms until the first deferred intent's cheapest call fits the budget (decay at limits.decayPerSec
   * from level + cost, under max − headroom); undefined when nothing is deferred for budget. The
   * call is priced as the first of a fresh plan, as it will be when retried; Infinity when it
   * costs more than max − headroom and can never fit.
   */
  readonly retryInMs: number | undefined;
}
