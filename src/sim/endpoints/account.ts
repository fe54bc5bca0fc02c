import { Decimal, dec } from '../../core/index.js';
import { OTHER_LIMITS } from '../../exchange/limits/index.js';
import type { SimContext } from '../context.js';
import type { SimOrder } from '../engine/types.js';
import { invalidArguments, SimError } from '../errors.js';
import { ok, type Route, type SimRequest } from '../http/route.js';
import type { SimPair } from '../markets.js';
import type { Account } from '../state/accounts.js';
import type { Permission } from '../state/permissions.js';
import { bool, list, optionalUserref, text } from './order-params.js';
import {
  assetDecimals,
  fmt,
  renderLedger,
  renderOrder,
  renderTrade,
  type LedgerRecord,
  type OrderRecord,
  type TradeRecord,
} from './render.js';

/**
 * Balances, orders, trades, ledgers and fee tiers of the calling key, read from the wallet and the
 * engine so that every figure agrees with every other. Histories are newest first, 50 per page
 * (`ofs` skips), with `count` the number of matches before paging; `start` is exclusive and `end`
 * inclusive, each a Unix time (seconds, a fraction allowed) or the id of a record of the same
 * kind, whose time is used.
 */

const PAGE = OTHER_LIMITS.closedOrdersPageSize;
const ZERO = new Decimal(0);

type Params = SimRequest['params'];

function accountOf(req: SimRequest): Account {
  if (req.account === undefined) throw new Error(`${req.name} reached without an account`);
  return req.account;
}

function offset(params: Params): number {
  const v = text(params, 'ofs');
  if (v === undefined) return 0;
  if (!/^\d+$/.test(v)) throw invalidArguments('ofs');
  return Number(v);
}

/** `start`/`end` in ms: Unix seconds, or a record id resolved by `timeOf` (undefined = unknown). */
function bound(
  params: Params,
  field: 'start' | 'end',
  timeOf: (id: string) => number | undefined,
): number | undefined {
  const v = text(params, field);
  if (v === undefined) return undefined;
  if (/^\d+(\.\d+)?$/.test(v)) return Math.round(Number(v) * 1000);
  const ms = timeOf(v);
  if (ms === undefined) throw invalidArguments(field);
  return ms;
}

function inRange(ms: number, start: number | undefined, end: number | undefined): boolean {
  return (start === undefined || ms > start) && (end === undefined || ms <= end);
}

/** Up to `max` ids from a comma list or a JSON array. */
function ids(params: Params, field: string, max: number): string[] {
  const raw = list(params, field);
  if (raw === undefined || raw.length === 0 || raw.length > max) throw invalidArguments(field);
  return raw.map((v) => {
    if (typeof v !== 'string' || v === '') throw invalidArguments(field);
    return v;
  });
}

// ---- valuation ------------------------------------------------------------------------------------

/** Mark price of a pair: the last trade, else the background's fair value, else the start price. */
function mark(ctx: SimContext, pair: SimPair): Decimal {
  const last = ctx.engine.lastTrade(pair);
  if (last !== undefined) return last.price;
  const fair = ctx.background.fairValue(pair.id);
  return fair === undefined ? pair.initialPrice : dec(fair);
}

/** Units of `to` one unit of `from` is worth: directly, inverted, or through ZUSD. */
function rate(ctx: SimContext, from: string, to: string, hop = true): Decimal | undefined {
  if (from === to) return new Decimal(1);
  for (const pair of ctx.markets.pairs) {
    if (pair.base === from && pair.quote === to) return mark(ctx, pair);
    if (pair.base === to && pair.quote === from) {
      const m = mark(ctx, pair);
      return m.isZero() ? undefined : new Decimal(1).div(m);
    }
  }
  if (!hop || from === 'ZUSD' || to === 'ZUSD') return undefined;
  const a = rate(ctx, from, 'ZUSD', false);
  const b = rate(ctx, 'ZUSD', to, false);
  return a === undefined || b === undefined ? undefined : a.times(b);
}

function collateral(ctx: SimContext, asset: string): Decimal {
  return new Decimal(ctx.markets.asset(asset)?.collateral_value ?? 0);
}

/** Quote value of what an open order has left to execute, at its limit (or trigger, or mark). */
function unexecutedValue(ctx: SimContext, order: SimOrder): Decimal {
  const left = order.spec.volume.minus(order.volExec);
  if (left.lte(0)) return ZERO;
  if (order.spec.flags.viqc) return left;
  const price = order.limitPrice ?? order.stopPrice ?? mark(ctx, order.pair);
  return left.times(price);
}

function money(value: Decimal, decimals: number): string {
  return value.toDecimalPlaces(decimals).toFixed(decimals);
}

// ---- balances -------------------------------------------------------------------------------------

const balance: Route = {
  family: 'private',
  name: 'Balance',
  permission: ['funds-query'],
  handle(req, ctx) {
    const { wallet } = accountOf(req);
    const result: Record<string, string> = {};
    for (const asset of wallet.assets()) {
      result[asset] = fmt(wallet.balance(asset), assetDecimals(ctx.markets, asset));
    }
    return ok(result);
  },
};

const balanceEx: Route = {
  family: 'private',
  name: 'BalanceEx',
  permission: ['funds-query'],
  handle(req, ctx) {
    const { wallet } = accountOf(req);
    const result: Record<string, { balance: string; hold_trade: string }> = {};
    for (const asset of wallet.assets()) {
      const d = assetDecimals(ctx.markets, asset);
      result[asset] = {
        balance: fmt(wallet.balance(asset), d),
        hold_trade: fmt(wallet.hold(asset), d),
      };
    }
    return ok(result);
  },
};

/**
 * CreditLines as for an account with the feature and no credit: every asset's balance and hold
 * with zero credit, and a limits monitor whose collateral and equity are the balances valued in
 * USD (times each asset's collateral value); no debt, so debt_to_equity is 0.
 */
const creditLines: Route = {
  family: 'private',
  name: 'CreditLines',
  permission: ['funds-query'],
  handle(req, ctx) {
    const { wallet } = accountOf(req);
    const details: Record<string, Record<string, string>> = {};
    let collateralUsd = ZERO;
    for (const asset of wallet.assets()) {
      const d = assetDecimals(ctx.markets, asset);
      const zero = fmt(ZERO, d);
      details[asset] = {
        balance: fmt(wallet.balance(asset), d),
        hold_trade: fmt(wallet.hold(asset), d),
        credit: zero,
        credit_used: zero,
      };
      const usd = rate(ctx, asset, 'ZUSD');
      if (usd !== undefined) {
        collateralUsd = collateralUsd.plus(
          wallet.balance(asset).times(usd).times(collateral(ctx, asset)),
        );
      }
    }
    const usd = (v: Decimal): string => money(v, 4);
    return ok({
      asset_details: details,
      limits_monitor: {
        total_credit_usd: usd(ZERO),
        total_credit_used_usd: usd(ZERO),
        total_collateral_value_usd: usd(collateralUsd),
        equity_usd: usd(collateralUsd),
        ongoing_balance: usd(collateralUsd),
        debt_to_equity: usd(ZERO),
      },
    });
  },
};

/**
 * TradeBalance in `asset` (id or altname, default ZUSD), valued at mark prices (last trade, else
 * fair value). The simulator trades spot only, so every position figure is zero:
 * - `eb` equivalent balance: every balance valued in `asset`;
 * - `tb` trade balance: the same, each asset weighted by its collateral value;
 * - `m` margin used, `n` unrealised P&L, `c` cost basis and `v` floating value of open positions: 0;
 * - `e` equity = tb + n; `mf` free margin = e − m;
 * - `uv` unexecuted value: what open orders have left to execute, at their limit (or trigger)
 *   price, valued in `asset`;
 * - `ml` margin level (e / m × 100) is left out, as the exchange does when there is no margin.
 * Assets with no price path to `asset` count as zero.
 */
const tradeBalance: Route = {
  family: 'private',
  name: 'TradeBalance',
  permission: ['orders-query-open'],
  handle(req, ctx) {
    const account = accountOf(req);
    const target = ctx.markets.requireAsset(text(req.params, 'asset') ?? 'ZUSD');
    let eb = ZERO;
    let tb = ZERO;
    for (const asset of account.wallet.assets()) {
      const r = rate(ctx, asset, target.id);
      if (r === undefined) continue;
      const value = account.wallet.balance(asset).times(r);
      eb = eb.plus(value);
      tb = tb.plus(value.times(collateral(ctx, asset)));
    }
    let uv = ZERO;
    for (const order of ctx.engine.openOrders(account)) {
      const r = rate(ctx, order.pair.quote, target.id);
      if (r !== undefined) uv = uv.plus(unexecutedValue(ctx, order).times(r));
    }
    const d = target.decimals;
    const zero = money(ZERO, d);
    return ok({
      eb: money(eb, d),
      tb: money(tb, d),
      m: zero,
      n: zero,
      c: zero,
      v: zero,
      e: money(tb, d),
      mf: money(tb, d),
      uv: money(uv, d),
    });
  },
};

// ---- orders -----------------------------------------------------------------------------------------

function byUserref(params: Params): (o: SimOrder) => boolean {
  const userref = optionalUserref(params);
  return (o) => userref === undefined || o.spec.userref === userref;
}

const openOrders: Route = {
  family: 'private',
  name: 'OpenOrders',
  permission: ['orders-query-open'],
  handle(req, ctx) {
    const account = accountOf(req);
    const trades = bool(req.params, 'trades');
    const keep = byUserref(req.params);
    const open: Record<string, OrderRecord> = {};
    for (const o of ctx.engine.openOrders(account))
      if (keep(o)) open[o.txid] = renderOrder(o, trades);
    return ok({ open });
  },
};

function ownOrder(ctx: SimContext, account: Account, txid: string): SimOrder | undefined {
  const o = ctx.engine.order(txid);
  return o?.accountKey === account.key ? o : undefined;
}

/**
 * ClosedOrders. `closetime` picks which time `start`/`end` compare: `open` the opening time,
 * `close` the closing time, `both` (default) either one.
 */
const closedOrders: Route = {
  family: 'private',
  name: 'ClosedOrders',
  permission: ['orders-query-closed'],
  handle(req, ctx) {
    const account = accountOf(req);
    const trades = bool(req.params, 'trades');
    const keep = byUserref(req.params);
    const timeOf = (id: string): number | undefined => ownOrder(ctx, account, id)?.opentmMs;
    const start = bound(req.params, 'start', timeOf);
    const end = bound(req.params, 'end', timeOf);
    const ofs = offset(req.params);
    const closetime = text(req.params, 'closetime') ?? 'both';
    if (closetime !== 'open' && closetime !== 'close' && closetime !== 'both') {
      throw invalidArguments('closetime');
    }
    const matches = ctx.engine.closedOrders(account).filter((o) => {
      if (!keep(o)) return false;
      const opened = inRange(o.opentmMs, start, end);
      const closed = inRange(o.closetmMs ?? o.opentmMs, start, end);
      return closetime === 'open' ? opened : closetime === 'close' ? closed : opened || closed;
    });
    const closed: Record<string, OrderRecord> = {};
    for (const o of matches.slice(ofs, ofs + PAGE)) closed[o.txid] = renderOrder(o, trades);
    return ok({ closed, count: matches.length });
  },
};

/**
 * QueryOrders: up to 50 ids (`EOrder:Unknown order` for one the key does not own). The spec grants
 * it by order status, so each order found needs the matching query permission: open and pending
 * orders `orders-query-open`, closed ones `orders-query-closed`. `userref` narrows the answer.
 */
const queryOrders: Route = {
  family: 'private',
  name: 'QueryOrders',
  permission: ['orders-query-open', 'orders-query-closed'],
  handle(req, ctx) {
    const account = accountOf(req);
    const trades = bool(req.params, 'trades');
    const keep = byUserref(req.params);
    const result: Record<string, OrderRecord> = {};
    for (const txid of ids(req.params, 'txid', 50)) {
      const o = ownOrder(ctx, account, txid);
      if (o === undefined) throw new SimError('EOrder:Unknown order');
      const needs: Permission =
        o.status === 'open' || o.status === 'pending' ? 'orders-query-open' : 'orders-query-closed';
      if (!account.permissions.has(needs)) throw new SimError('EGeneral:Permission denied');
      if (keep(o)) result[o.txid] = renderOrder(o, trades);
    }
    return ok(result);
  },
};

// ---- trades -----------------------------------------------------------------------------------------

/** Spot trades open no position, so the position-only filters match nothing. */
const TRADE_TYPES = ['all', 'any position', 'closed position', 'closing position', 'no position'];

const tradesHistory: Route = {
  family: 'private',
  name: 'TradesHistory',
  permission: ['orders-query-closed'],
  restCost: 2,
  handle(req, ctx) {
    const account = accountOf(req);
    const type = text(req.params, 'type') ?? 'all';
    if (!TRADE_TYPES.includes(type)) throw invalidArguments('type');
    bool(req.params, 'trades');
    const timeOf = (id: string): number | undefined => {
      const t = ctx.engine.trade(id);
      return t?.accountKey === account.key ? t.timeMs : undefined;
    };
    const start = bound(req.params, 'start', timeOf);
    const end = bound(req.params, 'end', timeOf);
    const ofs = offset(req.params);
    const spot = type === 'all' || type === 'no position';
    const matches = spot
      ? ctx.engine
          .trades(account)
          .filter((t) => inRange(t.timeMs, start, end))
          .reverse()
      : [];
    const trades: Record<string, TradeRecord> = {};
    for (const t of matches.slice(ofs, ofs + PAGE)) trades[t.id] = renderTrade(t);
    return ok({ trades, count: matches.length });
  },
};

/** QueryTrades: up to 20 trade ids; one the key does not own is `EGeneral:Invalid arguments:txid`. */
const queryTrades: Route = {
  family: 'private',
  name: 'QueryTrades',
  permission: ['orders-query-closed'],
  restCost: 2,
  handle(req, ctx) {
    const account = accountOf(req);
    bool(req.params, 'trades');
    const result: Record<string, TradeRecord> = {};
    for (const id of ids(req.params, 'txid', 20)) {
      const t = ctx.engine.trade(id);
      if (t?.accountKey !== account.key) throw invalidArguments('txid');
      result[t.id] = renderTrade(t);
    }
    return ok(result);
  },
};

// ---- ledgers ----------------------------------------------------------------------------------------

/** The exchange's ledger types; those the simulator never writes simply match nothing. */
const LEDGER_TYPES = [
  'all',
  'trade',
  'deposit',
  'withdrawal',
  'transfer',
  'margin',
  'adjustment',
  'rollover',
  'spend',
  'receive',
  'settled',
  'credit',
  'staking',
  'reward',
  'dividend',
  'sale',
  'conversion',
  'nfttrade',
  'nftcreatorfee',
  'nftrebate',
  'custodytransfer',
  'earn',
];

/**
 * Ledgers: `asset` a comma list of asset ids or altnames (default all), `aclass` only `currency`,
 * `type` one of the exchange's ledger types (default all).
 */
const ledgers: Route = {
  family: 'private',
  name: 'Ledgers',
  permission: ['ledger-query'],
  restCost: 2,
  handle(req, ctx) {
    const account = accountOf(req);
    const assetNames = list(req.params, 'asset');
    const assets =
      assetNames === undefined || (assetNames.length === 1 && assetNames[0] === 'all')
        ? undefined
        : new Set(assetNames.map((a) => ctx.markets.requireAsset(a).id));
    const aclass = text(req.params, 'aclass') ?? 'currency';
    if (aclass !== 'currency') throw invalidArguments('aclass');
    const type = text(req.params, 'type') ?? 'all';
    if (!LEDGER_TYPES.includes(type)) throw invalidArguments('type');
    const entries = account.wallet.ledger;
    const timeOf = (id: string): number | undefined => entries.find((e) => e.id === id)?.timeMs;
    const start = bound(req.params, 'start', timeOf);
    const end = bound(req.params, 'end', timeOf);
    const ofs = offset(req.params);
    const matches = entries
      .filter(
        (e) =>
          (assets === undefined || assets.has(e.asset)) &&
          (type === 'all' || e.type === type) &&
          inRange(e.timeMs, start, end),
      )
      .reverse();
    const ledger: Record<string, LedgerRecord> = {};
    for (const e of matches.slice(ofs, ofs + PAGE)) ledger[e.id] = renderLedger(e, ctx.markets);
    return ok({ ledger, count: matches.length });
  },
};

/** QueryLedgers: up to 20 ledger ids (`id`); one the key does not own is `…:id`. */
const queryLedgers: Route = {
  family: 'private',
  name: 'QueryLedgers',
  permission: ['ledger-query'],
  restCost: 2,
  handle(req, ctx) {
    const account = accountOf(req);
    bool(req.params, 'trades');
    const result: Record<string, LedgerRecord> = {};
    for (const id of ids(req.params, 'id', 20)) {
      const e = account.wallet.ledger.find((l) => l.id === id);
      if (e === undefined) throw invalidArguments('id');
      result[e.id] = renderLedger(e, ctx.markets);
    }
    return ok(result);
  },
};

// ---- fees -------------------------------------------------------------------------------------------

interface FeeInfo {
  readonly fee: string;
  readonly minfee: string;
  readonly maxfee: string;
  readonly nextfee: string | null;
  readonly nextvolume: string | null;
  readonly tiervolume: string;
}

/** Where `volumeUsd` sits on a fee ladder; the top tier has no next fee or volume (null). */
function feeInfo(
  ctx: SimContext,
  pair: SimPair,
  ladder: readonly (readonly [number, number])[],
  volumeUsd: Decimal,
  maker: boolean,
): FeeInfo {
  const sorted = [...ladder].sort((a, b) => a[0] - b[0]);
  let i = 0;
  sorted.forEach(([threshold], j) => {
    if (volumeUsd.gte(threshold)) i = j;
  });
  const pct = (n: number | Decimal): string => new Decimal(n).toFixed(4);
  const percents = sorted.map(([, p]) => p);
  const next = sorted[i + 1];
  return {
    fee: pct(ctx.markets.feePercent(pair, volumeUsd, maker)),
    minfee: pct(Math.min(...percents)),
    maxfee: pct(Math.max(...percents)),
    nextfee: next === undefined ? null : pct(next[1]),
    nextvolume: next === undefined ? null : pct(next[0]),
    tiervolume: pct(sorted[i]?.[0] ?? 0),
  };
}

/**
 * TradeVolume: the key's 30-day volume in USD and, for each pair asked for (keyed by pair id),
 * where it sits on the taker (`fees`) and maker (`fees_maker`) ladders.
 */
const tradeVolume: Route = {
  family: 'private',
  name: 'TradeVolume',
  permission: ['funds-query'],
  handle(req, ctx) {
    const account = accountOf(req);
    const volume = ctx.engine.volumeUsd(account);
    const names = list(req.params, 'pair') ?? [];
    const pairs = names.map((n) => ctx.markets.requirePair(n));
    const result: Record<string, unknown> = { currency: 'ZUSD', volume: fmt(volume, 4) };
    if (pairs.length > 0) {
      const fees: Record<string, FeeInfo> = {};
      const feesMaker: Record<string, FeeInfo> = {};
      for (const p of pairs) {
        fees[p.id] = feeInfo(ctx, p, p.fees, volume, false);
        feesMaker[p.id] = feeInfo(ctx, p, p.fees_maker, volume, true);
      }
      result['fees'] = fees;
      result['fees_maker'] = feesMaker;
    }
    return ok(result);
  },
};

export function accountRoutes(_ctx: SimContext): Route[] {
  return [
    balance,
    balanceEx,
    creditLines,
    tradeBalance,
    openOrders,
    closedOrders,
    queryOrders,
    tradesHistory,
    queryTrades,
    ledgers,
    queryLedgers,
    tradeVolume,
  ];
}
