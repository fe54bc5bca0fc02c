import {
  DATA_SOURCES,
  dec,
  decodeUserref,
  Decimal,
  missingFromDepth,
  toWire,
  type AdverseSelection,
  type AssetBalance,
  type BookView,
  type DataSource,
  type FeeRates,
  type GroupedBookView,
  type Inventory,
  type Level3Order,
  type Level3View,
  type MarketSnapshot,
  type OwnOrder,
  type PairInfo,
  type PriceLevel,
  type PublicTrade,
  type QueuePosition,
  type SourceStatus,
  type TradingMode,
} from '../core/index.js';
import type { DepthBook, endpoints, Level3Entry, Level3Result, Order } from '../exchange/index.js';
import type { BalanceMove } from './fill-moves.js';
import { deepFreeze } from './freeze.js';
import { withoutOurs, type RestingVolume } from './market-book.js';

/**
 * Pure functions from the latest raw answers to one immutable MarketSnapshot. Nothing here does
 * I/O or reads a clock, so every figure a strategy sees can be reproduced from recorded answers.
 */

export type GroupedBookResult = endpoints.GroupedBookResult;
export type TradeRow = endpoints.TradeRow;
export type BalanceExEntry = endpoints.BalanceExEntry;

/** What the feed knows about one source when a snapshot is taken. */
export interface SourceInput {
  readonly enabled: boolean;
  readonly receivedAtMs: number | undefined;
  /** The last poll's error; undefined after a success. */
  readonly lastError: string | undefined;
  /** Older data than this is stale (stale_after_intervals x the planned interval). */
  readonly staleAfterMs: number;
}

export interface SnapshotInput {
  readonly pair: PairInfo;
  readonly seq: number;
  readonly nowMs: number;
  /** This bot's instance: only its userrefs are decoded into slots. */
  readonly instance: number;
  readonly depth: DepthBook | undefined;
  readonly grouped: GroupedBookResult | undefined;
  readonly level3: Level3Result | undefined;
  /** Oldest first. */
  readonly trades: readonly TradeRow[];
  readonly tradesKept: number;
  /** OpenOrders `open` map of the whole key. */
  readonly openOrders: Readonly<Record<string, Order>> | undefined;
  /** When the OpenOrders call that answered `openOrders` was made, and when its answer came. */
  readonly ordersAsOfMs?: number | undefined;
  readonly ordersReceivedAtMs?: number | undefined;
  /** When the Depth call that answered `depth` was made, and when its answer came. */
  readonly bookAsOfMs?: number | undefined;
  readonly bookReceivedAtMs?: number | undefined;
  /**
   * Our resting orders in this pair as the executor's tracker holds them (fresher than the last
   * OpenOrders answer): with the listed ones, what is taken out of the book.
   */
  readonly ownResting?: readonly OwnResting[] | undefined;
  readonly fees: FeeRates;
  readonly adverseSelection: AdverseSelection;
  readonly queue?: readonly QueuePosition[] | undefined;
  readonly balances: Readonly<Record<string, BalanceExEntry>> | undefined;
  /** Per asset, how far our fills since the balance answer moved it (FillMoves). */
  readonly balanceMoves?: ReadonlyMap<string, BalanceMove> | undefined;
  readonly mode: TradingMode;
  readonly modeReason: string | undefined;
  readonly sources: Readonly<Record<DataSource, SourceInput>>;
}

/** One of our resting orders as the tracker knows it. */
export interface OwnResting extends RestingVolume {
  readonly txid: string;
  /** When the exchange acknowledged it (local clock); 0 while not yet. */
  readonly openedAtMs: number;
}

export function buildSnapshot(input: SnapshotInput): MarketSnapshot {
  const venueBook = bookView(input.depth);
  const listed = ownOrders(input.openOrders, input.pair, input.instance);
  const vanished = vanishedOrders(listed, input.depth, input.ordersReceivedAtMs, input.bookAsOfMs);
  const own = vanished.length === 0 ? listed : listed.filter((o) => !vanished.includes(o));
  const ours = restingInBook(own, input.ownResting, input.bookReceivedAtMs);
  const book = withoutOurs(venueBook, ours);
  const bestBid = book.bids[0];
  const bestAsk = book.asks[0];
  const mid = bestBid && bestAsk ? bestBid.price.plus(bestAsk.price).div(2) : undefined;
  const sources = sourceStatuses(input.sources, input.nowMs);
  const staleSources = DATA_SOURCES.filter((s) => sources[s].stale);
  const grouped = input.grouped === undefined ? undefined : groupedView(input.grouped);
  return deepFreeze({
    pair: input.pair,
    seq: input.seq,
    takenAtMs: input.nowMs,
    book,
    venueBook,
    grouped:
      grouped === undefined
        ? undefined
        : {
            ...withoutOurs(grouped, ours, input.pair.tickSize.times(grouped.grouping)),
            grouping: grouped.grouping,
          },
    level3: input.level3 === undefined ? undefined : level3For(input.level3, own),
    bestBid: bestBid?.price,
    bestAsk: bestAsk?.price,
    mid,
    microprice: bestBid && bestAsk ? microprice(bestBid, bestAsk) : undefined,
    spread: bestBid && bestAsk ? bestAsk.price.minus(bestBid.price) : undefined,
    trades: publicTrades(input.trades, input.tradesKept),
    openOrders: own,
    ordersAsOfMs: input.ordersAsOfMs,
    vanishedOrders: vanished,
    bookAsOfMs: input.bookAsOfMs,
    inventory: inventory(input.balances, input.pair, mid, input.balanceMoves),
    fees: input.fees,
    adverseSelection: input.adverseSelection,
    queue: input.queue ?? [],
    mode: input.mode,
    modeReason: input.modeReason,
    sources,
    stale: staleSources.length > 0,
    staleSources,
  });
}

/**
 * Our orders the Depth answer holds: every order the tracker has resting or OpenOrders listed
 * (not vanished), by txid, the tracker's remaining volume first (it is the fresher), that the
 * exchange had acknowledged before the Depth answer arrived. An order acknowledged later may or
 * may not be in the answer; leaving it in for one answer is the smaller error, since taking out
 * a volume that is not there would hide the other participants' volume at that price.
 */
export function restingInBook(
  listed: readonly OwnOrder[],
  tracked: readonly OwnResting[] | undefined,
  bookReceivedAtMs: number | undefined,
): RestingVolume[] {
  const byTxid = new Map<string, RestingVolume & { openedAtMs: number }>();
  for (const o of listed) {
    byTxid.set(o.txid, {
      side: o.side,
      price: o.price,
      remaining: o.volume.minus(o.volumeExecuted),
      openedAtMs: o.openedAtMs,
    });
  }
  for (const o of tracked ?? []) byTxid.set(o.txid, o);
  const cutoff = bookReceivedAtMs ?? Infinity;
  return [...byTxid.values()].filter((o) => o.openedAtMs > 0 && o.openedAtMs <= cutoff);
}

/**
 * Parsed views of answers, by the answer: every tick builds a snapshot, most of them from a Depth
 * (or GroupedBook, or Trades) answer an earlier tick has already parsed. The views are frozen, so
 * sharing them between snapshots is safe.
 */
const BOOKS = new WeakMap<DepthBook, BookView>();
const GROUPED = new WeakMap<GroupedBookResult, GroupedBookView>();

/** The value cached for `key`, made (and kept) on first use. */
function cached<K, V>(
  cache: { get(key: K): V | undefined; set(key: K, value: V): unknown },
  key: K,
  make: () => V,
): V {
  let value = cache.get(key);
  if (value === undefined) {
    value = make();
    cache.set(key, value);
  }
  return value;
}
/**
 * Levels by their text (price and volume), across answers: a new Depth answer repeats most levels
 * of the one before, and each is parsed once. Two generations: a level found in the older one
 * moves to the newer, and when the newer holds LEVELS_KEPT the older is dropped. What stays is the
 * levels of the last few answers of every pair. One map cleared at 20,000 levels held every level
 * seen for the best part of an hour (two pairs), up to ~12 MB of heap, which every collection kept.
 */
let levels = new Map<string, PriceLevel>();
let olderLevels = new Map<string, PriceLevel>();
const LEVELS_KEPT = 2_000;

function levelOf(price: string, volume: string): PriceLevel {
  const key = `${price}|${volume}`;
  let level = levels.get(key);
  if (level === undefined) {
    level = olderLevels.get(key) ?? Object.freeze({ price: dec(price), volume: dec(volume) });
    if (levels.size >= LEVELS_KEPT) {
      olderLevels = levels;
      levels = new Map();
    }
    levels.set(key, level);
  }
  return level;
}

export function bookView(depth: DepthBook | undefined): BookView {
  if (depth === undefined) return { bids: [], asks: [] };
  return cached(BOOKS, depth, () => {
    const level = (l: { price: string; volume: string }): PriceLevel => levelOf(l.price, l.volume);
    return deepFreeze({ bids: depth.bids.map(level), asks: depth.asks.map(level) });
  });
}

/** Top-of-book price weighted by the opposite side's size: leans towards the thinner side. */
export function microprice(bid: PriceLevel, ask: PriceLevel): Decimal | undefined {
  const volume = bid.volume.plus(ask.volume);
  if (volume.isZero()) return undefined;
  return bid.price.times(ask.volume).plus(ask.price.times(bid.volume)).div(volume);
}

export function groupedView(result: GroupedBookResult): GroupedBookView {
  return cached(GROUPED, result, () => {
    const level = (l: { price: string; qty: string }): PriceLevel => levelOf(l.price, l.qty);
    return deepFreeze({
      grouping: result.grouping,
      bids: result.bids.map(level),
      asks: result.asks.map(level),
    });
  });
}

/**
 * Level3 views by answer and by our order list: both change every few polls, not every tick (the
 * list is one array while no order of it has vanished).
 */
const LEVEL3 = new WeakMap<Level3Result, WeakMap<readonly OwnOrder[], Level3View>>();

function level3For(result: Level3Result, own: readonly OwnOrder[]): Level3View {
  const byOwn = cached(LEVEL3, result, () => new WeakMap<readonly OwnOrder[], Level3View>());
  return cached(byOwn, own, () => deepFreeze(level3View(result, new Set(own.map((o) => o.txid)))));
}

export function level3View(result: Level3Result, ownTxids: ReadonlySet<string>): Level3View {
  const order = (e: Level3Entry): Level3Order => ({
    price: dec(e.price),
    volume: dec(e.qty),
    orderId: e.order_id,
    timestampNs: e.timestamp,
    own: ownTxids.has(e.order_id),
  });
  return { bids: result.bids.map(order), asks: result.asks.map(order) };
}

const TRADES = new WeakMap<readonly TradeRow[], { kept: number; view: readonly PublicTrade[] }>();

/** Trades rows: [price, volume, time (s, fractional), 'b'|'s', 'm'|'l', misc, trade_id]. */
export function publicTrades(rows: readonly TradeRow[], kept: number): readonly PublicTrade[] {
  const known = TRADES.get(rows);
  if (known?.kept === kept) return known.view;
  const view = deepFreeze(parseTrades(rows, kept));
  TRADES.set(rows, { kept, view });
  return view;
}

/**
 * Parsed trades by their row: each Trades answer is merged into the rows kept before, which stay
 * the same arrays (mergeTrades), so a trade is parsed once, not again at every poll while kept.
 */
const TRADE_ROWS = new WeakMap<TradeRow, PublicTrade>();

function parseTrades(rows: readonly TradeRow[], kept: number): PublicTrade[] {
  return rows.slice(Math.max(0, rows.length - kept)).map((r) =>
    cached(TRADE_ROWS, r, () =>
      Object.freeze({
        price: dec(r[0]),
        volume: dec(r[1]),
        timeMs: Math.round(r[2] * 1000),
        side: r[3] === 's' ? 'sell' : 'buy',
        orderType: r[4] === 'm' ? 'market' : 'limit',
        tradeId: r[6],
      }),
    ),
  );
}

/** Whether an OpenOrders `descr.pair` (the venue shows the altname) names this pair. */
export function orderInPair(order: Order, pair: PairInfo): boolean {
  const name = order.descr.pair;
  return name === pair.altname || name === pair.id;
}

/**
 * Each OpenOrders answer's orders by pair and instance: an answer comes every few seconds and a
 * snapshot is built at every Depth answer, so most snapshots share the parsed, frozen list.
 */
const OWN = new WeakMap<Readonly<Record<string, Order>>, Map<string, readonly OwnOrder[]>>();

export function ownOrders(
  open: Readonly<Record<string, Order>> | undefined,
  pair: PairInfo,
  instance: number,
): readonly OwnOrder[] {
  if (open === undefined) return [];
  const byPair = cached(OWN, open, () => new Map<string, readonly OwnOrder[]>());
  return cached(byPair, `${pair.id}|${instance}`, () =>
    deepFreeze(parseOwnOrders(open, pair, instance)),
  );
}

function parseOwnOrders(
  open: Readonly<Record<string, Order>>,
  pair: PairInfo,
  instance: number,
): OwnOrder[] {
  const out: OwnOrder[] = [];
  for (const [txid, o] of Object.entries(open)) {
    if (!orderInPair(o, pair)) continue;
    const decoded = decodeUserref(o.userref);
    const mine = decoded !== undefined && decoded.instance === instance;
    out.push({
      txid,
      userref: o.userref,
      slot: mine ? decoded.slot : undefined,
      generation: mine ? decoded.generation : undefined,
      side: o.descr.type === 'sell' ? 'sell' : 'buy',
      orderType: o.descr.ordertype,
      price: dec(o.descr.price),
      volume: dec(o.vol),
      volumeExecuted: dec(o.vol_exec),
      openedAtMs: Math.round(o.opentm * 1000),
      postOnly: o.oflags.split(',').includes('post'),
    });
  }
  // Oldest first, so the order is stable from one snapshot to the next.
  return out.sort((a, b) => a.openedAtMs - b.openedAtMs || (a.txid < b.txid ? -1 : 1));
}

/**
 * Our listed orders that Depth says have left the book: Depth was asked for after OpenOrders
 * answered (so each order rested before Depth was taken), and shows no order at its price
 * (missingFromDepth).
 */
export function vanishedOrders(
  orders: readonly OwnOrder[],
  depth: DepthBook | undefined,
  ordersReceivedAtMs: number | undefined,
  bookAsOfMs: number | undefined,
): OwnOrder[] {
  if (depth === undefined || ordersReceivedAtMs === undefined || bookAsOfMs === undefined)
    return [];
  if (bookAsOfMs <= ordersReceivedAtMs) return [];
  const bids = depth.bids.map((l) => l.price);
  const asks = depth.asks.map((l) => l.price);
  return orders.filter(
    (o) =>
      o.slot !== undefined &&
      missingFromDepth(o.side === 'buy' ? bids : asks, toWire(o.price), o.side),
  );
}

const ZERO = new Decimal(0);
const NO_BALANCE: AssetBalance = Object.freeze({ total: ZERO, available: ZERO });

/** Each BalanceEx entry's figures: an answer comes every few seconds, a snapshot at every tick. */
const BALANCES = new WeakMap<BalanceExEntry, AssetBalance>();

/** The spec: available = balance + credit - credit_used - hold_trade. */
export function assetBalance(entry: BalanceExEntry | undefined): AssetBalance {
  if (entry === undefined) return NO_BALANCE;
  return cached(BALANCES, entry, () => Object.freeze(balanceOf(entry)));
}

function balanceOf(entry: BalanceExEntry): AssetBalance {
  const total = dec(entry.balance);
  const available = total
    .plus(dec(entry.credit ?? '0'))
    .minus(dec(entry.credit_used ?? '0'))
    .minus(dec(entry.hold_trade));
  return { total, available };
}

/** The balances as answered, moved by our fills since (none before the first answer). */
export function inventory(
  balances: Readonly<Record<string, BalanceExEntry>> | undefined,
  pair: PairInfo,
  mid: Decimal | undefined,
  moves?: ReadonlyMap<string, BalanceMove>,
): Inventory {
  const moved = (asset: string): AssetBalance => {
    const polled = assetBalance(balances?.[asset]);
    const move = balances === undefined ? undefined : moves?.get(asset);
    if (move === undefined) return polled;
    return {
      total: polled.total.plus(move.total),
      available: polled.available.plus(move.available),
    };
  };
  const base = moved(pair.base);
  const quote = moved(pair.quote);
  if (mid === undefined) return { base, quote, valueInQuote: undefined, baseShare: undefined };
  const baseValue = base.total.times(mid);
  const valueInQuote = baseValue.plus(quote.total);
  return {
    base,
    quote,
    valueInQuote,
    baseShare: valueInQuote.isZero() ? undefined : baseValue.div(valueInQuote),
  };
}

export function sourceStatus(input: SourceInput, nowMs: number): SourceStatus {
  if (!input.enabled) {
    return {
      receivedAtMs: undefined,
      ageMs: Infinity,
      stale: false,
      staleAfterMs: Infinity,
      lastError: undefined,
    };
  }
  const ageMs = input.receivedAtMs === undefined ? Infinity : nowMs - input.receivedAtMs;
  return {
    receivedAtMs: input.receivedAtMs,
    ageMs,
    stale: input.lastError !== undefined || ageMs > input.staleAfterMs,
    staleAfterMs: input.staleAfterMs,
    lastError: input.lastError,
  };
}

export function sourceStatuses(
  inputs: Readonly<Record<DataSource, SourceInput>>,
  nowMs: number,
): Record<DataSource, SourceStatus> {
  const out = {} as Record<DataSource, SourceStatus>;
  for (const s of DATA_SOURCES) out[s] = sourceStatus(inputs[s], nowMs);
  return out;
}
