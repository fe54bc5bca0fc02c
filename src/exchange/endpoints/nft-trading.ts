import { Type } from '@sinclair/typebox';
import { Open, OpenObject, Str } from './common.js';
import { privateJson } from './define.js';

export interface NftCreateAuctionRequest {
  readonly auction_currency: string;
  readonly auction_params: Record<string, unknown>;
  readonly auction_type: 'ascending' | 'descending' | 'fixed';
  readonly nft_id: readonly string[];
  readonly offer_id?: string;
  readonly start_time?: number;
}
export const nftCreateAuction = privateJson<NftCreateAuctionRequest>()(
  'NftCreateAuction',
  Type.Object({ auction_id: Str }, { additionalProperties: true }),
  { kind: 'write' },
);

export interface NftModifyAuctionRequest {
  readonly auction_id: string;
  readonly ask_price?: string;
  /** The reserve-price field's name is not shown in the spec: pass it here by name. */
  readonly [reserveField: string]: string | undefined;
}
export const nftModifyAuction = privateJson<NftModifyAuctionRequest>()(
  'NftModifyAuction',
  Type.Object({ auction_id: Str }, { additionalProperties: true }),
  { kind: 'write' },
);

export const nftCancelAuction = privateJson<{ auction_ids: readonly string[] }>()(
  'NftCancelAuction',
  Type.Object({ statuses: Type.Array(Open) }, { additionalProperties: true }),
  { kind: 'write' },
);

export interface NftPlaceOfferRequest {
  readonly nft_id: readonly string[];
  /** The offer amount field; its wire name is not shown beyond "offer amount". */
  readonly offer_amount: string;
  readonly offer_currency: string;
  readonly expire_time?: number;
  readonly quote_id?: string;
}
/**
 * The spec does not show this operation's path. `/0/private/NftPlaceOffer` follows the naming of
 * its siblings; a venue that differs is reached through the client's `pathOverrides`.
 */
export const nftPlaceOffer = privateJson<NftPlaceOfferRequest>()(
  'NftPlaceOffer',
  Type.Union([OpenObject, Str]),
  {
    kind: 'write',
  },
);
