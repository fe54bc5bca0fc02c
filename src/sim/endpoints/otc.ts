/**
 * GetOtcSpotTradeHistory (JSON body, permission `orders-query-open`).
 *
 * Every key has a synthetic OTC history, derived from its key so it is the same on every run:
 * {@link OTC_HISTORY_SIZE} booked trades on the USD-quoted pairs, one every 8 hours (± 2 h) going
 * back from the moment the key was created, prices within ±5 % of the pair's initial price. One
 * record in ten is marked deleted or not a client trade and is never returned, as the spec says.
 *
 * `start_date` and `end_date` (Unix seconds, both inclusive) select by `order_date`; records come
 * newest first, from `offset`, at most `limit` (0 or omitted → 100, above 1000 → 1000).
 *
 * Refusals: a missing, non-integer or negative field answers both error forms at once, with
 * HTTP 200: `{error: ['EGeneral:Invalid arguments'], errors: [{field, value, type, msg:
 * 'Invalid arguments', severity: 'E', errorClass: 'General'}]}` (`type` is `missing`,
 * `not_integer` or `negative`), so a client reading either form understands it. `end_date` not
 * after `start_date` is the plain `EGeneral:Invalid arguments`.
 */
import { Decimal, toWire } from '../../core/index.js';
import type { SimContext } from '../context.js';
import { SimError } from '../errors.js';
import { ok, raw, type Reply, type Route } from '../http/route.js';
import type { Account } from '../state/accounts.js';
import { callerOf, seededRandom } from './support.js';
import { stableRef } from '../ids.js';

export const OTC_HISTORY_SIZE = 250;
const SPACING_MS = 8 * 3600_000;

interface OtcRecord {
  readonly txid: string;
  readonly orderDateMs: number;
  readonly base: string;
  readonly quote: string;
  readonly direction: 'buy' | 'sell';
  readonly amount: Decimal;
  readonly price: Decimal;
  readonly total: Decimal;
  readonly amountUsd: Decimal | undefined;
  /** Deleted, or not a client trade: stored, never returned. */
  readonly hidden: boolean;
}

class FieldError extends Error {
  constructor(
    readonly field: string,
    readonly value: unknown,
    readonly type: 'missing' | 'not_integer' | 'negative',
  ) {
    super(`${field}: ${type}`);
  }
}

function integer(params: Readonly<Record<string, unknown>>, field: string): number | undefined {
  const v = params[field];
  if (v === undefined || v === null) return undefined;
  let n: number;
  if (typeof v === 'number') n = v;
  else if (typeof v === 'string' && /^-?\d{1,16}$/.test(v)) n = Number(v);
  else throw new FieldError(field, v, 'not_integer');
  if (!Number.isSafeInteger(n)) throw new FieldError(field, v, 'not_integer');
  if (n < 0) throw new FieldError(field, v, 'negative');
  return n;
}

export function otcRoutes(ctx: SimContext): Route[] {
  const histories = new Map<string, OtcRecord[]>();
  const historyOf = (account: Account): OtcRecord[] => {
    let h = histories.get(account.key);
    if (h === undefined) {
      h = seedHistory(ctx, account);
      histories.set(account.key, h);
    }
    return h;
  };

  return [
    {
      family: 'private',
      name: 'GetOtcSpotTradeHistory',
      permission: ['orders-query-open'],
      handle: (req): Reply => {
        const account = callerOf(req);
        let start: number, end: number, offset: number, limit: number;
        try {
          const s = integer(req.params, 'start_date');
          if (s === undefined) throw new FieldError('start_date', null, 'missing');
          const e = integer(req.params, 'end_date');
          if (e === undefined) throw new FieldError('end_date', null, 'missing');
          start = s;
          end = e;
          offset = integer(req.params, 'offset') ?? 0;
          limit = integer(req.params, 'limit') ?? 0;
        } catch (err) {
          if (!(err instanceof FieldError)) throw err;
          return raw(200, {
            error: ['EGeneral:Invalid arguments'],
            errors: [
              {
                field: err.field,
                value: err.value,
                type: err.type,
                msg: 'Invalid arguments',
                severity: 'E',
                errorClass: 'General',
              },
            ],
          });
        }
        if (end <= start) throw new SimError('EGeneral:Invalid arguments');
        if (limit === 0) limit = 100;
        limit = Math.min(limit, 1000);
        const fromMs = start * 1000;
        const toMs = end * 1000 + 999;
        const records = historyOf(account)
          .filter((r) => !r.hidden && r.orderDateMs >= fromMs && r.orderDateMs <= toMs)
          .slice(offset, offset + limit)
          .map((r) => ({
            txid: r.txid,
            order_date: r.orderDateMs,
            base_asset: r.base,
            quote_asset: r.quote,
            direction: r.direction,
            amount: toWire(r.amount),
            price: toWire(r.price),
            total: toWire(r.total),
            ...(r.amountUsd === undefined ? {} : { amount_usd: toWire(r.amountUsd) }),
            base_settle_method: 'internal_transfer',
            quote_settle_method: 'internal_transfer',
          }));
        return ok(records);
      },
    },
  ];
}

/** Newest first. */
function seedHistory(ctx: SimContext, account: Account): OtcRecord[] {
  const usd = ctx.markets.pairs.filter((p) => p.quote === 'ZUSD');
  const pairs = usd.length > 0 ? usd : ctx.markets.pairs;
  const rnd = seededRandom(`otc:${account.key}`);
  const out: OtcRecord[] = [];
  if (pairs.length === 0) return out;
  for (let i = 0; i < OTC_HISTORY_SIZE; i++) {
    const pair = pairs[Math.floor(rnd() * pairs.length)] ?? pairs[0];
    if (pair === undefined) break;
    const base = ctx.markets.asset(pair.base);
    const quote = ctx.markets.asset(pair.quote);
    const price = pair.initialPrice
      .times(new Decimal(0.95).plus(new Decimal(Math.floor(rnd() * 10000)).div(100000)))
      .toDecimalPlaces(pair.pair_decimals, Decimal.ROUND_HALF_EVEN);
    // OTC tickets are large: roughly 100k to 2M USD of notional.
    const notional = new Decimal(100000 + Math.floor(rnd() * 1900000));
    const amount = notional.div(price).toDecimalPlaces(4, Decimal.ROUND_DOWN);
    const total = amount
      .times(price)
      .toDecimalPlaces(quote?.decimals ?? 4, Decimal.ROUND_HALF_EVEN);
    const jitter = Math.floor((rnd() - 0.5) * 4 * 3600_000);
    out.push({
      txid: stableRef('O', `otc:${account.key}:${i}`),
      orderDateMs: account.createdAtMs - (i + 1) * SPACING_MS + jitter,
      base: base?.altname ?? pair.base,
      quote: quote?.altname ?? pair.quote,
      direction: rnd() < 0.5 ? 'buy' : 'sell',
      amount,
      price,
      total,
      amountUsd: pair.quote === 'ZUSD' ? total : undefined,
      hidden: i % 10 === 7,
    });
  }
  return out.sort((a, b) => b.orderDateMs - a.orderDateMs);
}
