import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { NFT_CATALOGUE, nftRoutes } from '../../../src/sim/endpoints/nft.js';
import type { Account } from '../../../src/sim/state/accounts.js';
import { direct, rejectsWith, resultOf } from './rest-support.js';

type Rec = Record<string, unknown>;
interface Listing {
  auction_id: string;
  auction_type: string;
  price: { amount: string; currency: string };
}
interface NftView extends Rec {
  id: string;
  owner_id: string;
  status: string;
  listing: Listing | null;
}
interface ListPage<T> {
  items: T[];
  next_cursor: string | null;
  total_items: { relation: string; value: number };
}

const punks = NFT_CATALOGUE.collections[0]?.nfts ?? [];
const orbital = NFT_CATALOGUE.collections[1]?.nfts ?? [];
const DAY = 86_400_000;

function setup() {
  const d = direct();
  const routes = nftRoutes(d.ctx);
  const account = d.account();
  const pub = (name: string, params: Record<string, unknown> = {}) =>
    d.call(routes, name, undefined, params);
  const priv = (name: string, params: Record<string, unknown>, who: Account = account) =>
    d.call(routes, name, who, params);
  const nft = async (id: string, currency?: string) =>
    resultOf(
      await pub('Nft', { nft_id: id, ...(currency === undefined ? {} : { currency }) }),
    ) as NftView | null;
  return { d, account, pub, priv, nft };
}

describe('NFT market data', () => {
  it('reads one NFT, in its own currency or converted', async () => {
    const { nft } = setup();
    const n = await nft(punks[0] ?? '');
    assert.equal(n?.status, 'listed');
    assert.deepEqual(n?.listing?.price, { amount: '0.05', currency: 'ETH' });
    assert.equal(n?.listing?.auction_type, 'fixed');
    const usd = await nft(punks[0] ?? '', 'USD');
    assert.deepEqual(usd?.listing?.price, { amount: '150', currency: 'USD' });
    assert.equal(await nft('NTNOPE0-00000-000000'), null);
    assert.match(punks[0] ?? '', /^NT[A-Z2-7]{5}-[A-Z2-7]{5}-[A-Z2-7]{6}$/);
  });

  it('pages Nfts with a cursor that carries sort and filter', async () => {
    const { pub } = setup();
    await rejectsWith(pub('Nfts', {}), 'EGeneral:Invalid arguments:page_size');
    await rejectsWith(pub('Nfts', { page_size: '0' }), 'EGeneral:Invalid arguments:page_size');
    await rejectsWith(
      pub('Nfts', { page_size: '5', sort: 'Cheapest' }),
      'EGeneral:Invalid arguments:sort',
    );
    await rejectsWith(
      pub('Nfts', { page_size: '5', 'filter[colour]': 'red' }),
      'EGeneral:Invalid arguments:filter',
    );
    await rejectsWith(
      pub('Nfts', { page_size: '5', cursor: 'garbage' }),
      'EGeneral:Invalid arguments:cursor',
    );
    const seen: string[] = [];
    let page = resultOf(
      await pub('Nfts', { page_size: '5', sort: 'RarityRankLowToHigh' }),
    ) as ListPage<NftView>;
    assert.deepEqual(page.total_items, { relation: 'eq', value: punks.length + orbital.length });
    for (;;) {
      seen.push(...page.items.map((i) => i.id));
      if (page.next_cursor === null) break;
      page = resultOf(
        await pub('Nfts', { page_size: '5', cursor: page.next_cursor }),
      ) as ListPage<NftView>;
    }
    assert.equal(seen.length, 14);
    assert.equal(new Set(seen).size, 14);

    const listed = resultOf(
      await pub('Nfts', {
        page_size: '100',
        sort: 'PriceLowToHigh',
        'filter[collection_id]': NFT_CATALOGUE.collections[0]?.id,
        'filter[status]': 'listed',
      }),
    ) as ListPage<NftView>;
    assert.deepEqual(
      listed.items.map((i) => i.listing?.price.amount),
      ['0.05', '0.1', '0.1', '0.15', '0.2'],
    );
  });

  it('bounds NftProvenance pages', async () => {
    const { pub } = setup();
    const id = punks[1] ?? '';
    const res = resultOf(await pub('NftProvenance', { nft_id: id })) as {
      items: Rec[];
      total: number;
    };
    // minted, sold once, then listed
    assert.equal(res.total, 3);
    assert.deepEqual(
      res.items.map((e) => e.event_type),
      ['list', 'sale', 'mint'],
    );
    const second = resultOf(
      await pub('NftProvenance', { nft_id: id, page: '2', per_page: '2' }),
    ) as {
      items: Rec[];
    };
    assert.deepEqual(
      second.items.map((e) => e.event_type),
      ['mint'],
    );
    await rejectsWith(
      pub('NftProvenance', { nft_id: id, per_page: '0' }),
      'EGeneral:Invalid arguments:per_page',
    );
    await rejectsWith(
      pub('NftProvenance', { nft_id: id, per_page: '1001' }),
      'EGeneral:Invalid arguments:per_page',
    );
    await rejectsWith(
      pub('NftProvenance', { nft_id: id, page: '65537' }),
      'EGeneral:Invalid arguments:page',
    );
    await rejectsWith(pub('NftProvenance', {}), 'EGeneral:Invalid arguments:nft_id');
  });

  it('reads collections and creators', async () => {
    const { pub } = setup();
    const [punksCol, orbitalCol] = NFT_CATALOGUE.collections;
    const col = resultOf(await pub('NftCollection', { collection_id: punksCol?.id })) as Rec;
    assert.equal(col.item_count, 8);
    assert.deepEqual(col.floor_price, { amount: '0.05', currency: 'ETH' });
    assert.equal(resultOf(await pub('NftCollection', { collection_id: 'NCNOPE' })), null);
    const byVolume = resultOf(
      await pub('NftCollections', { page_size: '10', sort: 'ByAllTimeKrakenVolumeDesc' }),
    ) as ListPage<Rec>;
    // 41.5 ETH (about 124500 USD) against 250000 USD
    assert.deepEqual(
      byVolume.items.map((c) => c.id),
      [orbitalCol?.id, punksCol?.id],
    );
    const byName = resultOf(
      await pub('NftCollections', { page_size: '1', sort: 'NameAsc' }),
    ) as ListPage<Rec>;
    assert.equal(byName.items[0]?.name, 'Orbital Landscapes');
    assert.ok(byName.next_cursor !== null);
    await rejectsWith(
      pub('NftCollections', { sort: 'NameAsc' }),
      'EGeneral:Invalid arguments:page_size',
    );
    const creator = resultOf(
      await pub('NftCreator', { creator_id: NFT_CATALOGUE.creators[0] }),
    ) as Rec;
    assert.equal(creator.name, 'Pixel Forge Studio');
    const creators = resultOf(
      await pub('NftCreators', { 'filter[verified]': 'true' }),
    ) as ListPage<Rec>;
    assert.equal(creators.items.length, 1);
  });
});

describe('NFT trading', () => {
  it('buys a fixed-price NFT with an offer at the ask and lists it again', async () => {
    const { account, priv, nft } = setup();
    const id = punks[1] ?? '';
    const bought = resultOf(
      await priv('NftPlaceOffer', { nft_id: [id], offer_amount: '0.1', offer_currency: 'ETH' }),
    ) as { offer_id: string; status: string };
    assert.equal(bought.status, 'accepted');
    assert.equal(account.wallet.balance('XETH').toFixed(), '999.9');
    const after = await nft(id);
    assert.equal(after?.owner_id, account.accountUid);
    assert.equal(after?.status, 'unlisted');

    await rejectsWith(
      priv('NftCreateAuction', {
        auction_currency: 'ETH',
        auction_type: 'fixed',
        auction_params: {},
        nft_id: [id],
      }),
      'EGeneral:Invalid arguments:auction_params.ask_price',
    );
    await rejectsWith(
      priv('NftCreateAuction', {
        auction_currency: 'ETH',
        auction_type: 'fixed',
        auction_params: { ask_price: '1' },
        nft_id: [punks[2]],
      }),
      'EGeneral:Invalid arguments:nft_id',
    );
    const { auction_id } = resultOf(
      await priv('NftCreateAuction', {
        auction_currency: 'ETH',
        auction_type: 'fixed',
        auction_params: { ask_price: '0.3', allow_offers: true },
        nft_id: [id],
      }),
    ) as { auction_id: string };
    assert.equal((await nft(id))?.listing?.price.amount, '0.3');
    await rejectsWith(
      priv('NftCreateAuction', {
        auction_currency: 'ETH',
        auction_type: 'fixed',
        auction_params: { ask_price: '1' },
        nft_id: [id],
      }),
      'EGeneral:Invalid arguments:nft_id',
    );

    assert.deepEqual(resultOf(await priv('NftModifyAuction', { auction_id, ask_price: '0.25' })), {
      auction_id,
    });
    assert.equal((await nft(id))?.listing?.price.amount, '0.25');
    await rejectsWith(
      priv('NftModifyAuction', { auction_id, reserve_price: '0.1' }),
      'EGeneral:Invalid arguments:reserve_price',
    );
    await rejectsWith(
      priv('NftModifyAuction', { auction_id }),
      'EGeneral:Invalid arguments:ask_price',
    );

    const cancel = resultOf(
      await priv('NftCancelAuction', { auction_ids: [auction_id, 'ATNOPE-00000-000000'] }),
    );
    assert.deepEqual(cancel, {
      statuses: [
        { auction_id, status: 'canceled' },
        { auction_id: 'ATNOPE-00000-000000', status: 'not_found' },
      ],
    });
    assert.equal((await nft(id))?.status, 'unlisted');
  });

  it('keeps a low offer open and refuses offers without funds or on own NFTs', async () => {
    const { d, priv } = setup();
    const low = resultOf(
      await priv('NftPlaceOffer', {
        nft_id: [punks[3]],
        offer_amount: '0.01',
        offer_currency: 'ETH',
      }),
    ) as { status: string; offer_id: string };
    assert.equal(low.status, 'open');
    assert.match(low.offer_id, /^OF/);
    const poor = d.account({ balances: { XETH: '0.001' } });
    await rejectsWith(
      priv(
        'NftPlaceOffer',
        { nft_id: [punks[3]], offer_amount: '0.01', offer_currency: 'ETH' },
        poor,
      ),
      'EFunding:Insufficient funds',
    );
    await rejectsWith(
      priv('NftPlaceOffer', { nft_id: [punks[3]], offer_currency: 'ETH' }),
      'EGeneral:Invalid arguments:offer_amount',
    );
    await rejectsWith(
      priv('NftPlaceOffer', { nft_id: [], offer_amount: '1', offer_currency: 'ETH' }),
      'EGeneral:Invalid arguments:nft_id',
    );
    await priv('NftPlaceOffer', {
      nft_id: [punks[0]],
      offer_amount: '0.05',
      offer_currency: 'ETH',
    });
    await rejectsWith(
      priv('NftPlaceOffer', { nft_id: [punks[0]], offer_amount: '1', offer_currency: 'ETH' }),
      'EGeneral:Invalid arguments:nft_id',
    );
  });

  it('sells a descending auction at its current, falling price', async () => {
    const { account, priv, nft } = setup();
    const id = orbital[1] ?? '';
    // started a day ago at 2000 USD, reaches 800 a day from now: 1400 now
    assert.equal((await nft(id))?.listing?.price.amount, '1400');
    const res = resultOf(
      await priv('NftPlaceOffer', { nft_id: [id], offer_amount: '1500', offer_currency: 'USD' }),
    ) as { status: string };
    assert.equal(res.status, 'accepted');
    assert.equal(account.wallet.balance('ZUSD').toFixed(), '998600');
  });

  it('closes an ascending auction at its end', async () => {
    const { d, nft } = setup();
    const id = punks[4] ?? '';
    assert.equal((await nft(id))?.listing?.auction_type, 'ascending');
    await d.advance(2 * DAY);
    assert.equal((await nft(id))?.status, 'unlisted');
  });
});
