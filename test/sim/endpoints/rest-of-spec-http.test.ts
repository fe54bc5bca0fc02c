import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { unzipSync } from 'fflate';
import { ManualClock } from '../../../src/core/index.js';
import {
  CustodyProblemError,
  ExchangeError,
  FuturesError,
  type SpotClient,
} from '../../../src/index.js';
import { subaccountKey } from '../../../src/sim/endpoints/accounts-admin.js';
import { vaultIdOf } from '../../../src/sim/endpoints/custody.js';
import { EARN_OPERATION_MS } from '../../../src/sim/endpoints/earn.js';
import { EXPORT_PROCESS_MS, EXPORT_QUEUE_MS } from '../../../src/sim/endpoints/exports.js';
import { WITHDRAWAL_SETTLE_MS } from '../../../src/sim/endpoints/funding.js';
import { futuresRfqsOf } from '../../../src/sim/endpoints/futures.js';
import { NFT_CATALOGUE } from '../../../src/sim/endpoints/nft.js';
import { payHandleOf } from '../../../src/sim/endpoints/pay.js';
import { startTestSim, type TestSim } from '../../support/sim.js';

/**
 * The rest of the spec over HTTP with the project's typed client, whose schemas check every
 * answer: earn, exports, funding, subaccounts, NFT, OTC, pay, WithdrawInfo, futures, custody.
 */

async function rawError(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    if (e instanceof ExchangeError) return e.raw;
    throw e;
  }
  return 'no error';
}

async function failure<T extends Error>(
  p: Promise<unknown>,
  cls: new (...a: never[]) => T,
): Promise<T> {
  try {
    await p;
  } catch (e) {
    if (e instanceof cls) return e;
    throw e;
  }
  assert.fail('expected a failure');
}

describe('the rest of the spec over HTTP', () => {
  const clock = new ManualClock(Date.parse('2026-03-02T10:00:00Z'));
  let sim: TestSim;
  let client: SpotClient;

  /** A fresh key per test keeps each under the REST counter's maximum (the clock is manual). */
  const fresh = (tier: 'starter' | 'intermediate' | 'pro' = 'pro') => {
    const key = sim.addAccount({ tier });
    return { key, c: sim.client({ key }), account: sim.ctx.accounts.require(key.apiKey) };
  };

  before(async () => {
    sim = await startTestSim({ clock });
  });
  beforeEach(() => {
    client = fresh().c;
  });
  after(() => sim.close());

  it('Earn: strategies, an allocation from pending to done, allocations', async () => {
    const { c } = fresh('intermediate');
    const starter = fresh('starter').c;
    const strategies = (await c.earnStrategies()).result;
    assert.ok(strategies.items.length >= 3);
    assert.equal(strategies.next_cursor, null);
    const xbt = 'ESRFUO3-Q62XD-WIOIL7';
    assert.equal((await c.earnAllocate({ strategy_id: xbt, amount: '2' })).result, true);
    assert.equal((await c.earnAllocateStatus({ strategy_id: xbt })).result.pending, true);
    await clock.advance(EARN_OPERATION_MS);
    assert.equal((await c.earnAllocateStatus({ strategy_id: xbt })).result.pending, false);
    const balance = (await c.balance()).result as Record<string, string>;
    assert.equal(Number(balance.XXBT), 98);
    const allocations = (await c.earnAllocations()).result;
    assert.equal(allocations.converted_asset, 'USD');
    assert.equal(allocations.items.length, 1);
    // a starter key: the tier refusal comes back typed
    assert.equal(
      await rawError(starter.earnAllocate({ strategy_id: xbt, amount: '1' })),
      "EEarnings:Permission denied:The user's tier is not high enough",
    );
    const starterView = (await starter.earnStrategies({ lock_type: ['instant'] })).result;
    assert.equal(starterView.items[0]?.can_allocate, false);
  });

  it('Exports: AddExport to Processed, a zip of the trades, RemoveExport', async () => {
    const seller = sim.addAccount();
    await sim.client({ key: seller }).addOrder({
      pair: 'XBTUSD',
      type: 'sell',
      ordertype: 'limit',
      price: '60000',
      volume: '0.01',
    });
    await client.addOrder({
      pair: 'XBTUSD',
      type: 'buy',
      ordertype: 'limit',
      price: '60000',
      volume: '0.01',
    });
    const { id } = (
      await client.addExport({
        report: 'trades',
        description: 'http test',
        fields: ['price', 'vol'],
      })
    ).result;
    assert.equal((await client.exportStatus({ report: 'trades' })).result[0]?.status, 'Queued');
    await clock.advance(EXPORT_QUEUE_MS + EXPORT_PROCESS_MS);
    const [rec] = (await client.exportStatus({ report: 'trades' })).result;
    assert.equal(rec?.status, 'Processed');
    const zip = (await client.retrieveExport({ id })).result;
    const files = unzipSync(zip);
    const csv = Buffer.from(files['trades.csv'] ?? new Uint8Array()).toString('utf8');
    const lines = csv.trimEnd().split('\n');
    assert.equal(lines[0], '"txid","pair","type","price","vol"');
    assert.equal(lines.length, 2);
    assert.match(lines[1] ?? '', /^"T[A-Z2-7-]+","XXBTZUSD","buy","60000","0.01"$/);
    assert.deepEqual((await client.removeExport({ id, type: 'delete' })).result, { delete: true });
    assert.equal(
      await rawError(client.removeExport({ id, type: 'delete' })),
      'EGeneral:Invalid arguments:id',
    );
  });

  it('Funding: methods, addresses, a withdrawal cancelled and one completed, a wallet transfer', async () => {
    assert.ok(Array.isArray((await client.depositMethods({ asset: 'XBT' })).result));
    assert.ok(
      Array.isArray((await client.depositAddresses({ asset: 'XBT', method: 'Bitcoin' })).result),
    );
    assert.ok(Array.isArray((await client.depositStatus()).result));
    assert.ok(Array.isArray((await client.withdrawMethods()).result));
    assert.ok(Array.isArray((await client.withdrawAddresses()).result));
    assert.equal(
      await rawError(
        client.withdraw({ asset: 'XBT', key: 'btc-cold', amount: '1', max_fee: '0.0001' }),
      ),
      'EFunding:Max fee exceeded',
    );
    const first = (await client.withdraw({ asset: 'XBT', key: 'btc-cold', amount: '1' })).result;
    const refid = String(first.refid);
    assert.equal((await client.withdrawCancel({ asset: 'XBT', refid })).result, true);
    const second = (await client.withdraw({ asset: 'ETH', key: 'eth-main', amount: '2' })).result;
    await clock.advance(WITHDRAWAL_SETTLE_MS);
    const records = (await client.withdrawStatus()).result;
    assert.ok(Array.isArray(records));
    const byRef = new Map(
      (records as { refid: string; status: string }[]).map((r) => [r.refid, r.status]),
    );
    assert.equal(byRef.get(refid), 'Failure');
    assert.equal(byRef.get(String(second.refid)), 'Success');
    const transfer = await client.walletTransfer({
      asset: 'USD',
      from: 'Spot Wallet',
      to: 'Futures Wallet',
      amount: '100',
    });
    assert.match(transfer.result.refid, /^B/);
    const info = (await client.withdrawInfo({ asset: 'XBT', key: 'btc-cold', amount: '0.5' }))
      .result;
    assert.equal(info.fee, '0.00015');
  });

  it('Subaccounts, AccountTransfer and the websocket token', async () => {
    const { key: master, c } = fresh();
    assert.equal(
      (await c.createSubaccount({ username: 'http-sub', email: 's@x.io' })).result,
      true,
    );
    const m = sim.ctx.accounts.require(master.apiKey);
    const sub = sim.ctx.accounts.require(subaccountKey(master.apiKey, 'http-sub'));
    const res = (
      await c.accountTransfer({ asset: 'USD', amount: '10', from: m.iiban, to: sub.iiban })
    ).result;
    assert.equal(res.status, 'complete');
    assert.equal(sub.wallet.balance('ZUSD').toFixed(), '10');
    assert.equal((await client.getWebSocketsToken()).result.expires, 900);
  });

  it('NFT: public reads and a purchase, listing, change and cancellation', async () => {
    const [punks] = NFT_CATALOGUE.collections;
    assert.ok(punks !== undefined);
    const first = (await client.nfts({ page_size: 3, sort: 'RecentlyAdded' })).result;
    assert.equal((first.items as unknown[]).length, 3);
    const more = (await client.nfts({ page_size: 3, cursor: String(first.next_cursor) })).result;
    assert.equal((more.items as unknown[]).length, 3);
    const filtered = (await client.nfts({ page_size: 50, filter: { collection_id: punks.id } }))
      .result;
    assert.equal((filtered.items as unknown[]).length, punks.nfts.length);
    const id = punks.nfts[2] ?? '';
    assert.equal(((await client.nft({ nft_id: id })).result as { id: string }).id, id);
    assert.equal((await client.nftProvenance({ nft_id: id, per_page: 1 })).result.items.length, 1);
    assert.ok((await client.nftCollections({ page_size: 10 })).result.items.length === 2);
    assert.ok((await client.nftCollection({ collection_id: punks.id })).result !== null);
    assert.ok((await client.nftCreators()).result !== null);
    assert.ok((await client.nftCreator({ creator_id: NFT_CATALOGUE.creators[0] ?? '' })).result);

    const offer = (
      await client.nftPlaceOffer({ nft_id: [id], offer_amount: '0.15', offer_currency: 'ETH' })
    ).result as { status: string };
    assert.equal(offer.status, 'accepted');
    const { auction_id } = (
      await client.nftCreateAuction({
        auction_currency: 'ETH',
        auction_type: 'descending',
        auction_params: { start_price: '1', reserve_price: '0.5' },
        nft_id: [id],
      })
    ).result;
    assert.deepEqual((await client.nftModifyAuction({ auction_id, reserve_price: '0.4' })).result, {
      auction_id,
    });
    assert.deepEqual((await client.nftCancelAuction({ auction_ids: [auction_id] })).result, {
      statuses: [{ auction_id, status: 'canceled' }],
    });
  });

  it('OTC history pages and refuses bad input', async () => {
    const end = Math.floor(clock.now() / 1000);
    const page = (await client.getOtcSpotTradeHistory({ start_date: 0, end_date: end })).result;
    assert.equal(page.length, 100);
    assert.equal(
      await rawError(client.getOtcSpotTradeHistory({ start_date: end, end_date: end })),
      'EGeneral:Invalid arguments',
    );
    assert.equal(
      await rawError(client.getOtcSpotTradeHistory({ start_date: 0, end_date: end, limit: -1 })),
      'EGeneral:Invalid arguments:limit',
    );
  });

  it('Pay: a transfer, then the same external_id refused', async () => {
    const other = sim.addAccount();
    const to = payHandleOf(sim.ctx.accounts.require(other.apiKey));
    const ok = (
      await client.payTransferCreate({ amount: '1', asset: 'USD', to, external_id: 'c2ltLXBheQ' })
    ).result;
    assert.equal(ok.status, 'pending');
    const again = await rawError(
      client.payTransferCreate({ amount: '1', asset: 'USD', to, external_id: 'c2ltLXBheQ' }),
    );
    assert.match(again, /^EFunding:External id already used:external_id c2ltLXBheQ was used/);
  });

  it('Futures: key check, fills and accepting an RFQ', async () => {
    const { key, c: futures, account } = fresh();
    client = futures;
    const details = (await client.futuresCheckApiKey()).result;
    assert.equal(details.apiKey, key.apiKey);
    assert.equal(details.iiban, account.iiban);
    const fills = (await client.futuresFills()).result;
    assert.equal(fills.fills.length, 100);
    const older = (await client.futuresFills({ lastFillTime: fills.fills.at(-1)?.fillTime }))
      .result;
    assert.equal(older.fills.length, 100);
    const [rfq] = futuresRfqsOf(account);
    assert.ok(rfq !== undefined);
    const accepted = await client.futuresAcceptRfqOffer({
      rfqUid: rfq.rfqUid,
      askAccepted: rfq.ask,
    });
    assert.equal(accepted.result.rfqUid, rfq.rfqUid);
    const gone = await failure(
      client.futuresAcceptRfqOffer({ rfqUid: rfq.rfqUid, askAccepted: rfq.ask }),
      FuturesError,
    );
    assert.equal(gone.status, 404);
  });

  it('Custody: withdrawal methods of the own vault, PermissionDenied for another', async () => {
    const { c: custody, account } = fresh();
    client = custody;
    const methods = (await client.custodyWithdrawalMethods({ vault_id: vaultIdOf(account) }))
      .result;
    assert.ok(methods.length > 0);
    const eth = (
      await client.custodyWithdrawalMethods({
        vault_id: vaultIdOf(account),
        asset: 'ETH',
        asset_class: 'currency',
      })
    ).result;
    assert.ok(eth.every((m) => m.asset === 'ETH'));
    const other = sim.ctx.accounts.require(sim.addAccount().apiKey);
    const denied = await failure(
      client.custodyWithdrawalMethods({ vault_id: vaultIdOf(other) }),
      CustodyProblemError,
    );
    assert.equal(denied.status, 403);
    const bad = await failure(
      client.custodyWithdrawalMethods({ vault_id: 'VNOTAVAULT' }),
      CustodyProblemError,
    );
    assert.equal(bad.status, 400);
  });
});
