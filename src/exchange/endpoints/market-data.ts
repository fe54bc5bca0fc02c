import { Type, type Static } from '@sinclair/typebox';
import { Dec, Int, MapOf, Num, Open, OpenObject, Opt, Str, type CommaList } from './common.js';
import { publicGet } from './define.js';

// ---- Time, SystemStatus, MaintenanceSchedule -------------------------------------------------

export const ServerTime = Type.Object({ unixtime: Int, rfc1123: Str });

export const MaintenanceEvent = Type.Object({
  event_id: Int,
  title: Str,
  expected_start_utc: Str,
  expected_end_utc: Str,
  time_to_start_s: Opt(Int),
  phase: Opt(Str),
  affected_services: Opt(Type.Array(Str)),
  order_submission: Opt(Str),
  recommended_action: Opt(Str),
  cancel_before_utc: Opt(Str),
  source_url: Opt(Str),
});
export type MaintenanceEvent = Static<typeof MaintenanceEvent>;

export const EmergencyEvent = Type.Object({
  event_id: Int,
  title: Str,
  incident_status: Str,
  impact: Opt(Str),
  affected_services: Opt(Type.Array(Str)),
  started_at_utc: Opt(Str),
  next_steps: Opt(
    Type.Array(
      Type.Object({ applies_to: Opt(Type.Array(Str)), type: Opt(Str), expected_at_utc: Opt(Str) }),
    ),
  ),
  source_url: Opt(Str),
});
export type EmergencyEvent = Static<typeof EmergencyEvent>;

export const SystemStatusResult = Type.Object({
  status: Type.Union([
    Type.Literal('online'),
    Type.Literal('maintenance'),
    Type.Literal('cancel_only'),
    Type.Literal('post_only'),
  ]),
  timestamp: Str,
  upcoming_maintenance: Opt(Type.Array(MaintenanceEvent)),
  emergency: Opt(Type.Array(EmergencyEvent)),
});
export type SystemStatusResult = Static<typeof SystemStatusResult>;
export type SystemMode = SystemStatusResult['status'];

export const MaintenanceScheduleResult = Type.Object({ events: Type.Array(MaintenanceEvent) });

export const time = publicGet<Record<string, never>>()('Time', ServerTime);
export const systemStatus = publicGet<Record<string, never>>()('SystemStatus', SystemStatusResult);
export const maintenanceSchedule = publicGet<Record<string, never>>()(
  'MaintenanceSchedule',
  MaintenanceScheduleResult,
);

// ---- Assets, AssetPairs ---------------------------------------------------------------------

export const Asset = Type.Object({
  aclass: Str,
  altname: Str,
  decimals: Int,
  display_decimals: Int,
  collateral_value: Opt(Num),
  status: Opt(Str),
});
export type Asset = Static<typeof Asset>;

export interface AssetsRequest {
  readonly asset?: CommaList;
  readonly aclass?: string;
}
export const assets = publicGet<AssetsRequest>()('Assets', MapOf(Asset));

export const AssetPair = Type.Object({
  altname: Str,
  wsname: Opt(Str),
  aclass_base: Opt(Str),
  base: Str,
  aclass_quote: Opt(Str),
  quote: Str,
  lot: Opt(Str),
  cost_decimals: Int,
  pair_decimals: Int,
  lot_decimals: Int,
  lot_multiplier: Opt(Int),
  leverage_buy: Opt(Type.Array(Int)),
  leverage_sell: Opt(Type.Array(Int)),
  fees: Opt(Type.Array(Open)),
  fees_maker: Opt(Type.Array(Open)),
  fee_volume_currency: Opt(Str),
  margin_call: Opt(Int),
  margin_stop: Opt(Int),
  ordermin: Str,
  costmin: Str,
  tick_size: Str,
  status: Opt(Str),
  long_position_limit: Opt(Int),
  short_position_limit: Opt(Int),
});
export type AssetPair = Static<typeof AssetPair>;

export interface AssetPairsRequest {
  readonly pair?: CommaList;
  readonly aclass_base?: 'currency' | 'tokenized_asset';
  readonly info?: 'info' | 'leverage' | 'fees' | 'margin';
  readonly country_code?: string;
  readonly execution_venue?: CommaList;
}
// `info=leverage|fees|margin` return partial objects: only `info` (the default) is checked strictly.
export const assetPairs = publicGet<AssetPairsRequest>()('AssetPairs', MapOf(AssetPair));
export const assetPairsPartial = publicGet<AssetPairsRequest>()('AssetPairs', MapOf(OpenObject));

// ---- Ticker, OHLC, Depth, GroupedBook, Trades, Spread ----------------------------------------

const Strs = Type.Array(Str);
export const TickerInfo = Type.Object({
  a: Strs,
  b: Strs,
  c: Strs,
  v: Strs,
  p: Strs,
  t: Type.Array(Num),
  l: Strs,
  h: Strs,
  o: Str,
});
export type TickerInfo = Static<typeof TickerInfo>;

export interface TickerRequest {
  readonly pair?: CommaList;
  readonly asset_class?: string;
}
export const ticker = publicGet<TickerRequest>()('Ticker', MapOf(TickerInfo));

/** `last` sits beside the per-pair rows in one map; these results split the two apart. */
function splitLast<Row, Last>(
  value: Record<string, unknown>,
): { pairs: Record<string, Row[]>; last: Last } {
  const pairs: Record<string, Row[]> = {};
  for (const [k, v] of Object.entries(value)) if (k !== 'last') pairs[k] = v as Row[];
  return { pairs, last: value.last as Last };
}

export const OhlcRow = Type.Tuple([Int, Dec, Dec, Dec, Dec, Dec, Dec, Int]);
export type OhlcRow = Static<typeof OhlcRow>;
const OhlcResult = Type.Intersect([
  Type.Object({ last: Int }),
  Type.Record(Type.String(), Type.Union([Type.Array(OhlcRow), Int])),
]);
export interface OhlcRequest {
  readonly pair: string;
  readonly interval?: 1 | 5 | 15 | 30 | 60 | 240 | 1440 | 10080 | 21600;
  readonly since?: number;
  readonly asset_class?: string;
}
export const ohlc = publicGet<OhlcRequest>()('OHLC', OhlcResult, {
  transform: (v) => splitLast<OhlcRow, number>(v),
});

/** A Depth entry with the spec's positions named. */
export interface BookLevel {
  readonly price: string;
  readonly volume: string;
  readonly timestamp: number;
}
export const DepthRow = Type.Tuple([Dec, Dec, Int]);
const DepthBook = Type.Object({ asks: Type.Array(DepthRow), bids: Type.Array(DepthRow) });
export interface DepthBook {
  readonly asks: BookLevel[];
  readonly bids: BookLevel[];
}
function levels(rows: readonly (readonly [string, string, number])[]): BookLevel[] {
  const out = new Array<BookLevel>(rows.length);
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i] as readonly [string, string, number];
    out[i] = { price: r[0], volume: r[1], timestamp: r[2] };
  }
  return out;
}
export interface DepthRequest {
  readonly pair: string;
  /** 1..500, default 100. */
  readonly count?: number;
  readonly asset_class?: string;
}
export const depth = publicGet<DepthRequest>()('Depth', MapOf(DepthBook), {
  transform: (v) => {
    const out: Record<string, DepthBook> = {};
    for (const [pair, book] of Object.entries(v)) {
      out[pair] = { asks: levels(book.asks), bids: levels(book.bids) };
    }
    return out;
  },
});

const PriceQty = Type.Object({ price: Dec, qty: Dec });
export const GroupedBookResult = Type.Object({
  pair: Str,
  grouping: Int,
  bids: Type.Array(PriceQty),
  asks: Type.Array(PriceQty),
});
export type GroupedBookResult = Static<typeof GroupedBookResult>;
export interface GroupedBookRequest {
  readonly pair: string;
  readonly depth?: 10 | 25 | 100 | 250 | 1000;
  readonly grouping?: 1 | 5 | 10 | 25 | 50 | 100 | 250 | 500 | 1000;
}
export const groupedBook = publicGet<GroupedBookRequest>()('GroupedBook', GroupedBookResult);

export const TradeRow = Type.Tuple([Dec, Dec, Num, Str, Str, Str, Int]);
export type TradeRow = Static<typeof TradeRow>;
const TradesResult = Type.Intersect([
  Type.Object({ last: Str }),
  Type.Record(Type.String(), Type.Union([Type.Array(TradeRow), Str])),
]);
export interface TradesRequest {
  readonly pair: string;
  readonly since?: string;
  /** 1..1000, default 1000. */
  readonly count?: number;
  readonly asset_class?: string;
}
export const trades = publicGet<TradesRequest>()('Trades', TradesResult, {
  transform: (v) => splitLast<TradeRow, string>(v),
});

export const SpreadRow = Type.Tuple([Int, Dec, Dec]);
export type SpreadRow = Static<typeof SpreadRow>;
const SpreadResult = Type.Intersect([
  Type.Object({ last: Int }),
  Type.Record(Type.String(), Type.Union([Type.Array(SpreadRow), Int])),
]);
export interface SpreadRequest {
  readonly pair: string;
  readonly since?: number;
  readonly asset_class?: string;
}
export const spread = publicGet<SpreadRequest>()('Spread', SpreadResult, {
  transform: (v) => splitLast<SpreadRow, number>(v),
});

// ---- NFT market data (shapes beyond the named fields are not shown) ---------------------------

export interface NftListRequest {
  readonly currency?: string;
  readonly cursor?: string;
  /** Filter object; its fields are not shown in the spec. Sent form-nested, `filter[field]=value`, as the
   * exchange family encodes objects in queries. */
  readonly filter?: Record<string, unknown>;
  readonly page_size?: number;
  readonly sort?: string;
}
export const nft = publicGet<{ nft_id: string; currency?: string }>()(
  'Nft',
  Type.Union([OpenObject, Type.Null()]),
);
export const nfts = publicGet<NftListRequest & { page_size: number }>()('Nfts', OpenObject);
export const nftProvenance = publicGet<{
  nft_id: string;
  currency?: string;
  page?: number;
  per_page?: number;
}>()(
  'NftProvenance',
  Type.Object({ items: Type.Array(Open), total: Num }, { additionalProperties: true }),
);
export const nftCollection = publicGet<{ collection_id: string; currency?: string }>()(
  'NftCollection',
  Type.Union([OpenObject, Type.Null()]),
);
export const nftCollections = publicGet<NftListRequest & { page_size: number }>()(
  'NftCollections',
  Type.Object(
    { total_items: Opt(Type.Object({ relation: Str, value: Num })), items: Type.Array(Open) },
    { additionalProperties: true },
  ),
);
export const nftCreator = publicGet<{ creator_id: string }>()(
  'NftCreator',
  Type.Union([OpenObject, Type.Null()]),
);
export const nftCreators = publicGet<NftListRequest>()('NftCreators', OpenObject);
