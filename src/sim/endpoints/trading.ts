import {
  cancelBatchPenalty,
  cancelPenalty,
  OTHER_LIMITS,
  penalty,
} from '../../exchange/limits/index.js';
import type { SimContext } from '../context.js';
import type { OrderSpec, SimOrder } from '../engine/types.js';
import { invalidArguments, SimError } from '../errors.js';
import { ok, type Route, type SimRequest } from '../http/route.js';
import type { SimPair } from '../markets.js';
import type { Account } from '../state/accounts.js';
import { chargeCancelAll } from '../state/deadman.js';
import {
  checkEditAgainst,
  isPostOnlyLimit,
  list,
  orderRef,
  parseAddOrder,
  parseAddOrderBatch,
  parseEditOrder,
  text,
} from './order-params.js';
import { addOrderDescr, describeOrder, fmt } from './render.js';

/**
 * Order entry and cancellation. Every handler runs the same gates in the same order: the system
 * status (the spec's mode table), then the request's fields (the deadline is judged against the
 * handling time), then the matching-engine ratecount of the (key, pair) as the spec's penalty
 * table prices the action, then the engine.
 *
 * A `validate=true` request passes every gate but the ratecount: the exchange does not say whether
 * a validation costs ratecount, and charging for a call that changes nothing would make a client
 * that checks its orders first pay twice. An order the engine then refuses (funds, ordermin...)
 * keeps its charge: the engine saw it, as the exchange's does.
 */

const CREATE = ['orders-create'] as const;
const CANCEL = ['orders-create', 'orders-cancel'] as const;

function accountOf(req: SimRequest): Account {
  if (req.account === undefined) throw new Error(`${req.name} reached without an account`);
  return req.account;
}

function ageMs(order: SimOrder, nowMs: number): number {
  return nowMs - order.opentmMs;
}

/** Exactly one open order by id or userref; a userref shared by several orders is ambiguous. */
function findOne(ctx: SimContext, account: Account, ref: string | number): SimOrder {
  const found = findOpen(ctx, account, ref);
  const [order] = found;
  if (order === undefined) throw new SimError('EOrder:Unknown order');
  if (found.length > 1) throw invalidArguments('txid');
  return order;
}

function findOpen(ctx: SimContext, account: Account, ref: string | number): SimOrder[] {
  return ctx.engine.find(account, ref).filter((o) => o.accountKey === account.key);
}

function groupByPair(orders: readonly SimOrder[]): Map<SimPair, SimOrder[]> {
  const byPair = new Map<SimPair, SimOrder[]>();
  for (const o of orders) {
    const group = byPair.get(o.pair);
    if (group === undefined) byPair.set(o.pair, [o]);
    else group.push(o);
  }
  return byPair;
}

// ---- AddOrder ---------------------------------------------------------------------------------

const addOrder: Route = {
  family: 'private',
  name: 'AddOrder',
  permission: CREATE,
  restCost: 0,
  handle(req, ctx) {
    const account = accountOf(req);
    ctx.status.checkAdd(isPostOnlyLimit(req.params));
    const { spec, validate } = parseAddOrder(req.params, ctx.markets, req.nowMs);
    if (validate) {
      const order = ctx.engine.place(account, spec, { validateOnly: true });
      return ok({ descr: addOrderDescr(order) });
    }
    ctx.limits.chargeOrderEntry(account, spec.pair, penalty('AddOrder', 0), req.nowMs);
    const order = ctx.engine.place(account, spec);
    return ok({ descr: addOrderDescr(order), txid: [order.txid] });
  },
};

// ---- AddOrderBatch ----------------------------------------------------------------------------

/**
 * One entry of AddOrderBatch's `orders`, in request order: `{txid, descr: {order}}` for a placed
 * order (`descr` alone under validate), `{error}` with the error string for a dropped one.
 */
export type BatchEntry =
  | { readonly txid: string; readonly descr: { order: string; close?: string } }
  | { readonly descr: { order: string; close?: string } }
  | { readonly error: string };

/**
 * The whole batch is refused in maintenance and cancel_only; in post_only the entries that are not
 * post-only limit orders are dropped with the mode's error and the rest go ahead. The ratecount
 * takes n/2 for the n orders the request carries (dropped ones included: the engine read them),
 * checked before anything is placed.
 */
const addOrderBatch: Route = {
  family: 'private',
  name: 'AddOrderBatch',
  permission: CREATE,
  restCost: 0,
  handle(req, ctx) {
    const account = accountOf(req);
    ctx.status.checkAdd(true);
    const batch = parseAddOrderBatch(req.params, ctx.markets, req.nowMs);
    const entries = batch.entries.map((entry, i): OrderSpec | SimError => {
      if (entry instanceof SimError) return entry;
      try {
        ctx.status.checkAdd(batch.postOnly[i] === true);
        return entry;
      } catch (err) {
        if (err instanceof SimError) return err;
        throw err;
      }
    });
    if (!batch.validate) {
      const points = penalty('AddOrderBatch', 0, entries.length);
      ctx.limits.chargeOrderEntry(account, batch.pair, points, req.nowMs);
    }
    const specs = entries.filter((e): e is OrderSpec => !(e instanceof SimError));
    const placed = ctx.engine.placeBatch(account, specs, { validateOnly: batch.validate });
    let next = 0;
    const orders = entries.map((entry): BatchEntry => {
      const result = entry instanceof SimError ? entry : placed[next++];
      if (result === undefined) throw new Error('engine returned fewer batch results than orders');
      if (result instanceof SimError) return { error: result.errorString };
      const descr = addOrderDescr(result);
      return batch.validate ? { descr } : { txid: result.txid, descr };
    });
    return ok({ orders });
  },
};

// ---- EditOrder --------------------------------------------------------------------------------

/**
 * EditOrder. `txid` names one open order (by id, or by a userref only that order carries); it must
 * be on `pair`. The ratecount is charged by the age of the order being replaced. The result is
 * the replacement's: `{descr, txid, originaltxid, volume, price, price2, orders_cancelled,
 * status}`; under validate there is no `txid` and `orders_cancelled` is 0.
 */
const editOrder: Route = {
  family: 'private',
  name: 'EditOrder',
  permission: CREATE,
  restCost: 0,
  handle(req, ctx) {
    const account = accountOf(req);
    ctx.status.checkAdd(text(req.params, 'oflags')?.split(',').includes('post') === true);
    const edit = parseEditOrder(req.params, ctx.markets, req.nowMs);
    const order = findOne(ctx, account, edit.target);
    if (order.pair !== edit.pair) throw invalidArguments('pair');
    checkEditAgainst(order.spec.ordertype, edit.changes);
    ctx.status.checkAdd(order.spec.ordertype === 'limit' && edit.changes.post);
    if (!edit.validate) {
      const points = penalty('EditOrder', ageMs(order, req.nowMs));
      ctx.limits.chargeOrderEntry(account, order.pair, points, req.nowMs);
    }
    const replacement = ctx.engine.edit(account, order, edit.changes, {
      validateOnly: edit.validate,
    });
    const d = describeOrder(replacement);
    return ok({
      descr: { order: d.order },
      ...(edit.validate ? {} : { txid: replacement.txid }),
      originaltxid: order.txid,
      volume: fmt(replacement.spec.volume, replacement.pair.lot_decimals),
      price: d.price,
      price2: d.price2,
      orders_cancelled: edit.validate ? 0 : 1,
      status: 'ok',
    });
  },
};

// ---- cancellation -------------------------------------------------------------------------------

/**
 * CancelOrder by id, or by userref (every open order carrying it). Each order costs its age's
 * penalty on its pair; all of them must fit, or nothing is cancelled.
 */
const cancelOrder: Route = {
  family: 'private',
  name: 'CancelOrder',
  permission: CANCEL,
  restCost: 0,
  handle(req, ctx) {
    const account = accountOf(req);
    ctx.status.checkCancel();
    const raw = req.params['txid'];
    if (raw === undefined || raw === null || raw === '') throw invalidArguments('txid');
    const orders = findOpen(ctx, account, orderRef(raw, 'txid'));
    if (orders.length === 0) throw new SimError('EOrder:Unknown order');
    const charges = [...groupByPair(orders)].map(([pair, group]) => ({
      pair,
      points: group.reduce((sum, o) => sum + cancelPenalty(ageMs(o, req.nowMs)), 0),
    }));
    for (const { pair, points } of charges) {
      if (!ctx.limits.fits(account, pair, points, req.nowMs)) {
        throw new SimError('EOrder:Rate limit exceeded');
      }
    }
    for (const { pair, points } of charges) {
      ctx.limits.chargeOrderEntry(account, pair, points, req.nowMs);
    }
    for (const o of orders) ctx.engine.cancel(account, o);
    return ok({ count: orders.length });
  },
};

const cancelAll: Route = {
  family: 'private',
  name: 'CancelAll',
  permission: CANCEL,
  restCost: 1,
  handle(req, ctx) {
    const account = accountOf(req);
    ctx.status.checkCancel();
    const cancelled = ctx.engine.cancelAll(account);
    chargeCancelAll(ctx.limits, account, cancelled, req.nowMs);
    return ok({ count: cancelled.length });
  },
};

/** `timeout`: whole seconds, 0 (disarm) up to 86399. */
const cancelAllOrdersAfter: Route = {
  family: 'private',
  name: 'CancelAllOrdersAfter',
  permission: CANCEL,
  restCost: 1,
  handle(req, ctx) {
    const account = accountOf(req);
    ctx.status.checkCancel();
    const raw = text(req.params, 'timeout');
    if (raw === undefined || !/^\d+$/.test(raw)) throw invalidArguments('timeout');
    const timeout = Number(raw);
    if (timeout >= OTHER_LIMITS.cancelAllOrdersAfterTimeoutBelowSec) {
      throw invalidArguments('timeout');
    }
    return ok(ctx.deadman.arm(account, timeout, req.nowMs));
  },
};

/**
 * CancelOrderBatch: `orders` holds order ids or userrefs (JSON strings or integers, or
 * `{txid}` objects as some clients send them), at most 50 unique. References that match no open
 * order are skipped, so `count` is what was actually cancelled (0 when nothing matched). The
 * penalty is the orders' age penalties summed per pair and capped at the tier max; it is added
 * even past the max and the batch is always accepted, as the spec says.
 */
const cancelOrderBatch: Route = {
  family: 'private',
  name: 'CancelOrderBatch',
  permission: CANCEL,
  restCost: 0,
  handle(req, ctx) {
    const account = accountOf(req);
    ctx.status.checkCancel();
    const raws = list(req.params, 'orders');
    if (raws === undefined || raws.length === 0) throw invalidArguments('orders');
    const refs = new Map<string, string | number>();
    for (const raw of raws) {
      const value =
        typeof raw === 'object' && raw !== null && !Array.isArray(raw)
          ? (raw as Record<string, unknown>)['txid']
          : raw;
      const ref = orderRef(value, 'orders');
      refs.set(`${typeof ref}:${ref}`, ref);
    }
    if (refs.size > OTHER_LIMITS.cancelOrderBatchMaxIds) throw invalidArguments('orders');
    const orders = new Map<string, SimOrder>();
    for (const ref of refs.values()) {
      for (const o of findOpen(ctx, account, ref)) orders.set(o.txid, o);
    }
    for (const [pair, group] of groupByPair([...orders.values()])) {
      const max = ctx.limits.ratecount(account, pair).max;
      const points = cancelBatchPenalty(
        group.map((o) => ageMs(o, req.nowMs)),
        max,
      );
      ctx.limits.addPenalty(account, pair, points, req.nowMs);
    }
    for (const o of orders.values()) ctx.engine.cancel(account, o);
    return ok({ count: orders.size });
  },
};

export function tradingRoutes(_ctx: SimContext): Route[] {
  return [
    addOrder,
    addOrderBatch,
    editOrder,
    cancelOrder,
    cancelAll,
    cancelAllOrdersAfter,
    cancelOrderBatch,
  ];
}
