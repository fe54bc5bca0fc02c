import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fundingRoutes, WITHDRAWAL_SETTLE_MS } from '../../../src/sim/endpoints/funding.js';
import { withdrawInfoRoutes } from '../../../src/sim/endpoints/withdraw-info.js';
import type { Account } from '../../../src/sim/state/accounts.js';
import { direct, rejectsWith, resultOf } from './rest-support.js';

type Rec = Record<string, unknown>;

function setup() {
  const d = direct();
  const routes = [...fundingRoutes(d.ctx), ...withdrawInfoRoutes(d.ctx)];
  const account = d.account();
  const callAs = (who: Account, name: string, params: Record<string, unknown> = {}) =>
    d.call(routes, name, who, params);
  const call = (name: string, params: Record<string, unknown> = {}) =>
    callAs(account, name, params);
  return { d, account, call, callAs };
}

describe('deposits', () => {
  it('lists methods per asset', async () => {
    const { call } = setup();
    const methods = resultOf(await call('DepositMethods', { asset: 'XBT' })) as Rec[];
    assert.deepEqual(
      methods.map((m) => m.method),
      ['Bitcoin', 'Bitcoin Lightning'],
    );
    assert.deepEqual(methods[0], {
      method: 'Bitcoin',
      limit: false,
      fee: '0',
      'gen-address': true,
      minimum: '0.0001',
    });
    await rejectsWith(call('DepositMethods', { asset: 'DOGE' }), 'EQuery:Unknown asset');
    await rejectsWith(call('DepositMethods'), 'EGeneral:Invalid arguments:asset');
  });

  it('gives stable addresses and a new one on request', async () => {
    const { call } = setup();
    const first = resultOf(
      await call('DepositAddresses', { asset: 'XETH', method: 'Ether' }),
    ) as Rec[];
    assert.equal(first.length, 1);
    assert.match(String(first[0]?.address), /^0x[0-9a-f]{40}$/);
    const again = resultOf(
      await call('DepositAddresses', { asset: 'ETH', method: 'Ether' }),
    ) as Rec[];
    assert.deepEqual(again, first);
    const fresh = resultOf(
      await call('DepositAddresses', { asset: 'ETH', method: 'Ether', new: 'true' }),
    ) as Rec[];
    assert.equal(fresh.length, 2);
    assert.equal(fresh[0]?.new, true);
    assert.notEqual(fresh[0]?.address, first[0]?.address);
    await rejectsWith(
      call('DepositAddresses', { asset: 'USD', method: 'Bank Wire (USD)' }),
      'EGeneral:Invalid arguments:method',
    );
    await rejectsWith(
      call('DepositAddresses', { asset: 'XBT', method: 'Bitcoin Lightning' }),
      'EGeneral:Invalid arguments:amount',
    );
    const invoice = resultOf(
      await call('DepositAddresses', {
        asset: 'XBT',
        method: 'Bitcoin Lightning',
        amount: '0.001',
      }),
    ) as Rec[];
    assert.match(String(invoice[0]?.address), /^lnbc1/);
  });

  it('pages deposit status with a cursor', async () => {
    const { call } = setup();
    const all = resultOf(await call('DepositStatus')) as Rec[];
    assert.equal(all.length, 6);
    const times = all.map((r) => r.time as number);
    assert.deepEqual(
      times,
      [...times].sort((a, b) => b - a),
    );
    assert.equal(all[0]?.status, 'Success');
    const usd = resultOf(await call('DepositStatus', { asset: 'USD' })) as Rec[];
    assert.ok(usd.length > 0 && usd.every((r) => r.asset === 'ZUSD'));
    const page1 = resultOf(await call('DepositStatus', { cursor: 'true', limit: '4' })) as {
      deposit: Rec[];
      next_cursor: string | null;
    };
    assert.equal(page1.deposit.length, 4);
    assert.ok(page1.next_cursor !== null);
    const page2 = resultOf(
      await call('DepositStatus', { cursor: page1.next_cursor, limit: '4' }),
    ) as { deposit: Rec[]; next_cursor: string | null };
    assert.equal(page2.deposit.length, 2);
    assert.equal(page2.next_cursor, null);
    assert.deepEqual([...page1.deposit, ...page2.deposit], all);
    const withOrigin = resultOf(await call('DepositStatus', { originators: true })) as Rec[];
    assert.ok(Array.isArray(withOrigin[0]?.originators));
  });
});

describe('withdrawals', () => {
  it('lists methods and the saved addresses', async () => {
    const { call } = setup();
    const methods = resultOf(await call('WithdrawMethods', { asset: 'XETH' })) as Rec[];
    assert.deepEqual(methods, [
      { asset: 'XETH', method: 'Ether', network: 'Ethereum', minimum: '0.005', fee: '0.0025' },
    ]);
    const addresses = resultOf(await call('WithdrawAddresses')) as Rec[];
    assert.deepEqual(
      addresses.map((a) => a.key),
      ['btc-cold', 'btc-lightning', 'eth-main', 'usd-bank'],
    );
    assert.ok(addresses.every((a) => a.verified === true));
  });

  it('refuses unknown keys, low amounts, a max fee below the fee and missing funds', async () => {
    const { account, call } = setup();
    await rejectsWith(
      call('Withdraw', { asset: 'XBT', key: 'nope', amount: '1' }),
      'EFunding:Unknown withdraw key',
    );
    await rejectsWith(
      call('Withdraw', { asset: 'XBT', key: 'eth-main', amount: '1' }),
      'EFunding:Unknown withdraw key',
    );
    await rejectsWith(
      call('Withdraw', { asset: 'XBT', key: 'btc-cold', amount: '0.0001' }),
      'EFunding:Invalid amount',
    );
    await rejectsWith(
      call('Withdraw', { asset: 'XBT', key: 'btc-cold', amount: '1', max_fee: '0.0001' }),
      'EFunding:Max fee exceeded',
    );
    await rejectsWith(
      call('Withdraw', { asset: 'XBT', key: 'btc-cold', amount: '100.1' }),
      'EFunding:Insufficient funds',
    );
    await rejectsWith(
      call('Withdraw', { asset: 'XBT', key: 'btc-cold', amount: '1', address: 'bc1qother' }),
      'EGeneral:Invalid arguments:address',
    );
    assert.equal(account.wallet.balance('XXBT').toFixed(), '100');
  });

  it('debits at once, is Pending, then Success; cancel only while pending', async () => {
    const { d, account, call } = setup();
    const { refid } = resultOf(
      await call('Withdraw', { asset: 'XBT', key: 'btc-cold', amount: '1', max_fee: '0.001' }),
    ) as { refid: string };
    assert.equal(account.wallet.balance('XXBT').toFixed(), '99');
    let [rec] = resultOf(await call('WithdrawStatus', { asset: 'XBT' })) as Rec[];
    assert.equal(rec?.refid, refid);
    assert.equal(rec?.status, 'Pending');
    assert.equal(rec?.amount, '0.99985');
    assert.equal(rec?.fee, '0.00015');
    assert.equal(rec?.method, 'Bitcoin');
    assert.equal(rec?.key, 'btc-cold');
    assert.equal(rec?.aclass, 'currency');
    assert.equal(rec?.time, 1_700_000_000);
    assert.match(String(rec?.info), /^bc1q/);

    await d.advance(WITHDRAWAL_SETTLE_MS);
    [rec] = resultOf(await call('WithdrawStatus')) as Rec[];
    assert.equal(rec?.status, 'Success');
    assert.match(String(rec?.txid), /^[0-9a-f]{64}$/);
    assert.equal(resultOf(await call('WithdrawCancel', { asset: 'XBT', refid })), false);

    const second = resultOf(
      await call('Withdraw', { asset: 'ETH', key: 'eth-main', amount: '10' }),
    ) as { refid: string };
    assert.equal(account.wallet.balance('XETH').toFixed(), '990');
    await rejectsWith(
      call('WithdrawCancel', { asset: 'XBT', refid: second.refid }),
      'EFunding:Unknown reference id',
    );
    assert.equal(
      resultOf(await call('WithdrawCancel', { asset: 'ETH', refid: second.refid })),
      true,
    );
    assert.equal(account.wallet.balance('XETH').toFixed(), '1000');
    const eth = resultOf(await call('WithdrawStatus', { asset: 'XETH' })) as Rec[];
    assert.equal(eth[0]?.status, 'Failure');
    assert.equal(eth[0]?.['status-prop'], 'canceled');
    await d.advance(WITHDRAWAL_SETTLE_MS);
    assert.equal(
      ((resultOf(await call('WithdrawStatus', { asset: 'XETH' })) as Rec[])[0] ?? {}).status,
      'Failure',
    );
  });

  it('reports fee and limit through WithdrawInfo', async () => {
    const { account, call } = setup();
    assert.deepEqual(
      resultOf(await call('WithdrawInfo', { asset: 'XBT', key: 'btc-cold', amount: '0.5' })),
      { method: 'Bitcoin', limit: '99.99985', amount: '0.49985', fee: '0.00015' },
    );
    await rejectsWith(
      call('WithdrawInfo', { asset: 'XBT', key: 'usd-bank', amount: '0.5' }),
      'EFunding:Unknown withdraw key',
    );
    account.permissions.delete('funds-query');
    await rejectsWith(
      call('WithdrawInfo', { asset: 'XBT', key: 'btc-cold', amount: '0.5' }),
      'EGeneral:Permission denied',
    );
  });
});

describe('WalletTransfer', () => {
  it('moves spot funds to the futures wallet and shows as a cancellable transfer', async () => {
    const { d, account, call, callAs } = setup();
    await rejectsWith(
      call('WalletTransfer', {
        asset: 'XBT',
        from: 'Futures Wallet',
        to: 'Spot Wallet',
        amount: '1',
      }),
      'EGeneral:Invalid arguments:from',
    );
    await rejectsWith(
      call('WalletTransfer', { asset: 'XBT', from: 'Spot Wallet', to: 'Spot Wallet', amount: '1' }),
      'EGeneral:Invalid arguments:to',
    );
    const { refid } = resultOf(
      await call('WalletTransfer', {
        asset: 'USD',
        from: 'Spot Wallet',
        to: 'Futures Wallet',
        amount: '2500',
      }),
    ) as { refid: string };
    assert.equal(account.wallet.balance('ZUSD').toFixed(), '997500');
    const [rec] = resultOf(await call('WithdrawStatus', { asset: 'USD' })) as Rec[];
    assert.equal(rec?.refid, refid);
    assert.equal(rec?.method, 'Wallet Transfer');

    // WithdrawCancel needs no withdraw permission for a wallet transfer, but does for the rest
    account.permissions.delete('funds-withdraw');
    assert.equal(resultOf(await callAs(account, 'WithdrawCancel', { asset: 'USD', refid })), true);
    assert.equal(account.wallet.balance('ZUSD').toFixed(), '1000000');
    const other = d.account({ permissions: ['funds-query'] });
    await rejectsWith(
      callAs(other, 'WithdrawCancel', { asset: 'USD', refid: 'AXXXXX-XXXXX-XXXXXX' }),
      'EGeneral:Permission denied',
    );
  });
});
