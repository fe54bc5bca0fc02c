import type { SimContext } from '../context.js';
import { ok, type Route } from '../http/route.js';
import type { SimAsset, SimPair } from '../markets.js';
import { invalidArguments } from '../errors.js';
import { oneOf, optList, optString } from './public-params.js';

/** Assets and pairs are spot currencies only; a tokenized-asset filter finds nothing. */
const ACLASSES = ['currency', 'tokenized_asset'] as const;
const PAIR_INFO = ['info', 'leverage', 'fees', 'margin'] as const;
const VENUES = ['international', 'partner_exchange'];

/** Time, SystemStatus, MaintenanceSchedule, Assets and AssetPairs. */
export function referenceRoutes(): Route[] {
  return [
    {
      family: 'public',
      name: 'Time',
      handle: (req) =>
        ok({ unixtime: Math.floor(req.nowMs / 1000), rfc1123: new Date(req.nowMs).toUTCString() }),
    },
    {
      family: 'public',
      name: 'SystemStatus',
      handle: (req, ctx) => ok(ctx.status.systemStatus(req.nowMs)),
    },
    {
      family: 'public',
      name: 'MaintenanceSchedule',
      handle: (req, ctx) => ok(ctx.status.maintenanceSchedule(req.nowMs)),
    },
    {
      family: 'public',
      name: 'Assets',
      handle: (req, ctx) => {
        const aclass = oneOf(req.params, 'aclass', ACLASSES, 'currency');
        const names = optList(req.params, 'asset');
        const wanted =
          names === undefined ? ctx.markets.assets : names.map((n) => ctx.markets.requireAsset(n));
        const result: Record<string, unknown> = {};
        if (aclass === 'currency') for (const a of wanted) result[a.id] = assetInfo(a);
        return ok(result);
      },
    },
    {
      family: 'public',
      name: 'AssetPairs',
      handle: (req, ctx) => ok(assetPairs(req.params, ctx)),
    },
  ];
}

function assetPairs(params: Readonly<Record<string, unknown>>, ctx: SimContext): unknown {
  const info = oneOf(params, 'info', PAIR_INFO, 'info');
  const aclassBase = oneOf(params, 'aclass_base', ACLASSES, 'currency');
  const country = optString(params, 'country_code');
  if (country !== undefined && !/^[A-Za-z]{2}$/.test(country)) {
    throw invalidArguments('country_code');
  }
  const venues = optList(params, 'execution_venue') ?? ['international'];
  if (venues.some((v) => !VENUES.includes(v))) throw invalidArguments('execution_venue');
  const names = optList(params, 'pair');
  const wanted =
    names === undefined ? ctx.markets.pairs : names.map((n) => ctx.markets.requirePair(n));
  // Every simulated pair is a currency pair on the international venue, open in every country.
  const listed = aclassBase === 'currency' && venues.includes('international');
  const result: Record<string, unknown> = {};
  if (listed) for (const p of wanted) result[p.id] = pairInfo(p, info);
  return result;
}

function assetInfo(a: SimAsset): Record<string, unknown> {
  return {
    aclass: 'currency',
    altname: a.altname,
    decimals: a.decimals,
    display_decimals: a.display_decimals,
    collateral_value: a.collateral_value,
    status: 'enabled',
  };
}

/**
 * The spec's Asset pair fields. The simulator has no margin trading, so leverage lists are empty
 * and position limits 0; margin_call/margin_stop carry the exchange's usual 80/40 levels.
 */
function pairInfo(p: SimPair, info: (typeof PAIR_INFO)[number]): Record<string, unknown> {
  const fees = {
    fees: p.fees.map(([v, pct]) => [v, pct]),
    fees_maker: p.fees_maker.map(([v, pct]) => [v, pct]),
    fee_volume_currency: 'ZUSD',
  };
  const leverage = { leverage_buy: [] as number[], leverage_sell: [] as number[] };
  const margin = { margin_call: 80, margin_stop: 40 };
  switch (info) {
    case 'leverage':
      return leverage;
    case 'fees':
      return fees;
    case 'margin':
      return margin;
    case 'info':
      return {
        altname: p.altname,
        wsname: p.wsname,
        aclass_base: 'currency',
        base: p.base,
        aclass_quote: 'currency',
        quote: p.quote,
        lot: 'unit',
        cost_decimals: p.cost_decimals,
        pair_decimals: p.pair_decimals,
        lot_decimals: p.lot_decimals,
        lot_multiplier: 1,
        ...leverage,
        ...fees,
        ...margin,
        ordermin: p.ordermin,
        costmin: p.costmin,
        tick_size: p.tick_size,
        status: 'online',
        long_position_limit: 0,
        short_position_limit: 0,
      };
  }
}
