import { Decimal } from '../../core/index.js';
import { TRIGGERED_ORDER_TYPES } from '../../core/index.js';
import type { OrderSpec, PriceSpec, SimOrder, SimTrade } from '../engine/types.js';
import type { Markets, SimPair } from '../markets.js';
import type { LedgerEntry } from '../state/wallet.js';

/**
 * SimOrder / SimTrade / LedgerEntry → the records the spec's account endpoints return. Amounts
 * are decimal strings padded to the exchange's precision for their kind (volumes to lot_decimals,
 * prices to pair_decimals, costs to cost_decimals, balances to the asset's decimals) and never cut
 * short: a value with more digits than that keeps all of them, so records always agree exactly
 * with balances. Times are Unix seconds with a fraction.
 */

const ZERO = new Decimal(0);

/** Padded to `decimals`, or every digit when the value has more. */
export function fmt(value: Decimal, decimals: number): string {
  const v = value.isZero() ? ZERO : value;
  return v.decimalPlaces() > decimals ? v.toFixed() : v.toFixed(decimals);
}

export function seconds(ms: number): number {
  return ms / 1000;
}

export interface OrderDescr {
  /** The pair's altname, as the exchange shows it in descriptions. */
  readonly pair: string;
  readonly type: string;
  readonly ordertype: string;
  readonly price: string;
  readonly price2: string;
  readonly leverage: string;
  readonly order: string;
  /** Text of the conditional close, '' when none. */
  readonly close: string;
}

export interface OrderRecord {
  readonly refid: string | null;
  readonly userref: number;
  readonly status: string;
  readonly reason: string | null;
  readonly opentm: number;
  readonly closetm?: number;
  readonly starttm: number;
  readonly expiretm: number;
  readonly descr: OrderDescr;
  readonly vol: string;
  readonly vol_exec: string;
  readonly cost: string;
  readonly fee: string;
  /** Average execution price, at the pair's price precision; 0 before any fill. */
  readonly price: string;
  readonly stopprice: string;
  readonly limitprice: string;
  readonly misc: string;
  readonly oflags: string;
  readonly trades?: readonly string[];
  readonly trigger?: string;
}

export interface TradeRecord {
  readonly ordertxid: string;
  readonly postxid: string;
  /** Pair id, as TradesHistory keys pairs. */
  readonly pair: string;
  readonly time: number;
  readonly type: string;
  readonly ordertype: string;
  readonly price: string;
  readonly cost: string;
  readonly fee: string;
  readonly vol: string;
  /** Spot only: always zero. */
  readonly margin: string;
  readonly misc: string;
  readonly ledgers: readonly string[];
  readonly trade_id: number;
  readonly maker: boolean;
}

export interface LedgerRecord {
  readonly refid: string;
  readonly time: number;
  readonly type: string;
  readonly subtype: string;
  readonly aclass: string;
  readonly asset: string;
  readonly amount: string;
  readonly fee: string;
  readonly balance: string;
  /** The wallet the entry belongs to; the simulator has the spot wallet only. */
  readonly wallet: string;
}

// ---- prices and descriptions -------------------------------------------------------------------

function priceText(p: PriceSpec, pair: SimPair): string {
  if (p.kind === 'abs') return fmt(p.value, pair.pair_decimals);
  const amount = p.percent ? p.amount.toFixed() : fmt(p.amount, pair.pair_decimals);
  return `${p.op}${amount}${p.percent ? '%' : ''}`;
}

/**
 * `price` and `price2` as the description shows them: a relative limit or trigger resolved at
 * placement is shown resolved; trailing offsets stay offsets (the stop moves with the market).
 */
function descrPrices(order: SimOrder): { price: string; price2: string } {
  const { spec, pair } = order;
  const t = spec.ordertype;
  let price = '0';
  if (t === 'limit') {
    price =
      order.limitPrice !== undefined
        ? fmt(order.limitPrice, pair.pair_decimals)
        : spec.price === undefined
          ? '0'
          : priceText(spec.price, pair);
  } else if (spec.price !== undefined) {
    price =
      spec.price.kind === 'rel' && order.stopPrice !== undefined && !t.startsWith('trailing')
        ? fmt(order.stopPrice, pair.pair_decimals)
        : priceText(spec.price, pair);
  }
  let price2 = spec.price2 === undefined ? '0' : priceText(spec.price2, pair);
  if (
    spec.price2?.kind === 'rel' &&
    order.limitPrice !== undefined &&
    (t === 'stop-loss-limit' || t === 'take-profit-limit')
  ) {
    // Relative to the fixed trigger price, so it is known from placement on.
    price2 = fmt(order.limitPrice, pair.pair_decimals);
  }
  return { price, price2 };
}

const WORDS: Readonly<Record<string, string>> = {
  'stop-loss': 'stop loss',
  'take-profit': 'take profit',
  'stop-loss-limit': 'stop loss',
  'take-profit-limit': 'take profit',
  'trailing-stop': 'trailing stop',
  'trailing-stop-limit': 'trailing stop',
  'settle-position': 'settle position',
};

/** `limit 37500.0`, `stop loss 30000.0 -> limit 29900.0`, `market`. */
function terms(ordertype: string, price: string, price2: string): string {
  if (ordertype === 'market' || ordertype === 'settle-position') {
    return WORDS[ordertype] ?? ordertype;
  }
  if (ordertype === 'limit') return `limit ${price}`;
  const head = `${WORDS[ordertype] ?? ordertype} ${price}`;
  return ordertype.endsWith('-limit') ? `${head} -> limit ${price2}` : head;
}

function closeText(spec: OrderSpec, pair: SimPair): string {
  const c = spec.close;
  if (c === undefined) return '';
  const price = c.price === undefined ? '0' : priceText(c.price, pair);
  const price2 = c.price2 === undefined ? '0' : priceText(c.price2, pair);
  return `close position @ ${terms(c.ordertype, price, price2)}`;
}

/** The exchange's one-line summary: `buy 1.25000000 XBTUSD @ limit 37500.0`. */
export function describeOrder(order: SimOrder): OrderDescr {
  const { spec, pair } = order;
  const { price, price2 } = descrPrices(order);
  const leverage = spec.leverage === undefined ? 'none' : spec.leverage;
  const volume = fmt(spec.volume, pair.lot_decimals);
  let text = `${spec.side} ${volume} ${pair.altname} @ ${terms(spec.ordertype, price, price2)}`;
  if (spec.leverage !== undefined) text += ` with ${leverageRatio(spec.leverage)} leverage`;
  return {
    pair: pair.altname,
    type: spec.side,
    ordertype: spec.ordertype,
    price,
    price2,
    leverage,
    order: text,
    close: closeText(spec, pair),
  };
}

function leverageRatio(leverage: string): string {
  return leverage.includes(':') ? leverage : `${leverage}:1`;
}

/** AddOrder's `descr`: the summary, and the close's summary when there is one. */
export function addOrderDescr(order: SimOrder): { order: string; close?: string } {
  const d = describeOrder(order);
  return d.close === '' ? { order: d.order } : { order: d.order, close: d.close };
}

// ---- records -------------------------------------------------------------------------------------

function averagePrice(order: SimOrder): Decimal {
  if (order.volExec.isZero()) return ZERO;
  return order.cost.div(order.volExec).toDecimalPlaces(order.pair.pair_decimals);
}

export function renderOrder(order: SimOrder, withTrades: boolean): OrderRecord {
  const { spec, pair } = order;
  const closed = order.closetmMs !== undefined;
  return {
    refid: order.refid ?? null,
    userref: spec.userref,
    status: order.status,
    reason: order.reason ?? null,
    opentm: seconds(order.opentmMs),
    ...(closed ? { closetm: seconds(order.closetmMs ?? 0) } : {}),
    starttm: seconds(spec.starttmMs),
    expiretm: seconds(spec.expiretmMs),
    descr: describeOrder(order),
    vol: fmt(spec.volume, pair.lot_decimals),
    vol_exec: fmt(order.volExec, pair.lot_decimals),
    cost: fmt(order.cost, pair.cost_decimals),
    fee: fmt(order.fee, pair.cost_decimals),
    price: fmt(averagePrice(order), pair.pair_decimals),
    stopprice: fmt(order.stopPrice ?? ZERO, pair.pair_decimals),
    limitprice: fmt(order.limitPrice ?? ZERO, pair.pair_decimals),
    misc: order.misc,
    oflags: order.oflags,
    ...(withTrades && order.trades.length > 0 ? { trades: [...order.trades] } : {}),
    ...(TRIGGERED_ORDER_TYPES.has(spec.ordertype) ? { trigger: spec.trigger } : {}),
  };
}

export function renderTrade(trade: SimTrade): TradeRecord {
  const { pair } = trade;
  return {
    ordertxid: trade.ordertxid,
    postxid: trade.postxid,
    pair: pair.id,
    time: seconds(trade.timeMs),
    type: trade.side,
    ordertype: trade.ordertype,
    price: fmt(trade.price, pair.pair_decimals),
    cost: fmt(trade.cost, pair.cost_decimals),
    fee: fmt(trade.fee, trade.feeAsset === pair.base ? pair.lot_decimals : pair.cost_decimals),
    vol: fmt(trade.vol, pair.lot_decimals),
    margin: fmt(ZERO, pair.cost_decimals),
    misc: '',
    ledgers: [...trade.ledgers],
    trade_id: trade.tradeId,
    maker: trade.maker,
  };
}

/** Asset decimals for display; assets the markets do not know (set by admin) get 10. */
export function assetDecimals(markets: Markets, asset: string, fallback = 10): number {
  return markets.asset(asset)?.decimals ?? fallback;
}

export function renderLedger(entry: LedgerEntry, markets: Markets): LedgerRecord {
  const decimals = assetDecimals(markets, entry.asset);
  return {
    refid: entry.refid,
    time: seconds(entry.timeMs),
    type: entry.type,
    subtype: entry.subtype,
    aclass: 'currency',
    asset: entry.asset,
    amount: fmt(entry.amount, decimals),
    fee: fmt(entry.fee, decimals),
    balance: fmt(entry.balance, decimals),
    wallet: 'spot / main',
  };
}
