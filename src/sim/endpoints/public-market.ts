import { Decimal } from '../../core/index.js';
import type { SimContext } from '../context.js';
import type { BookEntry } from '../engine/types.js';
import { invalidArguments } from '../errors.js';
import { ok, type Route } from '../http/route.js';
import type { SimPair } from '../markets.js';
import { aggregate, groupedLevel, type PriceLevel } from '../market-data/book-levels.js';
import { formatPrice, formatVolume, nsToSeconds } from '../market-data/format.js';
import type { TapePrint, WindowStats } from '../market-data/history.js';
import { OHLC_INTERVALS } from '../market-data/ohlc-series.js';
import { intInRange, intOneOf, optInt, optList, optString, requiredPair } from './public-params.js';

const GROUPED_DEPTHS = [10, 25, 100, 250, 1000];
const GROUPINGS = [1, 5, 10, 25, 50, 100, 250, 500, 1000];
const DAY_MS = 86_400_000;
const MINUTE_MS = 60_000;
const ZERO = new Decimal(0);

/** Ticker, OHLC, Depth, GroupedBook, Trades and Spread: the live book and the recorder's memory. */
export function marketRoutes(): Route[] {
  return [
    {
      family: 'public',
      name: 'Ticker',
      handle: (req, ctx) => ok(ticker(req.params, ctx, req.nowMs)),
    },
    { family: 'public', name: 'OHLC', handle: (req, ctx) => ok(ohlc(req.params, ctx, req.nowMs)) },
    { family: 'public', name: 'Depth', handle: (req, ctx) => ok(depth(req.params, ctx)) },
    { family: 'public', name: 'GroupedBook', handle: (req, ctx) => ok(grouped(req.params, ctx)) },
    { family: 'public', name: 'Trades', handle: (req, ctx) => ok(trades(req.params, ctx)) },
    { family: 'public', name: 'Spread', handle: (req, ctx) => ok(spread(req.params, ctx)) },
  ];
}

type Params = Readonly<Record<string, unknown>>;

// ---- Ticker -------------------------------------------------------------------------------

function ticker(params: Params, ctx: SimContext, nowMs: number): Record<string, unknown> {
  const names = optList(params, 'pair');
  const assetClass = optString(params, 'asset_class');
  let pairs: readonly SimPair[];
  if (names !== undefined) pairs = names.map((n) => ctx.markets.requirePair(n));
  // Every simulated pair is a currency pair: asset_class=tokenized_asset alone lists none.
  else pairs = assetClass === 'tokenized_asset' ? [] : ctx.markets.pairs;
  const out: Record<string, unknown> = {};
  for (const pair of pairs) out[pair.id] = tickerOf(pair, ctx, nowMs);
  return out;
}

/**
 * Array positions as the exchange uses them: `a`/`b` [price, whole lot volume, lot volume] of the
 * best level; `c` [price, volume] of the last print; `v`, `p`, `t`, `l`, `h` [today, last 24
 * hours]; `o` today's opening price. Today starts at 00:00 UTC. Windows with no trade report the
 * last price before them (zero volume and count), so a quiet market does not read as a crash.
 */
function tickerOf(pair: SimPair, ctx: SimContext, nowMs: number): Record<string, unknown> {
  const book = ctx.engine.book(pair, 1);
  const todayStart = Math.floor(nowMs / DAY_MS) * DAY_MS;
  const today = ctx.history.stats(pair, todayStart);
  // 1440 whole minutes including the current one.
  const day = ctx.history.stats(pair, nowMs - DAY_MS + MINUTE_MS);
  const tape = ctx.history.prints(pair);
  const last = tape[tape.length - 1]?.trade;
  const p = (d: Decimal | undefined): string => formatPrice(pair, d ?? ZERO);
  const v = (d: Decimal): string => formatVolume(pair, d);
  const windows = [today, day];
  return {
    a: touch(pair, book.asks),
    b: touch(pair, book.bids),
    c: [p(last?.price), v(last?.volume ?? ZERO)],
    v: windows.map((w) => v(w.volume)),
    p: windows.map((w) => p(vwap(w))),
    t: windows.map((w) => w.count),
    l: windows.map((w) => p(w.low ?? w.closeBefore)),
    h: windows.map((w) => p(w.high ?? w.closeBefore)),
    o: p(today.open ?? today.closeBefore),
  };
}

function touch(pair: SimPair, side: readonly BookEntry[]): string[] {
  const best = aggregate(side, 1)[0];
  const qty = best?.qty ?? ZERO;
  return [
    formatPrice(pair, best?.price ?? ZERO),
    qty.toFixed(0, Decimal.ROUND_DOWN),
    formatVolume(pair, qty),
  ];
}

function vwap(w: WindowStats): Decimal | undefined {
  return w.volume.isZero() ? w.closeBefore : w.notional.div(w.volume);
}

// ---- OHLC ---------------------------------------------------------------------------------

/**
 * `since` keeps rows newer than it (time > since); the last row, the uncommitted current frame,
 * is always sent. `last` is the time of the newest committed frame: pass it back as `since`.
 */
function ohlc(params: Params, ctx: SimContext, nowMs: number): Record<string, unknown> {
  const pair = requiredPair(ctx, params);
  const interval = intOneOf(params, 'interval', OHLC_INTERVALS, 1);
  const since = optInt(params, 'since');
  const frames = ctx.history.ohlc(pair, interval, nowMs);
  const current = frames[frames.length - 1];
  const lastCommitted = current === undefined ? 0 : current.timeSec - interval * 60;
  const rows = frames
    .filter((f) => f === current || since === undefined || f.timeSec > since)
    .map((f) => [
      f.timeSec,
      formatPrice(pair, f.open),
      formatPrice(pair, f.high),
      formatPrice(pair, f.low),
      formatPrice(pair, f.close),
      formatPrice(pair, f.vwap),
      formatVolume(pair, f.volume),
      f.count,
    ]);
  return { [pair.id]: rows, last: lastCommitted };
}

// ---- Depth, GroupedBook -------------------------------------------------------------------

/** Entries [price, volume, timestamp]: volume summed per price, timestamp its newest order's. */
function depth(params: Params, ctx: SimContext): Record<string, unknown> {
  const pair = requiredPair(ctx, params);
  const count = intInRange(params, 'count', 1, 500, 100);
  const book = ctx.engine.book(pair, count);
  const rows = (levels: PriceLevel[]) =>
    levels.map((l) => [
      formatPrice(pair, l.price),
      formatVolume(pair, l.qty),
      nsToSeconds(l.newestNs),
    ]);
  return {
    [pair.id]: { asks: rows(aggregate(book.asks, count)), bids: rows(aggregate(book.bids, count)) },
  };
}

/** `pair` echoes the name the request used. */
function grouped(params: Params, ctx: SimContext): Record<string, unknown> {
  const pair = requiredPair(ctx, params);
  const levels = intOneOf(params, 'depth', GROUPED_DEPTHS, 10);
  const grouping = intOneOf(params, 'grouping', GROUPINGS, 1);
  const book = ctx.engine.book(pair);
  const rows = (side: 'bids' | 'asks') =>
    aggregate(book[side], levels, groupedLevel(side, pair.tick, grouping)).map((l) => ({
      price: formatPrice(pair, l.price),
      qty: formatVolume(pair, l.qty),
    }));
  return { pair: optString(params, 'pair'), grouping, bids: rows('bids'), asks: rows('asks') };
}

// ---- Trades -------------------------------------------------------------------------------

const NS_PER_S = new Decimal(1_000_000_000);
/** Below this a `since` is read as Unix seconds (ns timestamps have 19 digits today). */
const SECONDS_BELOW = 1e12;

/**
 * The cursor: `last` is the newest returned print's tape position, its time in ns since the
 * epoch (unique per print; see TapePrint). `since` takes that back, or a Unix time in seconds
 * (integer or fractional) as older clients send; prints strictly after it come back, oldest
 * first, at most `count`. Without `since`, the newest `count` prints.
 */
function trades(params: Params, ctx: SimContext): Record<string, unknown> {
  const pair = requiredPair(ctx, params);
  const count = intInRange(params, 'count', 1, 1000, 1000);
  const sinceNs = parseSince(params);
  const tape = ctx.history.prints(pair);
  let picked: readonly TapePrint[];
  if (sinceNs === undefined) {
    picked = tape.slice(Math.max(0, tape.length - count));
  } else {
    const from = firstAfter(tape, sinceNs);
    picked = tape.slice(from, from + count);
  }
  const rows = picked.map(({ trade: t }) => [
    formatPrice(pair, t.price),
    formatVolume(pair, t.volume),
    t.timeMs / 1000,
    t.side === 'buy' ? 'b' : 's',
    t.ordertype,
    t.misc,
    t.tradeId,
  ]);
  const lastNs =
    picked[picked.length - 1]?.cursorNs ?? sinceNs ?? tape[tape.length - 1]?.cursorNs ?? 0n;
  return { [pair.id]: rows, last: lastNs.toString() };
}

function parseSince(params: Params): bigint | undefined {
  const raw = optString(params, 'since');
  if (raw === undefined) return undefined;
  if (!/^\d{1,20}(\.\d{1,9})?$/.test(raw)) throw invalidArguments('since');
  const value = new Decimal(raw);
  if (raw.includes('.') || value.lt(SECONDS_BELOW)) {
    return BigInt(value.times(NS_PER_S).floor().toFixed());
  }
  return BigInt(raw);
}

function firstAfter(tape: readonly TapePrint[], ns: bigint): number {
  let lo = 0;
  let hi = tape.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((tape[mid] as TapePrint).cursorNs <= ns) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// ---- Spread -------------------------------------------------------------------------------

/** Rows [time, bid, ask] newer than `since` (time > since); `last` is the newest row's time. */
function spread(params: Params, ctx: SimContext): Record<string, unknown> {
  const pair = requiredPair(ctx, params);
  const since = optInt(params, 'since');
  const rows = ctx.history
    .spreads(pair)
    .filter((s) => since === undefined || s.timeSec > since)
    .map((s) => [s.timeSec, formatPrice(pair, s.bid), formatPrice(pair, s.ask)]);
  const newest = rows[rows.length - 1]?.[0] as number | undefined;
  return { [pair.id]: rows, last: newest ?? since ?? 0 };
}
