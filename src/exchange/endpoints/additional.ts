import { Type, type Static } from '@sinclair/typebox';
import { InvalidInputError } from '../../core/index.js';
import { Bool, Dec, Int, Num, OpenObject, Opt, Str } from './common.js';
import { custodyCall, futuresCall, privateForm, privateJson } from './define.js';

// ---- OTC spot trade history ---------------------------------------------------------------------

export const OtcTrade = Type.Object(
  {
    txid: Str,
    order_date: Int,
    base_asset: Str,
    quote_asset: Str,
    direction: Str,
    amount: Dec,
    price: Dec,
    total: Dec,
    amount_usd: Opt(Dec),
    base_settle_method: Opt(Str),
    quote_settle_method: Opt(Str),
  },
  { additionalProperties: true },
);
export type OtcTrade = Static<typeof OtcTrade>;
export interface OtcTradeHistoryRequest {
  readonly start_date: number;
  /** Strictly after start_date. */
  readonly end_date: number;
  readonly offset?: number;
  /** 0..1000; 0 or omitted gives 100. */
  readonly limit?: number;
}
export const getOtcSpotTradeHistory = privateJson<OtcTradeHistoryRequest>()(
  'GetOtcSpotTradeHistory',
  Type.Array(OtcTrade),
  { envelope: 'otc' },
);

// ---- Pay transfer -------------------------------------------------------------------------------

export interface PayTransferCreateRequest {
  readonly amount: string;
  readonly asset: string;
  readonly to: string;
  /** 1 to 16 bytes, base64 without padding, unique forever: store it before calling. */
  readonly external_id: string;
  readonly note?: string;
  readonly return_for?: string;
}
export const payTransferCreate = privateJson<PayTransferCreateRequest>()(
  'Pay/transfer/create',
  OpenObject,
  {
    kind: 'write',
    envelope: 'pay',
    nonceAs: 'string',
  },
);

// ---- Legacy withdrawal info ---------------------------------------------------------------------

export const withdrawInfo = privateForm<{ asset: string; key: string; amount: string }>()(
  'WithdrawInfo',
  Type.Object({ method: Str, limit: Dec, amount: Dec, fee: Dec }, { additionalProperties: true }),
);

// ---- Futures ------------------------------------------------------------------------------------

export const ApiKeyDetails = Type.Object(
  {
    apiKey: Str,
    accountUid: Str,
    iiban: Opt(Str),
    createdAt: Opt(Str),
    permissions: Opt(Type.Record(Str, Str)),
    allowedCidrBlock: Opt(Type.Union([Str, Type.Null()])),
    allowedCidrBlocks: Opt(Type.Array(Str)),
  },
  { additionalProperties: true },
);
export const futuresCheckApiKey = futuresCall<Record<string, never>>()(
  'futures api-keys check',
  '/api/auth/v1/api-keys/v3/check',
  ApiKeyDetails,
  { method: 'GET' },
);

export interface FuturesAcceptRfqOfferRequest {
  readonly rfqUid: string;
  /** Exactly one of bidAccepted and askAccepted, a USD price. */
  readonly bidAccepted?: string;
  readonly askAccepted?: string;
}
export const futuresAcceptRfqOffer = futuresCall<FuturesAcceptRfqOfferRequest>()(
  'futures accept-offer',
  '',
  Type.Object({ result: Str, serverTime: Str, rfqUid: Str }, { additionalProperties: true }),
  {
    method: 'POST',
    kind: 'write',
    pathParams: ['rfqUid'],
    path: (req: FuturesAcceptRfqOfferRequest) =>
      `/derivatives/api/v3/rfqs/open-rfqs/accept-offer/${encodeURIComponent(req.rfqUid)}`,
    check: (q: FuturesAcceptRfqOfferRequest) => {
      if ((q.bidAccepted === undefined) === (q.askAccepted === undefined)) {
        throw new InvalidInputError('bidAccepted/askAccepted', 'exactly one of them must be given');
      }
    },
  },
);

export const FuturesFill = Type.Object(
  {
    fill_id: Str,
    symbol: Str,
    side: Str,
    order_id: Str,
    size: Num,
    price: Num,
    fillTime: Str,
    fillType: Str,
  },
  { additionalProperties: true },
);
export const futuresFills = futuresCall<{ lastFillTime?: string }>()(
  'futures fills',
  '/derivatives/api/v3/fills',
  Type.Object(
    { result: Str, fills: Type.Array(FuturesFill), serverTime: Str },
    { additionalProperties: true },
  ),
  { method: 'GET' },
);

// ---- Custody ------------------------------------------------------------------------------------

export const CustodyWithdrawalMethod = Type.Object(
  {
    name: Str,
    method_id: Str,
    fee_amount: Dec,
    fee_asset: Str,
    fee_asset_class: Opt(Str),
    minimum: Dec,
    is_disabled: Bool,
    asset: Str,
    asset_class: Opt(Str),
    network_info: Opt(Type.Object({ network: Str, explorer: Str }, { additionalProperties: true })),
  },
  { additionalProperties: true },
);
export interface CustodyWithdrawalMethodsRequest {
  readonly vault_id: string;
  readonly asset?: string;
  /** Required when asset is given; only `currency`. */
  readonly asset_class?: 'currency';
}
export const custodyWithdrawalMethods = custodyCall<CustodyWithdrawalMethodsRequest>()(
  'custody withdrawal-methods',
  '',
  Type.Array(CustodyWithdrawalMethod),
  {
    method: 'GET',
    pathParams: ['vault_id'],
    path: (req: CustodyWithdrawalMethodsRequest) =>
      `/v0/insto/custody/vaults/${encodeURIComponent(req.vault_id)}/withdrawal-methods`,
    check: (q: CustodyWithdrawalMethodsRequest) => {
      if (q.asset !== undefined && q.asset_class === undefined) {
        throw new InvalidInputError('asset_class', 'is required when asset is given');
      }
    },
  },
);
