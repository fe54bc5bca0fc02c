import { Type, type Static } from '@sinclair/typebox';
import {
  Dec,
  Int,
  MapOf,
  Num,
  OpenObject,
  Opt,
  Str,
  type AccountScoped,
  type CommaList,
  type RebaseScoped,
} from './common.js';
import { privateForm, privateJson } from './define.js';

// ---- Level3 (JSON body, nanosecond timestamps kept exact) -------------------------------------

export interface Level3Entry {
  readonly price: string;
  readonly qty: string;
  readonly order_id: string;
  /** Nanoseconds since the epoch: beyond 2^53, so a bigint. */
  readonly timestamp: bigint;
}
const L3Raw = Type.Object({
  price: Dec,
  qty: Dec,
  order_id: Str,
  timestamp: Type.Union([Type.BigInt(), Type.Integer()]),
});
const Level3Raw = Type.Object({ pair: Str, bids: Type.Array(L3Raw), asks: Type.Array(L3Raw) });
export interface Level3Result {
  readonly pair: string;
  readonly bids: Level3Entry[];
  readonly asks: Level3Entry[];
}
function l3(rows: Static<typeof L3Raw>[]): Level3Entry[] {
  // The exact parser made every timestamp past 2^53 a bigint already; copying each order to
  // convert nothing was 5 % of a Level3 call. Only a timestamp small enough to be a number changes.
  for (const r of rows) if (typeof r.timestamp !== 'bigint') r.timestamp = BigInt(r.timestamp);
  return rows as Level3Entry[];
}
export interface Level3Request {
  readonly pair: string;
  /** 0 (full book), 10, 25, 100 (default), 250, 1000. */
  readonly depth?: 0 | 10 | 25 | 100 | 250 | 1000;
}
export const level3 = privateJson<Level3Request>()('Level3', Level3Raw, {
  bigInts: true,
  transform: (v): Level3Result => ({ pair: v.pair, bids: l3(v.bids), asks: l3(v.asks) }),
});

// ---- Balances ---------------------------------------------------------------------------------

type BalanceRequest = RebaseScoped & AccountScoped;
export const balance = privateForm<BalanceRequest>()('Balance', MapOf(Dec));

export const BalanceExEntry = Type.Object({
  balance: Dec,
  hold_trade: Dec,
  credit: Opt(Dec),
  credit_used: Opt(Dec),
});
export type BalanceExEntry = Static<typeof BalanceExEntry>;
export const balanceEx = privateForm<BalanceRequest>()('BalanceEx', MapOf(BalanceExEntry));

export const creditLines = privateForm<BalanceRequest>()(
  'CreditLines',
  Type.Object(
    {
      asset_details: MapOf(
        Type.Object({ balance: Dec, hold_trade: Dec, credit: Dec, credit_used: Dec }),
      ),
      limits_monitor: Type.Object({
        total_credit_usd: Dec,
        total_credit_used_usd: Dec,
        total_collateral_value_usd: Dec,
        equity_usd: Dec,
        ongoing_balance: Dec,
        debt_to_equity: Dec,
      }),
    },
    { additionalProperties: true },
  ),
);

export interface TradeBalanceRequest extends AccountScoped {
  /** Base asset for the figures; its default is not shown. */
  readonly asset?: string;
}
export const tradeBalance = privateForm<TradeBalanceRequest>()(
  'TradeBalance',
  Type.Object(
    {
      eb: Dec,
      tb: Dec,
      m: Dec,
      n: Dec,
      c: Dec,
      v: Dec,
      e: Dec,
      mf: Dec,
      ml: Opt(Dec),
      uv: Opt(Dec),
    },
    { additionalProperties: true },
  ),
);

// ---- Orders -----------------------------------------------------------------------------------

export const OrderDescr = Type.Object(
  {
    pair: Str,
    type: Str,
    ordertype: Str,
    price: Dec,
    price2: Dec,
    leverage: Str,
    order: Str,
    close: Str,
  },
  { additionalProperties: true },
);
export const Order = Type.Object(
  {
    refid: Type.Union([Str, Type.Null()]),
    userref: Type.Union([Int, Type.Null()]),
    status: Str,
    reason: Opt(Type.Union([Str, Type.Null()])),
    opentm: Num,
    closetm: Opt(Num),
    starttm: Num,
    expiretm: Num,
    descr: OrderDescr,
    vol: Dec,
    vol_exec: Dec,
    cost: Dec,
    fee: Dec,
    price: Dec,
    stopprice: Dec,
    limitprice: Dec,
    misc: Str,
    oflags: Str,
    trades: Opt(Type.Array(Str)),
    trigger: Opt(Str),
  },
  { additionalProperties: true },
);
export type Order = Static<typeof Order>;

interface OrderQueryCommon extends AccountScoped {
  readonly trades?: boolean;
  readonly userref?: number;
  readonly consolidate_taker?: boolean;
}
export type OpenOrdersRequest = OrderQueryCommon;
export const openOrders = privateForm<OpenOrdersRequest>()(
  'OpenOrders',
  Type.Object({ open: MapOf(Order) }),
);

export interface ClosedOrdersRequest extends OrderQueryCommon {
  /** Unix time or an order id (its `opentm` is used). */
  readonly start?: string | number;
  readonly end?: string | number;
  readonly ofs?: number;
  readonly closetime?: 'open' | 'close' | 'both';
}
export const closedOrders = privateForm<ClosedOrdersRequest>()(
  'ClosedOrders',
  Type.Object({ closed: MapOf(Order), count: Int }),
);

export interface QueryOrdersRequest extends OrderQueryCommon {
  /** Order ids (comma list). */
  readonly txid: CommaList;
}
export const queryOrders = privateForm<QueryOrdersRequest>()('QueryOrders', MapOf(Order));

export interface TradeVolumeRequest {
  readonly pair?: CommaList;
}
export const TradeVolumeResult = Type.Object(
  {
    currency: Str,
    volume: Dec,
    fees: Opt(MapOf(OpenObject)),
    fees_maker: Opt(MapOf(OpenObject)),
  },
  { additionalProperties: true },
);
export type TradeVolumeResult = Static<typeof TradeVolumeResult>;
export const tradeVolume = privateForm<TradeVolumeRequest>()('TradeVolume', TradeVolumeResult);

// ---- Trade and ledger history: shapes not shown; ledger and trade-history calls cost 2 ---------

/** Request fields not shown in the spec: any documented parameter passes through. */
export type OpenRequest = Record<string, string | number | boolean | readonly string[] | undefined>;

export const tradesHistory = privateForm<OpenRequest>()('TradesHistory', OpenObject, {
  restCost: 2,
});
export const queryTrades = privateForm<OpenRequest & { txid?: CommaList }>()(
  'QueryTrades',
  OpenObject,
  {
    restCost: 2,
  },
);
export const ledgers = privateForm<OpenRequest>()('Ledgers', OpenObject, { restCost: 2 });
