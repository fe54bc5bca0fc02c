import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PAY_SETTLE_MS, payHandleOf, payRoutes } from '../../../src/sim/endpoints/pay.js';
import type { Account } from '../../../src/sim/state/accounts.js';
import { direct, rawOf, rejectsWith, resultOf } from './rest-support.js';

function setup() {
  const d = direct();
  const routes = payRoutes(d.ctx);
  const alice = d.account();
  const bob = d.account();
  const send = (params: Record<string, unknown>, who: Account = alice) =>
    d.call(routes, 'Pay/transfer/create', who, params);
  return { d, alice, bob, send };
}

function payErrors(reply: Awaited<ReturnType<ReturnType<typeof setup>['send']>>) {
  const r = rawOf(reply);
  assert.equal(r.status, 200);
  return (r.body as { error: Record<string, unknown>[] }).error;
}

describe('Pay/transfer/create', () => {
  it('debits at once and credits a simulator recipient when the transfer completes', async () => {
    const { d, alice, bob, send } = setup();
    const res = resultOf(
      await send({
        amount: '12.5',
        asset: 'USD',
        to: payHandleOf(bob),
        external_id: 'AAECAwQFBgcICQoLDA0ODw',
      }),
    ) as { transfer_id: string; external_id: string; status: string };
    assert.equal(res.status, 'pending');
    assert.equal(res.external_id, 'AAECAwQFBgcICQoLDA0ODw');
    assert.equal(alice.wallet.balance('ZUSD').toFixed(), '999987.5');
    assert.equal(bob.wallet.balance('ZUSD').toFixed(), '1000000');
    await d.advance(PAY_SETTLE_MS);
    assert.equal(bob.wallet.balance('ZUSD').toFixed(), '1000012.5');
  });

  it('refuses a reused external_id forever, naming the first transfer', async () => {
    const { alice, send } = setup();
    const first = resultOf(
      await send({ amount: '1', asset: 'USD', to: '@someone-else', external_id: 'q83v' }),
    ) as { transfer_id: string };
    const errors = payErrors(
      await send({ amount: '2', asset: 'USD', to: '@another', external_id: 'q83v' }),
    );
    assert.deepEqual(errors, [
      {
        severity: 'E',
        errorClass: 'Funding',
        type: 'External id already used',
        errorMessage: `external_id q83v was used by transfer ${first.transfer_id}`,
      },
    ]);
    assert.equal(alice.wallet.balance('ZUSD').toFixed(), '999999');
  });

  it('validates fields with pay error objects; a refused id stays usable', async () => {
    const { bob, send } = setup();
    const to = payHandleOf(bob);
    const field = async (params: Record<string, unknown>) =>
      (payErrors(await send(params))[0] ?? {}).errorMessage;
    assert.equal(await field({ asset: 'USD', to, external_id: 'AA' }), 'amount');
    assert.equal(await field({ amount: '1', asset: 'DOGE', to, external_id: 'AA' }), 'asset');
    assert.equal(await field({ amount: '1.00001', asset: 'USD', to, external_id: 'AA' }), 'amount');
    // padding, more than 16 bytes, and a length no base64 text has
    assert.equal(
      await field({ amount: '1', asset: 'USD', to, external_id: 'AA==' }),
      'external_id',
    );
    assert.equal(
      await field({ amount: '1', asset: 'USD', to, external_id: 'AAECAwQFBgcICQoLDA0ODxA' }),
      'external_id',
    );
    assert.equal(
      await field({ amount: '1', asset: 'USD', to, external_id: 'AAAAA' }),
      'external_id',
    );
    assert.equal(
      await field({ amount: '1', asset: 'USD', to, external_id: 'AA', return_for: 'BB' }),
      'return_for',
    );
    const poor = payErrors(await send({ amount: '2000000', asset: 'USD', to, external_id: 'AA' }));
    assert.equal(poor[0]?.type, 'Insufficient funds');
    assert.equal(
      resultOf(await send({ amount: '1', asset: 'USD', to, external_id: 'AA' })) !== undefined,
      true,
    );
  });

  it('accepts a return of a received transfer', async () => {
    const { alice, bob, send } = setup();
    await send({ amount: '5', asset: 'USD', to: payHandleOf(bob), external_id: 'Zm9v' });
    const back = resultOf(
      await send(
        {
          amount: '5',
          asset: 'USD',
          to: payHandleOf(alice),
          external_id: 'YmFy',
          return_for: 'Zm9v',
        },
        bob,
      ),
    ) as { status: string };
    assert.equal(back.status, 'pending');
  });

  it('needs both funds-query and funds-withdraw', async () => {
    const { d, send } = setup();
    const reader = d.account({ permissions: ['funds-query'] });
    await rejectsWith(
      send({ amount: '1', asset: 'USD', to: '@x-y-z', external_id: 'AA' }, reader),
      'EGeneral:Permission denied',
    );
  });
});
