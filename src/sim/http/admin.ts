import type { IncomingMessage, ServerResponse } from 'node:http';
import { Type } from '@sinclair/typebox';
import { InvalidInputError, parseWithSchema, toWire } from '../../core/index.js';
import { TIERS } from '../../exchange/limits/index.js';
import type { SimContext } from '../context.js';
import type { SimOrder } from '../engine/types.js';
import type { Account } from '../state/accounts.js';
import { PERMISSIONS } from '../state/permissions.js';
import { send } from './json.js';

const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);

const AccountBody = Type.Object({
  key: Type.String({ minLength: 1 }),
  secret: Type.String({ minLength: 4, pattern: '^[A-Za-z0-9+/]+={0,2}$' }),
  tier: Type.Optional(Type.Union(TIERS.map((t) => Type.Literal(t)))),
  permissions: Type.Optional(Type.Array(Type.Union(PERMISSIONS.map((p) => Type.Literal(p))))),
  balances: Type.Optional(
    Type.Record(Type.String(), Type.String({ pattern: '^[0-9]+(\\.[0-9]+)?$' })),
  ),
  nonce_window: Type.Optional(Type.Integer({ minimum: 0 })),
  otp: Type.Optional(Type.String()),
});

const MarketBody = Type.Object({
  /** `pause` stops the background participants, `resume` restarts them. */
  background: Type.Optional(Type.Union([Type.Literal('pause'), Type.Literal('resume')])),
  /** Pair id, altname or wsname → new fair value. */
  fair_value: Type.Optional(
    Type.Record(Type.String(), Type.String({ pattern: '^[0-9]+(\\.[0-9]+)?$' })),
  ),
});

/**
 * The simulator's own control surface under /_sim/, loopback only: inspect state (all of it, or
 * one key's open orders, and with &closed=1 its closed ones: GET /_sim/orders?key=), set the system status, inject faults, manage
 * keys, steer the background market. JSON in, JSON out; a bad body
 * is HTTP 400 naming the field.
 */
export function handleAdmin(
  ctx: SimContext,
  rejections: ReadonlyMap<string, number>,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  rawBody: Buffer,
): void {
  if (!LOOPBACK.has(req.socket.remoteAddress ?? '')) {
    send(res, 403, { error: 'the admin API answers loopback clients only' });
    return;
  }
  const nowMs = ctx.clock.now();
  try {
    const route = `${req.method ?? 'GET'} ${path}`;
    if (route === 'GET /_sim/state') {
      send(res, 200, state(ctx, rejections, nowMs));
      return;
    }
    if (route === 'GET /_sim/orders') {
      const query = new URLSearchParams(queryOf(req.url));
      const key = query.get('key') ?? '';
      if (key === '') throw new InvalidInputError('key', 'is required (?key=<api key>)');
      const account = ctx.accounts.get(key);
      if (account === undefined || account.kind === 'background') {
        send(res, 404, { error: 'no such key', field: 'key' });
        return;
      }
      send(res, 200, {
        time: nowMs / 1000,
        key,
        open_orders: ctx.engine.openOrders(account).map((o) => openOrderRow(account, o)),
        ...(query.get('closed') === '1'
          ? { closed_orders: ctx.engine.closedOrders(account).map((o) => openOrderRow(account, o)) }
          : {}),
      });
      return;
    }
    const body = parseJson(rawBody);
    switch (route) {
      case 'POST /_sim/status':
        ctx.status.update(body, nowMs);
        send(res, 200, ctx.status.systemStatus(nowMs));
        return;
      case 'POST /_sim/faults':
        if (isEmpty(body)) ctx.faults.clear();
        else ctx.faults.set(body);
        send(res, 200, { rules: ctx.faults.rules });
        return;
      case 'POST /_sim/accounts': {
        const a = parseWithSchema(AccountBody, body, 'account');
        for (const asset of Object.keys(a.balances ?? {})) {
          if (ctx.markets.asset(asset) === undefined) {
            throw new InvalidInputError(`account.balances.${asset}`, 'unknown asset');
          }
        }
        const account = ctx.accounts.upsert(
          {
            key: a.key,
            secret: a.secret,
            ...(a.tier === undefined ? {} : { tier: a.tier }),
            ...(a.permissions === undefined ? {} : { permissions: a.permissions }),
            ...(a.balances === undefined ? {} : { balances: a.balances }),
            ...(a.nonce_window === undefined ? {} : { nonceWindow: a.nonce_window }),
            ...(a.otp === undefined ? {} : { otp: a.otp }),
          },
          nowMs,
        );
        send(res, 200, {
          key: account.key,
          tier: account.tier,
          permissions: [...account.permissions],
        });
        return;
      }
      case 'POST /_sim/market': {
        const m = parseWithSchema(MarketBody, body, 'market');
        for (const [name, price] of Object.entries(m.fair_value ?? {})) {
          const pair = ctx.markets.pair(name);
          if (pair === undefined)
            throw new InvalidInputError(`market.fair_value.${name}`, 'unknown pair');
          ctx.background.setFairValue(pair.id, price);
        }
        if (m.background === 'pause') ctx.background.pause();
        if (m.background === 'resume') ctx.background.resume();
        send(res, 200, {
          background: ctx.background.running ? 'running' : 'paused',
          fair_value: Object.fromEntries(
            ctx.markets.pairs.map((p) => [p.id, ctx.background.fairValue(p.id)]),
          ),
        });
        return;
      }
      default:
        send(res, 404, { error: `no admin route ${route}` });
    }
  } catch (err) {
    if (err instanceof InvalidInputError) send(res, 400, { error: err.message, field: err.field });
    else send(res, 500, { error: (err as Error).message });
  }
}

function state(
  ctx: SimContext,
  rejections: ReadonlyMap<string, number>,
  nowMs: number,
): Record<string, unknown> {
  const users = ctx.accounts.all().filter((a) => a.kind !== 'background');
  const openOrders = users.flatMap((account) =>
    ctx.engine.openOrders(account).map((o) => openOrderRow(account, o)),
  );
  const limits = ctx.limits.snapshot(users, nowMs);
  return {
    time: nowMs / 1000,
    status: ctx.status.mode,
    open_orders: openOrders,
    rest_counter: limits.rest,
    ratecount: limits.ratecount,
    rejections: Object.fromEntries(rejections),
    balances: Object.fromEntries(
      users.map((a) => [
        a.key,
        Object.fromEntries(
          a.wallet.assets().map((asset) => [
            asset,
            {
              balance: toWire(a.wallet.balance(asset)),
              hold_trade: toWire(a.wallet.hold(asset)),
            },
          ]),
        ),
      ]),
    ),
    trade_count: users.reduce((n, a) => n + ctx.engine.trades(a).length, 0),
    dead_man: Object.fromEntries(
      users.flatMap((a) => {
        const at = ctx.deadman.triggerAt(a.key);
        return at === undefined ? [] : [[a.key, { trigger_at: at / 1000 }]];
      }),
    ),
    dead_man_firings: ctx.deadman.firings,
    faults: { rules: ctx.faults.rules, counts: ctx.faults.counts },
    background: ctx.background.running ? 'running' : 'paused',
  };
}

/** One order as /_sim/state and /_sim/orders show it. */
function openOrderRow(account: Account, o: SimOrder): Record<string, unknown> {
  return {
    txid: o.txid,
    key: account.key,
    pair: o.pair.id,
    side: o.spec.side,
    ordertype: o.spec.ordertype,
    status: o.status,
    price: o.limitPrice === undefined ? null : o.limitPrice.toFixed(o.pair.pair_decimals),
    volume: toWire(o.spec.volume),
    vol_exec: toWire(o.volExec),
    userref: o.spec.userref,
    opentm: o.opentmMs / 1000,
  };
}

function queryOf(url: string | undefined): string {
  const q = url?.indexOf('?') ?? -1;
  return q === -1 || url === undefined ? '' : url.slice(q + 1);
}

function parseJson(raw: Buffer): unknown {
  if (raw.length === 0) return {};
  try {
    return JSON.parse(raw.toString('utf8')) as unknown;
  } catch {
    throw new InvalidInputError('body', 'is not valid JSON');
  }
}

function isEmpty(body: unknown): boolean {
  return typeof body === 'object' && body !== null && Object.keys(body).length === 0;
}
