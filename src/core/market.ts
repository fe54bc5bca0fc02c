import { dec, sameAmount, type Decimal, type DecimalString } from './decimal.js';
import type { Side } from './order-types.js';

/**
 * The market picture every part shares: what the pollers build (src/market), what strategies read
 * (through src/runner/strategy-api) and what the runner diffs against. Everything here is
 * immutable data; Decimal values are exact and prices never pass through a float.
 */

/** One tradable pair as the exchange's AssetPairs describes it, reduced to what quoting needs. */
export interface PairInfo {
  /** The exchange's pair id (the key of AssetPairs and Depth), e.g. XXBTZUSD. */
  readonly id: string;
  readonly altname: string;
  /** Asset ids as Balance reports them, e.g. XXBT and ZUSD. */
  readonly base: string;
  readonly quote: string;
  readonly tickSize: Decimal;
  readonly priceDecimals: number;
  readonly lotDecimals: number;
  readonly orderMin: Decimal;
  /** Minimum order cost in the quote asset; undefined when the venue sets none. */
  readonly costMin: Decimal | undefined;
  /**
   * The pair's fee ladders from AssetPairs (`fees_maker`, `fees`), lowest volume first: the fees
   * a key pays before its own TradeVolume answer says where it stands. Empty when not published.
   */
  readonly feeLadder: { readonly maker: readonly FeeStep[]; readonly taker: readonly FeeStep[] };
}

/** One rung of a fee ladder: from this 30-day volume (USD) on, this fee in percent. */
export interface FeeStep {
  readonly volumeUsd: Decimal;
  readonly percent: Decimal;
}

/** What a fill of ours costs in fees, in basis points of its notional. */
export interface FeeRates {
  readonly makerBps: Decimal;
  readonly takerBps: Decimal;
  /**
   * `trade-volume`: the key's own TradeVolume answer for the pair; `ladder`: the pair's published
   * ladder at the configured 30-day volume, before the first answer (or without one).
   */
  readonly source: 'trade-volume' | 'ladder';
  /** The 30-day volume (USD) the rates belong to. */
  readonly volumeUsd: Decimal;
}

/**
 * How far the mid moved against our recent fills `horizonMs` after each: the adverse selection a
 * quote's half-spread has to pay for on top of the fee. Measured by the PnL module (markouts).
 */
export interface AdverseSelection {
  /** Volume-weighted mean of −sign × (mid(t + h) − mid(t)) / mid(t), in bps; 0 before any fill. */
  readonly bps: Decimal;
  readonly horizonMs: number;
  /** The fills the mean is over (the newest ones, at most the window's size). */
  readonly fills: number;
}

/**
 * Where one of our resting orders stands in its price level's queue: `ahead` is the market's
 * volume that trades before it, `behind` the market's volume that joined after it (our own
 * volume is in neither).
 */
export interface QueuePosition {
  readonly txid: string;
  readonly side: Side;
  readonly price: Decimal;
  readonly ahead: Decimal;
  readonly behind: Decimal;
  /**
   * `level3`: set exactly by the last Level3 answer that listed the order (and moved on by the
   * trades and Depth answers since); `depth`: estimated from Depth and Trades alone.
   */
  readonly source: 'level3' | 'depth';
  /** The rule that splits a Depth decrease the trades do not explain between ahead and behind. */
  readonly rule: string;
  /** When the estimate last changed (local clock, ms). */
  readonly asOfMs: number;
}

export interface PriceLevel {
  readonly price: Decimal;
  readonly volume: Decimal;
}

export interface BookView {
  /** Best first: bids descending, asks ascending. */
  readonly bids: readonly PriceLevel[];
  readonly asks: readonly PriceLevel[];
}

export interface GroupedBookView extends BookView {
  /** Tick levels per price level. */
  readonly grouping: number;
}

export interface Level3Order {
  readonly price: Decimal;
  readonly volume: Decimal;
  readonly orderId: string;
  /** Exchange time in nanoseconds; exceeds 2^53, so a bigint. */
  readonly timestampNs: bigint;
  /** True when the order id is one of our open orders. */
  readonly own: boolean;
}

export interface Level3View {
  readonly bids: readonly Level3Order[];
  readonly asks: readonly Level3Order[];
}

export interface PublicTrade {
  readonly price: Decimal;
  readonly volume: Decimal;
  readonly timeMs: number;
  readonly side: Side;
  readonly orderType: 'market' | 'limit';
  readonly tradeId: number;
}

/** Which quote position of a strategy an order fills: side plus level (0 is nearest the mid). */
export interface SlotRef {
  readonly side: Side;
  readonly level: number;
}

/** One of the key's open orders in this pair, as OpenOrders reports it. */
export interface OwnOrder {
  readonly txid: string;
  readonly userref: number | null;
  /** Decoded from userref when the order is this bot instance's; undefined for foreign orders. */
  readonly slot: SlotRef | undefined;
  /** Generation decoded from userref (16 bits, wraps), when the order is ours. */
  readonly generation: number | undefined;
  readonly side: Side;
  readonly orderType: string;
  readonly price: Decimal;
  readonly volume: Decimal;
  readonly volumeExecuted: Decimal;
  readonly openedAtMs: number;
  readonly postOnly: boolean;
}

export interface AssetBalance {
  readonly total: Decimal;
  /** Total less what open orders hold. */
  readonly available: Decimal;
}

export interface Inventory {
  readonly base: AssetBalance;
  readonly quote: AssetBalance;
  /** base.total valued at mid plus quote.total; undefined without a mid. */
  readonly valueInQuote: Decimal | undefined;
  /** base.total * mid / valueInQuote, in [0, 1]; undefined without a mid or value. */
  readonly baseShare: Decimal | undefined;
}

/**
 * What the runner may do right now. `online`, `post_only`, `cancel_only` and `maintenance` are the
 * exchange's SystemStatus modes; `halted` is makerd's own halt flag (the supervisor's).
 */
export const TRADING_MODES = [
  'online',
  'post_only',
  'cancel_only',
  'maintenance',
  'halted',
] as const;
export type TradingMode = (typeof TRADING_MODES)[number];

export const DATA_SOURCES = [
  'depth',
  'groupedBook',
  'level3',
  'trades',
  'openOrders',
  'balance',
] as const;
export type DataSource = (typeof DATA_SOURCES)[number];

export interface SourceStatus {
  /** When the last good answer arrived (local clock, ms); undefined before the first. */
  readonly receivedAtMs: number | undefined;
  /** Age of the data at snapshot time; Infinity before the first answer. */
  readonly ageMs: number;
  /** Too old, or the last poll failed or is late. */
  readonly stale: boolean;
  /** Older than this is too old: market.stale_after_intervals × the planned interval (Infinity: off). */
  readonly staleAfterMs: number;
  /** The error string of the last failed poll, cleared by the next success. */
  readonly lastError: string | undefined;
}

export interface MarketSnapshot {
  readonly pair: PairInfo;
  /** Increases by one with each snapshot of this pair. */
  readonly seq: number;
  readonly takenAtMs: number;
  /**
   * The market without us: Depth's levels with our own resting orders taken out (a level that
   * was only ours is gone). Strategies price from it, so a quote never chases our own order.
   * bestBid, bestAsk, mid, microprice and spread are this book's.
   */
  readonly book: BookView;
  /** Depth as the exchange answered it, our orders included (what a post-only order must not cross). */
  readonly venueBook: BookView;
  /** GroupedBook with our resting volume taken out of the bucket that holds it. */
  readonly grouped: GroupedBookView | undefined;
  readonly level3: Level3View | undefined;
  readonly bestBid: Decimal | undefined;
  readonly bestAsk: Decimal | undefined;
  readonly mid: Decimal | undefined;
  /** Top-of-book price weighted by the opposite side's size. */
  readonly microprice: Decimal | undefined;
  readonly spread: Decimal | undefined;
  /** Most recent last; capped. */
  readonly trades: readonly PublicTrade[];
  /** Our open orders in this pair (ours and foreign ones of the same key). */
  readonly openOrders: readonly OwnOrder[];
  /**
   * openOrders is the exchange's view at a moment no earlier than this (when the OpenOrders
   * call was made, local clock); undefined before the first answer.
   */
  readonly ordersAsOfMs: number | undefined;
  /**
   * Our orders from OpenOrders whose price level was missing from a Depth answer asked for after
   * that OpenOrders answer arrived, within the range Depth showed: no order rests at that price,
   * so they have left the book (filled or cancelled). Not in openOrders.
   */
  readonly vanishedOrders: readonly OwnOrder[];
  /** When the Depth call behind `book` was made (local clock); undefined before the first. */
  readonly bookAsOfMs: number | undefined;
  readonly inventory: Inventory;
  /** The key's fees in this pair. */
  readonly fees: FeeRates;
  /** The adverse selection our recent fills met (10 s markouts). */
  readonly adverseSelection: AdverseSelection;
  /** Our resting orders' places in their queues (one per order whose place is known). */
  readonly queue: readonly QueuePosition[];
  readonly mode: TradingMode;
  /** Why the mode is not online (the status event's title, the halt reason). */
  readonly modeReason: string | undefined;
  readonly sources: Readonly<Record<DataSource, SourceStatus>>;
  /** True when any source the runner needs to quote is stale. */
  readonly stale: boolean;
  readonly staleSources: readonly DataSource[];
}

/**
 * Whether Depth's levels of one side (best first) say no order rests at `price`: the price lies
 * within the levels shown and is none of them. A level that is there but smaller proves nothing
 * (a partial fill), nor does a price beyond the deepest level shown. Strings, as on the wire: the
 * executor checks this for every intent of a drain.
 */
export function missingFromDepth(
  levels: readonly DecimalString[],
  price: DecimalString,
  side: Side,
): boolean {
  const deepest = levels[levels.length - 1];
  if (deepest === undefined) return false;
  // The usual answer (our order is listed, in the same wire text) without parsing any number.
  if (levels.includes(price)) return false;
  const p = dec(price);
  const within = side === 'buy' ? p.gte(dec(deepest)) : p.lte(dec(deepest));
  return within && !levels.some((l) => sameAmount(l, price));
}

/** XXBT -> XBT, ZUSD -> USD: the exchange's four-letter legacy asset ids, as people write them. */
export function assetName(id: string): string {
  return id.length === 4 && /^[XZ]/.test(id) ? id.slice(1) : id;
}
