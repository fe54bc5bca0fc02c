/**
 * NFT market data (public) and NFT trading (private) over a small seeded catalogue.
 *
 * Catalogue: two creators, two collections (`Sim Punks`, 8 items priced in ETH; `Orbital
 * Landscapes`, 6 items priced in USD), ids in the exchange's style (`NT…` items, `NC…`
 * collections, `NA…` creators), the same on every run: {@link NFT_CATALOGUE} lists them. Sim
 * Punks #0–#3 and Orbital #0 are listed at a fixed price, Sim Punks #4 in an ascending auction,
 * Orbital #1 in a descending one; the rest are unlisted and owned by synthetic users.
 *
 * Shapes (not shown by the spec):
 * - price: `{amount, currency}`; with `currency` (altname or id) every price is converted to it
 *   at the market's current price (as Earn converts).
 * - NFT: `{id, name, description, image_url, collection_id, creator_id, owner_id, rarity_rank,
 *   attributes: [{trait_type, value}], created_at, verified_at, status: 'listed' | 'unlisted',
 *   listing: {auction_id, auction_type, price (the current price), reserve_price?, start_time,
 *   end_time, allow_offers} | null, last_sale: {price, time} | null}`; times are RFC 3339;
 *   `owner_id` of a simulator account is its account UID.
 * - collection: `{id, name, description, creator_id, image_url, created_at, verified_at,
 *   item_count, owner_count, floor_price | null, total_volume, seven_day_volume,
 *   seven_day_average_price, volume: {all_time, '30d', '7d', '24h'}}`.
 * - creator: `{id, name, verified, collection_ids, created_at}`.
 * - lists (Nfts, NftCollections, NftCreators): `{items, next_cursor: string | null, total_items:
 *   {relation: 'eq', value}}`. Filters come as `filter[<field>]=<value>`: `collection_id`,
 *   `creator_id`, `owner_id`, `status` for Nfts; `creator_id` for collections; `verified` for
 *   creators. The cursor carries the first request's sort, filter and currency; later requests
 *   send only `cursor` (anything else they send is ignored). `page_size` 1..65535 is required for
 *   Nfts and NftCollections, optional (20) for NftCreators, whose sorts are `MostRelevant`,
 *   `RecentlyAdded`, `NameAsc`, `NameDesc`.
 * - NftProvenance: `{items: [{event_type: 'mint' | 'list' | 'sale' | 'delist', time,
 *   from_owner_id?, to_owner_id?, price?}], total}`, newest first; an unknown NFT has none.
 *
 * Trading (the spec shows no permission: any valid key):
 * - NftCreateAuction: the NFTs must exist, be the caller's and not be listed
 *   (`EGeneral:Invalid arguments:nft_id`). `auction_params`: fixed needs `ask_price`; ascending
 *   `start_price` (optional `reserve_price`, `end_time`, default start + 7 days); descending
 *   `start_price` and `reserve_price` below it (the reserve-price field's name is not shown: the
 *   simulator calls it `reserve_price`), price falling linearly to the reserve at `end_time`
 *   (default start + 1 day); `allow_offers` (default true). `offer_id` accepts that open offer at
 *   once (a sale at the offer's amount). Result `{auction_id}`. Auctions that reach `end_time`
 *   unsold close.
 * - NftModifyAuction: `ask_price` for fixed auctions, `reserve_price` for descending ones;
 *   otherwise `EGeneral:Invalid arguments:<field>`. Result `{auction_id}`.
 * - NftCancelAuction: `{statuses: [{auction_id, status: 'canceled' | 'not_found'}]}` in request
 *   order (someone else's auction is `not_found`).
 * - NftPlaceOffer (`/0/private/NftPlaceOffer`, the path the client uses): `nft_id`,
 *   `offer_amount` (or `amount`), `offer_currency`, optional `expire_time`, `quote_id`. An offer
 *   for one NFT listed at a fixed or descending price, in the offer's currency, at or above the
 *   current price buys it at that price (ledger `trade` / `nft`; a simulator seller is credited)
 *   and answers `{offer_id, status: 'accepted'}`; any other offer stays `{offer_id, status:
 *   'open'}` until `expire_time`. The buyer's available balance must cover the amount
 *   (`EFunding:Insufficient funds`); offers on one's own NFT are
 *   `EGeneral:Invalid arguments:nft_id`.
 */
import { Decimal, isDecimalString, toWire } from '../../core/index.js';
import type { SimContext } from '../context.js';
import { invalidArguments, SimError } from '../errors.js';
import { ok, type Route, type SimRequest } from '../http/route.js';
import type { SimAsset } from '../markets.js';
import type { Account } from '../state/accounts.js';
import { valueIn } from './earn.js';
import { requireText, text } from './order-params.js';
import { intInRange, optInt } from './public-params.js';
import { callerOf } from './support.js';
import { stableRef, stableUuid } from '../ids.js';

type Params = Readonly<Record<string, unknown>>;
type AuctionType = 'ascending' | 'descending' | 'fixed';

const DAY_MS = 24 * 3600_000;
/** Catalogue times are fixed so that ids, ranks and order never depend on the clock. */
const CATALOGUE_EPOCH_MS = Date.UTC(2023, 5, 1);

export const NFT_SORTS = [
  'MostRelevant',
  'RecentlyAdded',
  'RecentlyVerified',
  'RecentlySold',
  'EndingSoon',
  'PriceLowToHigh',
  'PriceHighToLow',
  'HighestLastSell',
  'RarityRankLowToHigh',
  'RarityRankHighToLow',
] as const;

const WINDOWS = { AllTime: 'all_time', '30Days': '30d', '7Days': '7d', '24Hours': '24h' } as const;
const COLLECTION_SORTS: readonly string[] = [
  'RecentlyAdded',
  'RecentlyVerified',
  'PriceLowToHigh',
  'PriceHighToLow',
  'NameAsc',
  'NameDesc',
  'TotalVolumeAsc',
  'TotalVolumeDesc',
  'SevenDayVolumeAsc',
  'SevenDayVolumeDesc',
  'SevenDayAveragePriceAsc',
  'SevenDayAveragePriceDesc',
  'OwnerCountAsc',
  'OwnerCountDesc',
  'MostRelevant',
  ...Object.keys(WINDOWS).flatMap((w) => [`By${w}KrakenVolumeAsc`, `By${w}KrakenVolumeDesc`]),
];
const CREATOR_SORTS: readonly string[] = ['MostRelevant', 'RecentlyAdded', 'NameAsc', 'NameDesc'];

interface Creator {
  readonly id: string;
  readonly name: string;
  readonly verified: boolean;
  readonly createdMs: number;
}

interface Collection {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly creatorId: string;
  readonly currency: string;
  readonly createdMs: number;
  readonly verifiedMs: number;
  /** Traded volume in the collection's currency by window. */
  readonly volume: Readonly<Record<(typeof WINDOWS)[keyof typeof WINDOWS], string>>;
  readonly sevenDayAveragePrice: string;
}

interface Auction {
  readonly id: string;
  readonly sellerOwnerId: string;
  readonly sellerKey: string | undefined;
  readonly nftIds: readonly string[];
  readonly type: AuctionType;
  readonly currency: string;
  askPrice: Decimal | undefined;
  readonly startPrice: Decimal | undefined;
  reservePrice: Decimal | undefined;
  readonly startMs: number;
  readonly endMs: number | undefined;
  readonly allowOffers: boolean;
  open: boolean;
}

interface ProvenanceEvent {
  readonly type: 'mint' | 'list' | 'sale' | 'delist';
  readonly timeMs: number;
  readonly from?: string;
  readonly to?: string;
  readonly price?: { readonly amount: Decimal; readonly currency: string };
}

interface Nft {
  readonly id: string;
  readonly name: string;
  readonly collectionId: string;
  readonly creatorId: string;
  readonly rarityRank: number;
  readonly attributes: readonly { trait_type: string; value: string }[];
  readonly createdMs: number;
  readonly verifiedMs: number;
  ownerId: string;
  ownerKey: string | undefined;
  auctionId: string | undefined;
  lastSale: { amount: Decimal; currency: string; timeMs: number } | undefined;
  readonly events: ProvenanceEvent[];
}

interface Offer {
  readonly id: string;
  readonly accountKey: string;
  readonly nftIds: readonly string[];
  readonly amount: Decimal;
  readonly currency: string;
  readonly expiresMs: number | undefined;
  status: 'open' | 'accepted' | 'expired';
}

const CREATORS: readonly Creator[] = [
  {
    id: stableRef('NA', 'creator:pixel-forge'),
    name: 'Pixel Forge Studio',
    verified: true,
    createdMs: CATALOGUE_EPOCH_MS,
  },
  {
    id: stableRef('NA', 'creator:orbital-arts'),
    name: 'Orbital Arts',
    verified: false,
    createdMs: CATALOGUE_EPOCH_MS + 5 * DAY_MS,
  },
];

const COLLECTIONS: readonly (Collection & { readonly size: number })[] = [
  {
    id: stableRef('NC', 'collection:sim-punks'),
    name: 'Sim Punks',
    description: 'Eight pixel characters that never leave the simulator.',
    creatorId: CREATORS[0]?.id ?? '',
    currency: 'XETH',
    createdMs: CATALOGUE_EPOCH_MS + DAY_MS,
    verifiedMs: CATALOGUE_EPOCH_MS + 3 * DAY_MS,
    volume: { all_time: '41.5', '30d': '6.2', '7d': '1.1', '24h': '0.15' },
    sevenDayAveragePrice: '0.12',
    size: 8,
  },
  {
    id: stableRef('NC', 'collection:orbital-landscapes'),
    name: 'Orbital Landscapes',
    description: 'Six views from a low orbit, rendered by a random walk.',
    creatorId: CREATORS[1]?.id ?? '',
    currency: 'ZUSD',
    createdMs: CATALOGUE_EPOCH_MS + 10 * DAY_MS,
    verifiedMs: CATALOGUE_EPOCH_MS + 20 * DAY_MS,
    volume: { all_time: '250000', '30d': '18000', '7d': '2500', '24h': '0' },
    sevenDayAveragePrice: '1250',
    size: 6,
  },
];

/** The seeded ids, for tests and operators: NFT ids per collection in catalogue order. */
export const NFT_CATALOGUE = {
  creators: CREATORS.map((c) => c.id),
  collections: COLLECTIONS.map((c) => ({
    id: c.id,
    name: c.name,
    nfts: Array.from({ length: c.size }, (_, i) => stableRef('NT', `nft:${c.id}:${i}`)),
  })),
};

const BACKGROUNDS = ['Teal', 'Crimson', 'Void', 'Gold'];
const syntheticOwner = (i: number): string => stableUuid(`nft-owner:${i}`);

interface Page {
  readonly offset: number;
  readonly sort: string;
  readonly filter: Readonly<Record<string, string>>;
  readonly currency: string | undefined;
}

export function nftRoutes(ctx: SimContext): Route[] {
  const nfts = new Map<string, Nft>();
  const auctions = new Map<string, Auction>();
  const offers = new Map<string, Offer>();
  const seedNow = ctx.clock.now();

  // ---- seed ------------------------------------------------------------------------------
  let serial = 0;
  for (const c of COLLECTIONS) {
    const ids = NFT_CATALOGUE.collections.find((x) => x.id === c.id)?.nfts ?? [];
    ids.forEach((id, i) => {
      const createdMs = c.createdMs + i * 3600_000;
      const ownerId = syntheticOwner(serial % 5);
      serial += 1;
      const nft: Nft = {
        id,
        name: `${c.name} #${i}`,
        collectionId: c.id,
        creatorId: c.creatorId,
        rarityRank: ((i * 5) % c.size) + 1,
        attributes: [
          { trait_type: 'Background', value: BACKGROUNDS[i % BACKGROUNDS.length] ?? 'Teal' },
          { trait_type: 'Edition', value: String(i + 1) },
        ],
        createdMs,
        verifiedMs: c.verifiedMs,
        ownerId,
        ownerKey: undefined,
        auctionId: undefined,
        lastSale: undefined,
        events: [{ type: 'mint', timeMs: createdMs, from: c.creatorId, to: ownerId }],
      };
      if (i % 4 === 1) {
        const saleMs = c.verifiedMs + (i + 1) * DAY_MS;
        const amount = new Decimal(c.sevenDayAveragePrice).times(1 + i / 10);
        nft.events.push({
          type: 'sale',
          timeMs: saleMs,
          from: syntheticOwner(5),
          to: ownerId,
          price: { amount, currency: c.currency },
        });
        nft.lastSale = { amount, currency: c.currency, timeMs: saleMs };
      }
      nfts.set(id, nft);
    });
  }
  const seedListing = (
    nftId: string | undefined,
    type: AuctionType,
    currency: string,
    prices: { ask?: string; start?: string; reserve?: string },
    endMs: number | undefined,
  ): void => {
    const nft = nftId === undefined ? undefined : nfts.get(nftId);
    if (nft === undefined) return;
    const id = stableRef('AT', `seed-auction:${nft.id}`);
    auctions.set(id, {
      id,
      sellerOwnerId: nft.ownerId,
      sellerKey: undefined,
      nftIds: [nft.id],
      type,
      currency,
      askPrice: prices.ask === undefined ? undefined : new Decimal(prices.ask),
      startPrice: prices.start === undefined ? undefined : new Decimal(prices.start),
      reservePrice: prices.reserve === undefined ? undefined : new Decimal(prices.reserve),
      startMs: seedNow - DAY_MS,
      endMs,
      allowOffers: true,
      open: true,
    });
    nft.auctionId = id;
    nft.events.push({
      type: 'list',
      timeMs: seedNow - DAY_MS,
      from: nft.ownerId,
      price: { amount: new Decimal(prices.ask ?? prices.start ?? '0'), currency },
    });
  };
  const punks = NFT_CATALOGUE.collections[0]?.nfts ?? [];
  const orbital = NFT_CATALOGUE.collections[1]?.nfts ?? [];
  for (let i = 0; i < 4; i++) {
    seedListing(
      punks[i],
      'fixed',
      'XETH',
      { ask: new Decimal('0.05').times(i + 1).toFixed() },
      undefined,
    );
  }
  seedListing(punks[4], 'ascending', 'XETH', { start: '0.1' }, seedNow + 2 * DAY_MS);
  seedListing(orbital[0], 'fixed', 'ZUSD', { ask: '1200' }, undefined);
  seedListing(
    orbital[1],
    'descending',
    'ZUSD',
    { start: '2000', reserve: '800' },
    seedNow + DAY_MS,
  );

  // ---- time --------------------------------------------------------------------------------
  const closeAuction = (a: Auction, atMs: number): void => {
    a.open = false;
    for (const id of a.nftIds) {
      const nft = nfts.get(id);
      if (nft?.auctionId !== a.id) continue;
      nft.auctionId = undefined;
      nft.events.push({ type: 'delist', timeMs: atMs, from: nft.ownerId });
    }
  };
  ctx.onTick((nowMs) => {
    for (const a of auctions.values()) {
      if (a.open && a.endMs !== undefined && a.endMs <= nowMs) closeAuction(a, a.endMs);
    }
    for (const o of offers.values()) {
      if (o.status === 'open' && o.expiresMs !== undefined && o.expiresMs <= nowMs) {
        o.status = 'expired';
      }
    }
  });

  // ---- views -------------------------------------------------------------------------------
  const currencyParam = (name: string | undefined): SimAsset | undefined => {
    if (name === undefined) return undefined;
    const a = ctx.markets.asset(name);
    if (a === undefined) throw invalidArguments('currency');
    return a;
  };
  const price = (
    amount: Decimal,
    assetId: string,
    target: SimAsset | undefined,
  ): { amount: string; currency: string } => {
    const from = ctx.markets.asset(assetId);
    if (target !== undefined && target.id !== assetId) {
      const v = valueIn(ctx, amount, assetId, target.id);
      if (v !== undefined) {
        return {
          amount: toWire(v.toDecimalPlaces(target.decimals, Decimal.ROUND_HALF_EVEN)),
          currency: target.altname,
        };
      }
    }
    return {
      amount: toWire(from === undefined ? amount : amount.toDecimalPlaces(from.decimals)),
      currency: from?.altname ?? assetId,
    };
  };
  const currentPrice = (a: Auction, nowMs: number): Decimal => {
    if (a.type === 'fixed') return a.askPrice ?? new Decimal(0);
    const start = a.startPrice ?? new Decimal(0);
    if (a.type === 'ascending' || a.endMs === undefined) return start;
    const reserve = a.reservePrice ?? start;
    const span = a.endMs - a.startMs;
    const t = Math.min(Math.max(nowMs - a.startMs, 0), span);
    const cur = start.minus(start.minus(reserve).times(t).div(span));
    const decimals = ctx.markets.asset(a.currency)?.decimals ?? 8;
    return cur.toDecimalPlaces(decimals, Decimal.ROUND_UP);
  };
  const iso = (ms: number): string => new Date(ms).toISOString();

  const nftView = (
    n: Nft,
    target: SimAsset | undefined,
    nowMs: number,
  ): Record<string, unknown> => {
    const a = n.auctionId === undefined ? undefined : auctions.get(n.auctionId);
    return {
      id: n.id,
      name: n.name,
      description: `${n.name}, minted on the simulator.`,
      image_url: `https://nft.sim.invalid/${n.id}.png`,
      collection_id: n.collectionId,
      creator_id: n.creatorId,
      owner_id: n.ownerId,
      rarity_rank: n.rarityRank,
      attributes: n.attributes,
      created_at: iso(n.createdMs),
      verified_at: iso(n.verifiedMs),
      status: a?.open === true ? 'listed' : 'unlisted',
      listing:
        a?.open === true
          ? {
              auction_id: a.id,
              auction_type: a.type,
              price: price(currentPrice(a, nowMs), a.currency, target),
              ...(a.reservePrice === undefined
                ? {}
                : { reserve_price: price(a.reservePrice, a.currency, target) }),
              start_time: iso(a.startMs),
              end_time: a.endMs === undefined ? null : iso(a.endMs),
              allow_offers: a.allowOffers,
            }
          : null,
      last_sale:
        n.lastSale === undefined
          ? null
          : {
              price: price(n.lastSale.amount, n.lastSale.currency, target),
              time: iso(n.lastSale.timeMs),
            },
    };
  };

  const collectionStats = (c: Collection, nowMs: number) => {
    const items = [...nfts.values()].filter((n) => n.collectionId === c.id);
    let floor: Decimal | undefined;
    for (const n of items) {
      const a = n.auctionId === undefined ? undefined : auctions.get(n.auctionId);
      if (a?.open !== true || a.type === 'ascending' || a.currency !== c.currency) continue;
      const p = currentPrice(a, nowMs);
      if (floor === undefined || p.lt(floor)) floor = p;
    }
    return { items, floor, owners: new Set(items.map((n) => n.ownerId)).size };
  };
  const collectionView = (
    c: Collection,
    target: SimAsset | undefined,
    nowMs: number,
  ): Record<string, unknown> => {
    const s = collectionStats(c, nowMs);
    const vol = (v: string) => price(new Decimal(v), c.currency, target);
    return {
      id: c.id,
      name: c.name,
      description: c.description,
      creator_id: c.creatorId,
      image_url: `https://nft.sim.invalid/${c.id}.png`,
      created_at: iso(c.createdMs),
      verified_at: iso(c.verifiedMs),
      item_count: s.items.length,
      owner_count: s.owners,
      floor_price: s.floor === undefined ? null : price(s.floor, c.currency, target),
      total_volume: vol(c.volume.all_time),
      seven_day_volume: vol(c.volume['7d']),
      seven_day_average_price: vol(c.sevenDayAveragePrice),
      volume: {
        all_time: vol(c.volume.all_time),
        '30d': vol(c.volume['30d']),
        '7d': vol(c.volume['7d']),
        '24h': vol(c.volume['24h']),
      },
    };
  };
  const creatorView = (c: Creator): Record<string, unknown> => ({
    id: c.id,
    name: c.name,
    verified: c.verified,
    collection_ids: COLLECTIONS.filter((x) => x.creatorId === c.id).map((x) => x.id),
    created_at: iso(c.createdMs),
  });

  // ---- paging ------------------------------------------------------------------------------
  const readPage = (
    params: Params,
    sorts: readonly string[],
    filterFields: readonly string[],
    pageSizeRequired: boolean,
  ): { page: Page; size: number } => {
    const sizeRaw = optInt(params, 'page_size');
    if (sizeRaw === undefined && pageSizeRequired) throw invalidArguments('page_size');
    const size = sizeRaw ?? 20;
    if (size < 1 || size > 0xffff) throw invalidArguments('page_size');
    const cursor = text(params, 'cursor');
    if (cursor !== undefined) return { page: decodeCursor(cursor), size };
    const sort = text(params, 'sort') ?? 'MostRelevant';
    if (!sorts.includes(sort)) throw invalidArguments('sort');
    const filter: Record<string, string> = {};
    for (const [k, v] of Object.entries(params)) {
      const m = /^filter\[([A-Za-z_]+)\]$/.exec(k);
      if (m === null) continue;
      const field = m[1] ?? '';
      if (!filterFields.includes(field) || typeof v !== 'string') throw invalidArguments('filter');
      filter[field] = v;
    }
    if (
      params.filter !== undefined &&
      typeof params.filter === 'object' &&
      params.filter !== null
    ) {
      for (const [field, v] of Object.entries(params.filter)) {
        if (!filterFields.includes(field) || typeof v !== 'string')
          throw invalidArguments('filter');
        filter[field] = v;
      }
    }
    return { page: { offset: 0, sort, filter, currency: text(params, 'currency') }, size };
  };
  const pageOf = <T>(all: readonly T[], page: Page, size: number, view: (x: T) => unknown) => {
    const items = all.slice(page.offset, page.offset + size).map(view);
    const nextOffset = page.offset + size;
    return {
      items,
      next_cursor: nextOffset < all.length ? encodeCursor({ ...page, offset: nextOffset }) : null,
      total_items: { relation: 'eq', value: all.length },
    };
  };

  const nftPrice = (n: Nft, nowMs: number): Decimal | undefined => {
    const a = n.auctionId === undefined ? undefined : auctions.get(n.auctionId);
    if (a?.open !== true) return undefined;
    return valueIn(ctx, currentPrice(a, nowMs), a.currency, 'ZUSD');
  };
  const sortNfts = (list: Nft[], sort: string, nowMs: number): Nft[] => {
    const endOf = (n: Nft): number | undefined =>
      n.auctionId === undefined ? undefined : auctions.get(n.auctionId)?.endMs;
    const lastSaleUsd = (n: Nft): Decimal | undefined =>
      n.lastSale === undefined
        ? undefined
        : valueIn(ctx, n.lastSale.amount, n.lastSale.currency, 'ZUSD');
    switch (sort) {
      case 'RecentlyAdded':
        return by(list, (n) => n.createdMs, 'desc');
      case 'RecentlyVerified':
        return by(list, (n) => n.verifiedMs, 'desc');
      case 'RecentlySold':
        return by(list, (n) => n.lastSale?.timeMs, 'desc');
      case 'EndingSoon':
        return by(list, endOf, 'asc');
      case 'PriceLowToHigh':
        return by(list, (n) => nftPrice(n, nowMs)?.toNumber(), 'asc');
      case 'PriceHighToLow':
        return by(list, (n) => nftPrice(n, nowMs)?.toNumber(), 'desc');
      case 'HighestLastSell':
        return by(list, (n) => lastSaleUsd(n)?.toNumber(), 'desc');
      case 'RarityRankLowToHigh':
        return by(list, (n) => n.rarityRank, 'asc');
      case 'RarityRankHighToLow':
        return by(list, (n) => n.rarityRank, 'desc');
      default:
        return list;
    }
  };
  const sortCollections = (list: Collection[], sort: string, nowMs: number): Collection[] => {
    const usd = (c: Collection, v: string | Decimal | undefined) =>
      v === undefined ? undefined : valueIn(ctx, new Decimal(v), c.currency, 'ZUSD')?.toNumber();
    const window = /^By(AllTime|30Days|7Days|24Hours)KrakenVolume(Asc|Desc)$/.exec(sort);
    if (window !== null) {
      const key = WINDOWS[window[1] as keyof typeof WINDOWS];
      return by(list, (c) => usd(c, c.volume[key]), window[2] === 'Asc' ? 'asc' : 'desc');
    }
    const dir = sort.endsWith('Asc') || sort === 'PriceLowToHigh' ? 'asc' : 'desc';
    switch (sort) {
      case 'RecentlyAdded':
        return by(list, (c) => c.createdMs, 'desc');
      case 'RecentlyVerified':
        return by(list, (c) => c.verifiedMs, 'desc');
      case 'PriceLowToHigh':
      case 'PriceHighToLow':
        return by(list, (c) => usd(c, collectionStats(c, nowMs).floor), dir);
      case 'NameAsc':
      case 'NameDesc':
        return [...list].sort((a, b) =>
          dir === 'asc' ? a.name.localeCompare(b.name) : b.name.localeCompare(a.name),
        );
      case 'TotalVolumeAsc':
      case 'TotalVolumeDesc':
        return by(list, (c) => usd(c, c.volume.all_time), dir);
      case 'SevenDayVolumeAsc':
      case 'SevenDayVolumeDesc':
        return by(list, (c) => usd(c, c.volume['7d']), dir);
      case 'SevenDayAveragePriceAsc':
      case 'SevenDayAveragePriceDesc':
        return by(list, (c) => usd(c, c.sevenDayAveragePrice), dir);
      case 'OwnerCountAsc':
      case 'OwnerCountDesc':
        return by(list, (c) => collectionStats(c, nowMs).owners, dir);
      default:
        return list;
    }
  };

  // ---- trading -----------------------------------------------------------------------------
  const ownedNfts = (account: Account, params: Params): Nft[] => {
    const ids = stringArray(params, 'nft_id');
    return ids.map((id) => {
      const n = nfts.get(id);
      if (n === undefined || n.ownerKey !== account.key || n.auctionId !== undefined) {
        throw invalidArguments('nft_id');
      }
      return n;
    });
  };
  const settle = (
    buyer: Account,
    items: readonly Nft[],
    amount: Decimal,
    currency: string,
    sellerKey: string | undefined,
    atMs: number,
    refid: string,
  ): void => {
    buyer.wallet.post({
      refid,
      timeMs: atMs,
      type: 'trade',
      subtype: 'nft',
      asset: currency,
      amount: amount.negated(),
    });
    const seller = sellerKey === undefined ? undefined : ctx.accounts.get(sellerKey);
    seller?.wallet.post({
      refid,
      timeMs: atMs,
      type: 'trade',
      subtype: 'nft',
      asset: currency,
      amount,
    });
    for (const n of items) {
      n.events.push({
        type: 'sale',
        timeMs: atMs,
        from: n.ownerId,
        to: buyer.accountUid,
        price: { amount, currency },
      });
      n.ownerId = buyer.accountUid;
      n.ownerKey = buyer.key;
      n.lastSale = { amount, currency, timeMs: atMs };
    }
  };
  const auctionParams = (
    params: Params,
    type: AuctionType,
    currency: SimAsset,
    startMs: number,
  ): Pick<Auction, 'askPrice' | 'startPrice' | 'reservePrice' | 'endMs' | 'allowOffers'> => {
    const p = params.auction_params;
    if (typeof p !== 'object' || p === null || Array.isArray(p)) {
      throw invalidArguments('auction_params');
    }
    const ap = p as Params;
    const priceField = (name: string, required: boolean): Decimal | undefined => {
      const v = ap[name];
      if (v === undefined || v === null) {
        if (required) throw invalidArguments(`auction_params.${name}`);
        return undefined;
      }
      const s = typeof v === 'number' ? String(v) : v;
      if (typeof s !== 'string' || !isDecimalString(s) || s.startsWith('-')) {
        throw invalidArguments(`auction_params.${name}`);
      }
      const d = new Decimal(s);
      if (d.lte(0) || d.decimalPlaces() > currency.decimals) {
        throw invalidArguments(`auction_params.${name}`);
      }
      return d;
    };
    const allow = ap.allow_offers;
    if (allow !== undefined && typeof allow !== 'boolean') {
      throw invalidArguments('auction_params.allow_offers');
    }
    const end = optInt(ap, 'end_time');
    const defaultSpan = type === 'descending' ? DAY_MS : 7 * DAY_MS;
    const endMs =
      type === 'fixed' ? undefined : end === undefined ? startMs + defaultSpan : end * 1000;
    if (endMs !== undefined && endMs <= startMs) throw invalidArguments('auction_params.end_time');
    const askPrice = type === 'fixed' ? priceField('ask_price', true) : undefined;
    const startPrice = type === 'fixed' ? undefined : priceField('start_price', true);
    const reservePrice =
      type === 'fixed' ? undefined : priceField('reserve_price', type === 'descending');
    if (
      type === 'descending' &&
      reservePrice !== undefined &&
      startPrice !== undefined &&
      reservePrice.gte(startPrice)
    ) {
      throw invalidArguments('auction_params.reserve_price');
    }
    return { askPrice, startPrice, reservePrice, endMs, allowOffers: allow ?? true };
  };

  const createAuction = (req: SimRequest): string => {
    const account = callerOf(req);
    const currency = ctx.markets.asset(requireText(req.params, 'auction_currency'));
    if (currency === undefined) throw invalidArguments('auction_currency');
    const type = requireText(req.params, 'auction_type');
    if (type !== 'ascending' && type !== 'descending' && type !== 'fixed') {
      throw invalidArguments('auction_type');
    }
    const items = ownedNfts(account, req.params);
    const start = optInt(req.params, 'start_time');
    const startMs = Math.max(req.nowMs, (start ?? 0) * 1000);
    const p = auctionParams(req.params, type, currency, startMs);
    const offerId = text(req.params, 'offer_id');
    const offer = offerId === undefined ? undefined : offers.get(offerId);
    if (offerId !== undefined) {
      const ids = new Set(items.map((n) => n.id));
      if (
        offer?.status !== 'open' ||
        offer.currency !== currency.id ||
        offer.nftIds.length !== ids.size ||
        offer.nftIds.some((id) => !ids.has(id))
      ) {
        throw invalidArguments('offer_id');
      }
    }
    const id = ctx.ids.ref('AT');
    const auction: Auction = {
      id,
      sellerOwnerId: account.accountUid,
      sellerKey: account.key,
      nftIds: items.map((n) => n.id),
      type,
      currency: currency.id,
      ...p,
      startMs,
      open: true,
    };
    auctions.set(id, auction);
    for (const n of items) {
      n.auctionId = id;
      n.events.push({
        type: 'list',
        timeMs: req.nowMs,
        from: n.ownerId,
        price: { amount: p.askPrice ?? p.startPrice ?? new Decimal(0), currency: currency.id },
      });
    }
    if (offer !== undefined) {
      const buyer = ctx.accounts.get(offer.accountKey);
      if (buyer === undefined || offer.amount.gt(buyer.wallet.available(offer.currency))) {
        closeAuction(auction, req.nowMs);
        throw invalidArguments('offer_id');
      }
      auction.open = false;
      for (const n of items) n.auctionId = undefined;
      settle(buyer, items, offer.amount, offer.currency, account.key, req.nowMs, id);
      offer.status = 'accepted';
    }
    return id;
  };

  const placeOffer = (req: SimRequest): { offer_id: string; status: string } => {
    const account = callerOf(req);
    const ids = stringArray(req.params, 'nft_id');
    const items = ids.map((id) => {
      const n = nfts.get(id);
      if (n === undefined || n.ownerKey === account.key) throw invalidArguments('nft_id');
      return n;
    });
    const currency = ctx.markets.asset(requireText(req.params, 'offer_currency'));
    if (currency === undefined) throw invalidArguments('offer_currency');
    const amountField =
      req.params.offer_amount === undefined && req.params.amount !== undefined
        ? 'amount'
        : 'offer_amount';
    const amountText = requireText(req.params, amountField);
    if (!isDecimalString(amountText) || amountText.startsWith('-')) {
      throw invalidArguments(amountField);
    }
    const amount = new Decimal(amountText);
    if (amount.lte(0) || amount.decimalPlaces() > currency.decimals) {
      throw invalidArguments(amountField);
    }
    const expire = optInt(req.params, 'expire_time');
    if (expire !== undefined && expire * 1000 <= req.nowMs) throw invalidArguments('expire_time');
    const quoteId = req.params.quote_id;
    if (quoteId !== undefined && typeof quoteId !== 'string') throw invalidArguments('quote_id');
    if (amount.gt(account.wallet.available(currency.id))) {
      throw new SimError('EFunding:Insufficient funds');
    }
    const offerId = ctx.ids.ref('OF');
    const only = items.length === 1 ? items[0] : undefined;
    const a = only?.auctionId === undefined ? undefined : auctions.get(only.auctionId);
    if (
      only !== undefined &&
      a?.open === true &&
      a.type !== 'ascending' &&
      a.currency === currency.id &&
      a.nftIds.length === 1 &&
      a.startMs <= req.nowMs
    ) {
      const current = currentPrice(a, req.nowMs);
      if (amount.gte(current)) {
        a.open = false;
        only.auctionId = undefined;
        settle(account, [only], current, currency.id, a.sellerKey, req.nowMs, offerId);
        offers.set(offerId, {
          id: offerId,
          accountKey: account.key,
          nftIds: ids,
          amount: current,
          currency: currency.id,
          expiresMs: undefined,
          status: 'accepted',
        });
        return { offer_id: offerId, status: 'accepted' };
      }
    }
    if (a !== undefined && a.open && !a.allowOffers) throw invalidArguments('nft_id');
    offers.set(offerId, {
      id: offerId,
      accountKey: account.key,
      nftIds: ids,
      amount,
      currency: currency.id,
      expiresMs: expire === undefined ? undefined : expire * 1000,
      status: 'open',
    });
    return { offer_id: offerId, status: 'open' };
  };

  // ---- routes ------------------------------------------------------------------------------
  return [
    {
      family: 'public',
      name: 'Nft',
      handle: (req) => {
        const target = currencyParam(text(req.params, 'currency'));
        const n = nfts.get(requireText(req.params, 'nft_id'));
        return ok(n === undefined ? null : nftView(n, target, req.nowMs));
      },
    },
    {
      family: 'public',
      name: 'Nfts',
      handle: (req) => {
        const { page, size } = readPage(
          req.params,
          NFT_SORTS,
          ['collection_id', 'creator_id', 'owner_id', 'status'],
          true,
        );
        const target = currencyParam(page.currency);
        const f = page.filter;
        const list = [...nfts.values()].filter((n) => {
          const listed = n.auctionId !== undefined && auctions.get(n.auctionId)?.open === true;
          return (
            (f.collection_id === undefined || n.collectionId === f.collection_id) &&
            (f.creator_id === undefined || n.creatorId === f.creator_id) &&
            (f.owner_id === undefined || n.ownerId === f.owner_id) &&
            (f.status === undefined || f.status === (listed ? 'listed' : 'unlisted'))
          );
        });
        const sorted = sortNfts(list, page.sort, req.nowMs);
        return ok(pageOf(sorted, page, size, (n) => nftView(n, target, req.nowMs)));
      },
    },
    {
      family: 'public',
      name: 'NftProvenance',
      handle: (req) => {
        const id = requireText(req.params, 'nft_id');
        const target = currencyParam(text(req.params, 'currency'));
        const pageNo = intInRange(req.params, 'page', 1, 65536, 1);
        const perPage = intInRange(req.params, 'per_page', 1, 1000, 5);
        const events = [...(nfts.get(id)?.events ?? [])].sort((a, b) => b.timeMs - a.timeMs);
        const items = events.slice((pageNo - 1) * perPage, pageNo * perPage).map((e) => ({
          event_type: e.type,
          time: iso(e.timeMs),
          ...(e.from === undefined ? {} : { from_owner_id: e.from }),
          ...(e.to === undefined ? {} : { to_owner_id: e.to }),
          ...(e.price === undefined
            ? {}
            : { price: price(e.price.amount, e.price.currency, target) }),
        }));
        return ok({ items, total: events.length });
      },
    },
    {
      family: 'public',
      name: 'NftCollection',
      handle: (req) => {
        const target = currencyParam(text(req.params, 'currency'));
        const c = COLLECTIONS.find((x) => x.id === requireText(req.params, 'collection_id'));
        return ok(c === undefined ? null : collectionView(c, target, req.nowMs));
      },
    },
    {
      family: 'public',
      name: 'NftCollections',
      handle: (req) => {
        const { page, size } = readPage(req.params, COLLECTION_SORTS, ['creator_id'], true);
        const target = currencyParam(page.currency);
        const list = COLLECTIONS.filter(
          (c) => page.filter.creator_id === undefined || c.creatorId === page.filter.creator_id,
        );
        const sorted = sortCollections([...list], page.sort, req.nowMs);
        return ok(pageOf(sorted, page, size, (c) => collectionView(c, target, req.nowMs)));
      },
    },
    {
      family: 'public',
      name: 'NftCreator',
      handle: (req) => {
        const c = CREATORS.find((x) => x.id === requireText(req.params, 'creator_id'));
        return ok(c === undefined ? null : creatorView(c));
      },
    },
    {
      family: 'public',
      name: 'NftCreators',
      handle: (req) => {
        const { page, size } = readPage(req.params, CREATOR_SORTS, ['verified'], false);
        currencyParam(page.currency);
        const v = page.filter.verified;
        if (v !== undefined && v !== 'true' && v !== 'false') throw invalidArguments('filter');
        let list = CREATORS.filter((c) => v === undefined || String(c.verified) === v);
        if (page.sort === 'RecentlyAdded') list = by(list, (c) => c.createdMs, 'desc');
        if (page.sort === 'NameAsc') list = [...list].sort((a, b) => a.name.localeCompare(b.name));
        if (page.sort === 'NameDesc') list = [...list].sort((a, b) => b.name.localeCompare(a.name));
        return ok(pageOf(list, page, size, creatorView));
      },
    },
    {
      family: 'private',
      name: 'NftCreateAuction',
      permission: [],
      handle: (req) => ok({ auction_id: createAuction(req) }),
    },
    {
      family: 'private',
      name: 'NftModifyAuction',
      permission: [],
      handle: (req) => {
        const account = callerOf(req);
        const id = requireText(req.params, 'auction_id');
        const a = auctions.get(id);
        if (a === undefined || !a.open || a.sellerKey !== account.key) {
          throw invalidArguments('auction_id');
        }
        const currency = ctx.markets.requireAsset(a.currency);
        const decimal = (name: string): Decimal | undefined => {
          const v = text(req.params, name);
          if (v === undefined) return undefined;
          if (!isDecimalString(v) || v.startsWith('-')) throw invalidArguments(name);
          const d = new Decimal(v);
          if (d.lte(0) || d.decimalPlaces() > currency.decimals) throw invalidArguments(name);
          return d;
        };
        const ask = decimal('ask_price');
        const reserve = decimal('reserve_price');
        if (ask === undefined && reserve === undefined) throw invalidArguments('ask_price');
        if (ask !== undefined && a.type !== 'fixed') throw invalidArguments('ask_price');
        if (reserve !== undefined) {
          if (a.type !== 'descending') throw invalidArguments('reserve_price');
          if (a.startPrice !== undefined && reserve.gte(a.startPrice)) {
            throw invalidArguments('reserve_price');
          }
        }
        if (ask !== undefined) a.askPrice = ask;
        if (reserve !== undefined) a.reservePrice = reserve;
        return ok({ auction_id: a.id });
      },
    },
    {
      family: 'private',
      name: 'NftCancelAuction',
      permission: [],
      handle: (req) => {
        const account = callerOf(req);
        const ids = stringArray(req.params, 'auction_ids');
        const statuses = ids.map((id) => {
          const a = auctions.get(id);
          if (a === undefined || !a.open || a.sellerKey !== account.key) {
            return { auction_id: id, status: 'not_found' };
          }
          closeAuction(a, req.nowMs);
          return { auction_id: id, status: 'canceled' };
        });
        return ok({ statuses });
      },
    },
    {
      family: 'private',
      name: 'NftPlaceOffer',
      permission: [],
      handle: (req) => ok(placeOffer(req)),
    },
  ];
}

/** A non-empty array of non-empty strings (JSON), or a comma list (form). */
function stringArray(params: Params, field: string): string[] {
  const v = params[field];
  const list = Array.isArray(v)
    ? (v as unknown[])
    : typeof v === 'string'
      ? v.split(',')
      : undefined;
  if (list === undefined || list.length === 0) throw invalidArguments(field);
  return list.map((x) => {
    if (typeof x !== 'string' || x === '') throw invalidArguments(field);
    return x;
  });
}

/** Stable sort by a key; items without a key go last in either direction. */
function by<T>(list: readonly T[], key: (x: T) => number | undefined, dir: 'asc' | 'desc'): T[] {
  return [...list].sort((a, b) => {
    const ka = key(a);
    const kb = key(b);
    if (ka === undefined || kb === undefined) return ka === kb ? 0 : ka === undefined ? 1 : -1;
    return dir === 'asc' ? ka - kb : kb - ka;
  });
}

function encodeCursor(page: Page): string {
  return Buffer.from(JSON.stringify(page)).toString('base64url');
}

function decodeCursor(cursor: string): Page {
  try {
    const v = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Partial<Page>;
    if (
      typeof v.offset === 'number' &&
      Number.isSafeInteger(v.offset) &&
      v.offset >= 0 &&
      typeof v.sort === 'string' &&
      typeof v.filter === 'object' &&
      v.filter !== null &&
      Object.values(v.filter).every((x) => typeof x === 'string') &&
      (v.currency === undefined || typeof v.currency === 'string')
    ) {
      return { offset: v.offset, sort: v.sort, filter: v.filter, currency: v.currency };
    }
  } catch {
    // fall through: a cursor this simulator did not issue
  }
  throw invalidArguments('cursor');
}
