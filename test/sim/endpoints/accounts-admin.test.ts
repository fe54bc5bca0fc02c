import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { accountsAdminRoutes, subaccountKey } from '../../../src/sim/endpoints/accounts-admin.js';
import { direct, rejectsWith, resultOf } from './rest-support.js';

function setup() {
  const d = direct();
  const routes = accountsAdminRoutes(d.ctx);
  const master = d.account();
  const call = (name: string, params: Record<string, unknown> = {}, who = master) =>
    d.call(routes, name, who, params);
  return { d, master, call };
}

describe('CreateSubaccount', () => {
  it('creates a subaccount once per username and email', async () => {
    const { d, master, call } = setup();
    assert.equal(
      resultOf(await call('CreateSubaccount', { username: 'desk-1', email: 'a@b.io' })),
      true,
    );
    const sub = d.ctx.accounts.get(subaccountKey(master.key, 'desk-1'));
    assert.equal(sub?.kind, 'subaccount');
    assert.equal(sub?.tier, master.tier);
    await rejectsWith(
      call('CreateSubaccount', { username: 'desk-1', email: 'other@b.io' }),
      'EGeneral:Invalid arguments:username already exists',
    );
    await rejectsWith(
      call('CreateSubaccount', { username: 'desk-2', email: 'A@b.io' }),
      'EGeneral:Invalid arguments:email already exists',
    );
    await rejectsWith(
      call('CreateSubaccount', { username: 'desk-3' }),
      'EGeneral:Invalid arguments:email',
    );
    await rejectsWith(
      call('CreateSubaccount', { username: 'desk-3', email: 'not-an-email' }),
      'EGeneral:Invalid arguments:email',
    );
    if (sub === undefined) return;
    await rejectsWith(
      call('CreateSubaccount', { username: 'deeper', email: 'c@b.io' }, sub),
      'EGeneral:Permission denied',
    );
  });
});

describe('AccountTransfer', () => {
  it('moves funds between the master and its subaccounts only', async () => {
    const { d, master, call } = setup();
    await call('CreateSubaccount', { username: 'desk-1', email: 'a@b.io' });
    const sub = d.ctx.accounts.require(subaccountKey(master.key, 'desk-1'));
    const res = resultOf(
      await call('AccountTransfer', {
        asset: 'XBT',
        amount: '1.25',
        from: master.iiban,
        to: sub.iiban,
      }),
    ) as { transfer_id: string; status: string };
    assert.equal(res.status, 'complete');
    assert.match(res.transfer_id, /^T[A-Z2-7]{5}-[A-Z2-7]{5}-[A-Z2-7]{6}$/);
    assert.equal(master.wallet.balance('XXBT').toFixed(), '98.75');
    assert.equal(sub.wallet.balance('XXBT').toFixed(), '1.25');
    // back again, initiated by the master
    await call('AccountTransfer', {
      asset: 'XXBT',
      amount: '0.25',
      from: sub.iiban,
      to: master.iiban,
    });
    assert.equal(sub.wallet.balance('XXBT').toFixed(), '1');

    const stranger = d.account();
    await rejectsWith(
      call('AccountTransfer', {
        asset: 'XBT',
        amount: '1',
        from: master.iiban,
        to: stranger.iiban,
      }),
      'EGeneral:Permission denied',
    );
    await rejectsWith(
      call(
        'AccountTransfer',
        { asset: 'XBT', amount: '1', from: sub.iiban, to: master.iiban },
        sub,
      ),
      'EGeneral:Permission denied',
    );
    await rejectsWith(
      call('AccountTransfer', { asset: 'XBT', amount: '5', from: sub.iiban, to: master.iiban }),
      'EFunding:Insufficient funds',
    );
    await rejectsWith(
      call('AccountTransfer', {
        asset: 'XBT',
        amount: '1',
        from: 'AA00 0000 0000 0000',
        to: sub.iiban,
      }),
      'EGeneral:Invalid arguments:from',
    );
    await rejectsWith(
      call('AccountTransfer', { asset: 'XBT', amount: '-1', from: master.iiban, to: sub.iiban }),
      'EGeneral:Invalid arguments:amount',
    );
  });
});

describe('GetWebSocketsToken', () => {
  it('issues a fresh token valid for 900 seconds', async () => {
    const { call } = setup();
    const a = resultOf(await call('GetWebSocketsToken')) as { token: string; expires: number };
    const b = resultOf(await call('GetWebSocketsToken')) as { token: string; expires: number };
    assert.equal(a.expires, 900);
    assert.ok(a.token.length >= 40);
    assert.notEqual(a.token, b.token);
  });
});
