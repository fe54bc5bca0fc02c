import type {
  Clock,
  CloseOrderType,
  Decimal,
  OrderType,
  Side,
  StpType,
  TimeInForce,
} from '../../core/index.js';
import type { SimError } from '../errors.js';
import type { IdFactory } from '../ids.js';
import type { Markets } from '../markets.js';
import type { Account, Accounts } from '../state/accounts.js';
import type { SimPair } from '../markets.js';

/**
 * The matching engine's contract. The HTTP layer (src/sim/endpoints) parses and validates request
 * fields into an OrderSpec, charges rate limits and checks status modes; the engine owns books,
 * matching, triggers, holds, fees, trades and ledgers. It never sees HTTP.
 */

export type { Side, OrderType, CloseOrderType, TimeInForce, StpType };

/**
 * `pending`: starttm in the future, or a stop/profit order not triggered yet (it rests off book).
 * Closed orders are `closed` (fully filled), `canceled` (with a reason) or `expired`.
 */
export type OrderStatus = 'pending' | 'open' | 'closed' | 'canceled' | 'expired';

/**
 * A price as sent: absolute, or relative to the last trade price (`+`, `-`, `#`, optionally `%`).
 * Relative prices are resolved against the last trade when the order is placed (limit prices) or
 * triggered (price2 of stop-limit orders is relative to the trigger price).
 */
export type PriceSpec =
  | { readonly kind: 'abs'; readonly value: Decimal }
  | {
      readonly kind: 'rel';
      readonly op: '+' | '-' | '#';
      readonly amount: Decimal;
      readonly percent: boolean;
    };

export interface OrderFlags {
  readonly post: boolean;
  /** Fee in base currency; the engine applies the spec's defaults when neither is given. */
  readonly fcib: boolean;
  readonly fciq: boolean;
  readonly nompp: boolean;
  /** Volume is in quote currency (market orders only). */
  readonly viqc: boolean;
}

export interface CloseSpec {
  readonly ordertype: CloseOrderType;
  readonly price?: PriceSpec;
  readonly price2?: PriceSpec;
}

/** A validated AddOrder (or AddOrderBatch entry). Times are Unix ms; 0 = unset. */
export interface OrderSpec {
  readonly pair: SimPair;
  readonly side: Side;
  readonly ordertype: OrderType;
  readonly volume: Decimal;
  readonly displayvol?: Decimal;
  readonly price?: PriceSpec;
  readonly price2?: PriceSpec;
  readonly trigger: 'last' | 'index';
  readonly flags: OrderFlags;
  readonly timeinforce: TimeInForce;
  readonly starttmMs: number;
  readonly expiretmMs: number;
  /** 0 when not given (as the exchange reports it). */
  readonly userref: number;
  readonly stptype: StpType;
  readonly close?: CloseSpec;
  readonly leverage?: string;
  readonly reduceOnly: boolean;
}

/** EditOrder's changes; absent fields keep the original's value (userref is not kept). */
export interface EditSpec {
  readonly volume?: Decimal;
  readonly displayvol?: Decimal;
  readonly price?: PriceSpec;
  readonly price2?: PriceSpec;
  readonly userref?: number;
  /** The only flag EditOrder can change; it is not kept from the original. */
  readonly post: boolean;
}

export interface SimOrder {
  readonly txid: string;
  readonly accountKey: string;
  readonly pair: SimPair;
  readonly spec: OrderSpec;
  status: OrderStatus;
  /** Why a closed order closed (`User requested`, `Order replaced`, `Insufficient funds`...). */
  reason: string | undefined;
  readonly opentmMs: number;
  /** Time on the book, in ns, as Level3 reports it; exact. */
  readonly opentmNs: bigint;
  closetmMs: number | undefined;
  /**
   * Resolved limit price (limit orders, stop-limits) or undefined for market-type orders. A
   * stop-limit not yet triggered carries the limit it will get (price2 against the current stop).
   */
  limitPrice: Decimal | undefined;
  /** Resolved trigger price of stop/profit/trailing orders. */
  stopPrice: Decimal | undefined;
  /** True once a stop/profit/trailing order fired. */
  triggered: boolean;
  volExec: Decimal;
  /** Quote value of the executed volume. */
  cost: Decimal;
  /** Fees paid, in the fee currency (quote unless fee in base). */
  fee: Decimal;
  readonly trades: string[];
  /** The order this one replaced (EditOrder) or the primary of a conditional close. */
  readonly refid: string | undefined;
  /** Comma list as OpenOrders reports `oflags`, e.g. `fciq,post`. */
  readonly oflags: string;
  /** Comma list for `misc` (e.g. `stopped`, `touched`). */
  misc: string;
}

/** One side of one fill, as TradesHistory / QueryTrades report it for the account. */
export interface SimTrade {
  readonly id: string;
  readonly accountKey: string;
  readonly ordertxid: string;
  /** The other order's txid (`postxid` on the exchange). */
  readonly postxid: string;
  readonly pair: SimPair;
  readonly timeMs: number;
  readonly side: Side;
  readonly ordertype: OrderType;
  readonly price: Decimal;
  readonly vol: Decimal;
  readonly cost: Decimal;
  readonly fee: Decimal;
  readonly feeAsset: string;
  readonly maker: boolean;
  /** Ledger entry ids this trade produced for the account. */
  readonly ledgers: readonly string[];
  /** Public trade id, as in the public Trades feed. */
  readonly tradeId: number;
}

/** One print on the public tape. */
export interface PublicTrade {
  readonly tradeId: number;
  readonly pair: SimPair;
  readonly price: Decimal;
  readonly volume: Decimal;
  readonly timeMs: number;
  /** The taker's side. */
  readonly side: Side;
  /** The taker order's type: `l` limit, `m` market. */
  readonly ordertype: 'l' | 'm';
  readonly misc: string;
}

/** A resting order as the book shows it. */
export interface BookEntry {
  readonly txid: string;
  readonly accountKey: string;
  readonly price: Decimal;
  /** Visible quantity (display volume of an iceberg's current slice). */
  readonly qty: Decimal;
  /** When this entry took its place in the queue, ns; exact. */
  readonly timestampNs: bigint;
}

export interface BookView {
  /** Best first; within a price, time priority first. */
  readonly bids: readonly BookEntry[];
  readonly asks: readonly BookEntry[];
}

export interface TopOfBook {
  readonly bid: Decimal | undefined;
  readonly ask: Decimal | undefined;
}

export interface PlaceOptions {
  /** `validate=true`: run every check and return the order that would be placed, change nothing. */
  readonly validateOnly?: boolean;
}

export interface EngineListeners {
  readonly trade?: (t: PublicTrade) => void;
  /** After any change to a pair's book (spread samplers listen). */
  readonly book?: (pair: SimPair) => void;
}

export interface Engine {
  /**
   * Validates against balances and the pair's rules (throws SimError with the spec's string:
   * `EOrder:Insufficient funds`, `EOrder:Order minimum not met`, `EOrder:Cost minimum not met`,
   * `EOrder:Tick size check failed`, `EOrder:Orders limit exceeded`, post-only would take...), then
   * places and matches. Returns the order in its state after matching.
   */
  place(account: Account, spec: OrderSpec, options?: PlaceOptions): SimOrder;
  /** Several orders for one pair, in order; an invalid one is skipped (its error is returned). */
  placeBatch(
    account: Account,
    specs: readonly OrderSpec[],
    options?: PlaceOptions,
  ): (SimOrder | SimError)[];
  /**
   * EditOrder: cancels `order` (reason `Order replaced`) and places its replacement with a new txid
   * and `refid` = the original. Rejects the spec's not-editable cases.
   */
  edit(account: Account, order: SimOrder, changes: EditSpec, options?: PlaceOptions): SimOrder;
  cancel(account: Account, order: SimOrder, reason?: string): void;
  /**
   * Shrinks a resting plain limit order to `remaining`, keeping its queue place, as venues do for
   * a size decrease. Not a spec call: replay takes recorded cancels out of the queue with it.
   */
  reduce(account: Account, order: SimOrder, remaining: Decimal): void;
  /** Cancels every open or pending order of the account, returns them (for penalty pricing). */
  cancelAll(account: Account, reason?: string): SimOrder[];
  /** Open and pending orders matching a txid, or every one carrying the userref when numeric. */
  find(account: Account, txidOrUserref: string | number): SimOrder[];
  order(txid: string): SimOrder | undefined;
  /** Open and pending orders, oldest first. */
  openOrders(account: Account, pair?: SimPair): SimOrder[];
  /** Closed orders, newest first. */
  closedOrders(account: Account): SimOrder[];
  /** The account's fills, oldest first. */
  trades(account: Account): SimTrade[];
  trade(id: string): SimTrade | undefined;
  /**
   * The resting book, best first. `maxLevels` keeps only that many price levels per side (every
   * order of each kept level); omitted = the full book.
   */
  book(pair: SimPair, maxLevels?: number): BookView;
  /**
   * Best bid and ask prices without building a view: O(1), for listeners that run after every
   * book change (spread samplers). Optional so test doubles need not implement it.
   */
  top?(pair: SimPair): TopOfBook;
  /**
   * The queue at one price of one side, time priority first, without building the book's view:
   * a replay that applies every recorded change looks at the levels changed only. Optional, as
   * `top`.
   */
  queue?(pair: SimPair, side: Side, price: Decimal): BookEntry[];
  lastTrade(pair: SimPair): PublicTrade | undefined;
  /** The account's 30-day traded volume in USD (fee tiers, TradeVolume). */
  volumeUsd(account: Account): Decimal;
  /** Adds volume traded before now to the account's 30-day window (a backtest's fee tier). */
  creditVolumeUsd(account: Account, usd: Decimal): void;
  /** Runs time-driven work due at `nowMs`: starttm activation, GTD expiry, triggers. */
  tick(nowMs: number): void;
}

export interface EngineOptions {
  readonly clock: Clock;
  readonly ids: IdFactory;
  readonly markets: Markets;
  readonly accounts: Accounts;
  readonly listeners?: EngineListeners;
  /**
   * False in `maintenance`, `cancel_only` and `post_only`: the spec says no trades happen then,
   * so nothing matches and nothing triggers (post-only orders still rest).
   */
  readonly canTrade?: () => boolean;
  /** Index price for `trigger=index`; the last trade price is the spec's fallback. */
  readonly indexPrice?: (pair: SimPair) => Decimal | undefined;
  /**
   * Closed orders, fills and ledger entries kept per user account (the newest); all when absent,
   * as a paper venue keeps them. A backtest bounds them so a day-long replay stays flat in memory.
   */
  readonly userHistoryKept?: number;
}
