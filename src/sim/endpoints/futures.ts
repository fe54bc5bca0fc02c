/**
 * Futures-host endpoints: the API key check, fills, and RFQ offer acceptance.
 *
 * Access: a simulator key's spot permissions stand for its futures access. `general` is
 * `FULL_ACCESS` with `orders-create`, else `READ_ONLY` with an order-query permission, else
 * `NO_ACCESS`; `transfer` is `FULL_ACCESS` with `funds-withdraw`, else `NO_ACCESS`. Fills need at
 * least read-only, RFQ acceptance full access; otherwise HTTP 403
 * `{result: 'error', error: 'insufficientPermissions', serverTime, errors: ['insufficientPermissions']}`.
 *
 * - Key check: `{apiKey, accountUid, iiban, createdAt, permissions: {general, transfer},
 *   allowedCidrBlock: '0.0.0.0/0', allowedCidrBlocks: ['0.0.0.0/0', '::/0']}` (simulator keys are
 *   not IP-restricted).
 * - Fills: each key has {@link FUTURES_FILL_COUNT} synthetic fills on PF_XBTUSD and PF_ETHUSD, one
 *   every ten minutes (± 3 min) going back from when the key was created, plus one per accepted
 *   RFQ. At most 100 per page, newest first; `lastFillTime` (ISO 8601) returns the 100 before
 *   it. An unparsable `lastFillTime` is HTTP 400 with `errors: [{code: 400, message}]`.
 * - RFQs: each key starts with three open RFQs, {@link futuresRfqsOf}(account) lists them with
 *   their uids and current bid and ask (USD). Accepting one with exactly one of
 *   `bidAccepted` (the caller sells at the bid) or `askAccepted` (buys at the ask), at exactly
 *   the offered price, closes it, records a taker fill and answers `{result: 'success',
 *   serverTime, rfqUid}`. Failures use the first error form `{result: 'error', serverTime,
 *   errors: [{code, message}]}` with the HTTP status as `code`: 400 both or neither price given
 *   or a price that is not a decimal, 404 no open RFQ with that uid for the caller (unknown,
 *   someone else's, or already accepted), 409 a price that is not the current offer.
 */
import { Decimal } from '../../core/index.js';
import type { SimContext } from '../context.js';
import { ok, raw, type Reply, type Route } from '../http/route.js';
import type { Account } from '../state/accounts.js';
import { callerOf, seededRandom } from './support.js';
import { stableUuid } from '../ids.js';

export const FUTURES_FILL_COUNT = 250;
const FILL_PAGE = 100;

type Access = 'FULL_ACCESS' | 'READ_ONLY' | 'NO_ACCESS';

interface Fill {
  readonly fill_id: string;
  readonly symbol: string;
  readonly side: 'buy' | 'sell';
  readonly order_id: string;
  readonly size: number;
  readonly price: number;
  readonly timeMs: number;
  readonly fillType: 'maker' | 'taker';
}

export interface FuturesRfq {
  readonly rfqUid: string;
  readonly symbol: string;
  readonly size: string;
  /** Current offer, USD. */
  readonly bid: string;
  readonly ask: string;
}

const SYMBOLS = [
  { symbol: 'PF_XBTUSD', price: 60000, tick: 0.5, lot: 0.0001 },
  { symbol: 'PF_ETHUSD', price: 3000, tick: 0.1, lot: 0.001 },
] as const;

/** The RFQs a key starts with (all open until accepted). */
export function futuresRfqsOf(account: Account): FuturesRfq[] {
  const rnd = seededRandom(`rfq:${account.key}`);
  const out: FuturesRfq[] = [];
  for (let i = 0; i < 3; i++) {
    const s = SYMBOLS[i % SYMBOLS.length] ?? SYMBOLS[0];
    const mid = new Decimal(Math.round((s.price * (0.98 + rnd() * 0.04)) / s.tick)).times(s.tick);
    const half = new Decimal(s.tick).times(2 + Math.floor(rnd() * 10));
    const size = new Decimal(Math.floor(1 + rnd() * 50)).times(s.symbol === 'PF_XBTUSD' ? 0.1 : 1);
    out.push({
      rfqUid: stableUuid(`rfq:${account.key}:${i}`),
      symbol: s.symbol,
      size: size.toFixed(),
      bid: mid.minus(half).toFixed(),
      ask: mid.plus(half).toFixed(),
    });
  }
  return out;
}

export function futuresAccess(account: Account): { general: Access; transfer: Access } {
  const p = account.permissions;
  const general: Access = p.has('orders-create')
    ? 'FULL_ACCESS'
    : p.has('orders-query-open') || p.has('orders-query-closed')
      ? 'READ_ONLY'
      : 'NO_ACCESS';
  return { general, transfer: p.has('funds-withdraw') ? 'FULL_ACCESS' : 'NO_ACCESS' };
}

export function futuresRoutes(_ctx: SimContext): Route[] {
  const fills = new Map<string, Fill[]>();
  const rfqs = new Map<string, Map<string, FuturesRfq>>();

  const fillsOf = (account: Account): Fill[] => {
    let f = fills.get(account.key);
    if (f === undefined) {
      f = seedFills(account);
      fills.set(account.key, f);
    }
    return f;
  };
  const rfqsOf = (account: Account): Map<string, FuturesRfq> => {
    let r = rfqs.get(account.key);
    if (r === undefined) {
      r = new Map(futuresRfqsOf(account).map((q) => [q.rfqUid, q]));
      rfqs.set(account.key, r);
    }
    return r;
  };

  const denied = (nowMs: number): Reply =>
    raw(403, {
      result: 'error',
      error: 'insufficientPermissions',
      serverTime: new Date(nowMs).toISOString(),
      errors: ['insufficientPermissions'],
    });
  const failure = (status: number, message: string, nowMs: number): Reply =>
    raw(status, {
      result: 'error',
      serverTime: new Date(nowMs).toISOString(),
      errors: [{ code: status, message }],
    });

  return [
    {
      family: 'futures',
      name: '/api/auth/v1/api-keys/v3/check',
      method: 'GET',
      handle: (req) => {
        const account = callerOf(req);
        return ok({
          apiKey: account.key,
          accountUid: account.accountUid,
          iiban: account.iiban,
          createdAt: new Date(account.createdAtMs).toISOString(),
          permissions: futuresAccess(account),
          allowedCidrBlock: '0.0.0.0/0',
          allowedCidrBlocks: ['0.0.0.0/0', '::/0'],
        });
      },
    },
    {
      family: 'futures',
      name: '/derivatives/api/v3/fills',
      method: 'GET',
      handle: (req) => {
        const account = callerOf(req);
        if (futuresAccess(account).general === 'NO_ACCESS') return denied(req.nowMs);
        const last = req.params.lastFillTime;
        let beforeMs = Number.POSITIVE_INFINITY;
        if (last !== undefined) {
          const parsed = typeof last === 'string' ? Date.parse(last) : Number.NaN;
          if (Number.isNaN(parsed)) return failure(400, 'Invalid lastFillTime', req.nowMs);
          beforeMs = parsed;
        }
        const page = fillsOf(account)
          .filter((f) => f.timeMs < beforeMs && f.timeMs <= req.nowMs)
          .sort((a, b) => b.timeMs - a.timeMs)
          .slice(0, FILL_PAGE)
          .map(({ timeMs, ...f }) => ({ ...f, fillTime: new Date(timeMs).toISOString() }));
        return ok({
          result: 'success',
          fills: page,
          serverTime: new Date(req.nowMs).toISOString(),
        });
      },
    },
    {
      family: 'futures',
      name: '/derivatives/api/v3/rfqs/open-rfqs/accept-offer/:rfqUid',
      method: 'POST',
      handle: (req) => {
        const account = callerOf(req);
        if (futuresAccess(account).general !== 'FULL_ACCESS') return denied(req.nowMs);
        const bid = req.params.bidAccepted;
        const ask = req.params.askAccepted;
        if ((bid === undefined) === (ask === undefined)) {
          return failure(
            400,
            'Exactly one of bidAccepted or askAccepted must be provided',
            req.nowMs,
          );
        }
        const field = bid === undefined ? 'askAccepted' : 'bidAccepted';
        const priceText = bid ?? ask;
        if (typeof priceText !== 'string' || !/^\d+(\.\d+)?$/.test(priceText)) {
          return failure(400, `Invalid ${field}`, req.nowMs);
        }
        const uid = req.pathParams.rfqUid ?? '';
        const open = rfqsOf(account);
        const rfq = open.get(uid);
        if (rfq === undefined) return failure(404, 'RFQ not found', req.nowMs);
        const offered = bid === undefined ? rfq.ask : rfq.bid;
        if (!new Decimal(priceText).eq(offered)) {
          return failure(409, `${field} does not match the current offer`, req.nowMs);
        }
        open.delete(uid);
        fillsOf(account).push({
          fill_id: stableUuid(`rfq-fill:${uid}`),
          symbol: rfq.symbol,
          side: bid === undefined ? 'buy' : 'sell',
          order_id: stableUuid(`rfq-order:${uid}`),
          size: Number(rfq.size),
          price: Number(offered),
          timeMs: req.nowMs,
          fillType: 'taker',
        });
        return ok({
          result: 'success',
          serverTime: new Date(req.nowMs).toISOString(),
          rfqUid: uid,
        });
      },
    },
  ];
}

function seedFills(account: Account): Fill[] {
  const rnd = seededRandom(`fills:${account.key}`);
  const out: Fill[] = [];
  for (let i = 0; i < FUTURES_FILL_COUNT; i++) {
    const s = SYMBOLS[Math.floor(rnd() * SYMBOLS.length)] ?? SYMBOLS[0];
    const price = new Decimal(Math.round((s.price * (0.97 + rnd() * 0.06)) / s.tick)).times(s.tick);
    const size = new Decimal(1 + Math.floor(rnd() * 200)).times(s.lot);
    out.push({
      fill_id: stableUuid(`fill:${account.key}:${i}`),
      symbol: s.symbol,
      side: rnd() < 0.5 ? 'buy' : 'sell',
      order_id: stableUuid(`fill-order:${account.key}:${Math.floor(i / 2)}`),
      size: Number(size.toFixed()),
      price: Number(price.toFixed()),
      timeMs: account.createdAtMs - (i + 1) * 600_000 + Math.floor((rnd() - 0.5) * 360_000),
      fillType: rnd() < 0.6 ? 'maker' : 'taker',
    });
  }
  return out;
}
