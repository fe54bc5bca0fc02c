import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { custodyRoutes, isVaultId, vaultIdOf } from '../../../src/sim/endpoints/custody.js';
import { direct, rawOf, resultOf } from './rest-support.js';

const ROUTE = '/v0/insto/custody/vaults/:vault_id/withdrawal-methods';

interface Method {
  name: string;
  method_id: string;
  fee_amount: string;
  fee_asset: string;
  fee_asset_class: string;
  minimum: string;
  is_disabled: boolean;
  asset: string;
  asset_class: string;
  network_info?: { network: string; explorer: string };
}

function setup() {
  const d = direct();
  const routes = custodyRoutes(d.ctx);
  const account = d.account();
  const call = (vault: string, params: Record<string, unknown> = {}) =>
    d.call(routes, ROUTE, account, params, { vault_id: vault });
  return { d, account, call };
}

function problemOf(reply: Awaited<ReturnType<ReturnType<typeof setup>['call']>>) {
  const r = rawOf(reply);
  const body = r.body as Record<string, unknown>;
  return { status: r.status, body };
}

describe('custody withdrawal methods', () => {
  it('gives every key a well-formed vault id', () => {
    const { d, account } = setup();
    const id = vaultIdOf(account);
    assert.match(id, /^V[A-Z2-7]{14}$/);
    assert.ok(isVaultId(id));
    assert.notEqual(vaultIdOf(d.account()), id);
    const last = id.charAt(14) === 'A' ? 'B' : 'A';
    assert.equal(isVaultId(id.slice(0, 14) + last), false);
  });

  it('lists methods with every field, network_info only where there is a chain', async () => {
    const { account, call } = setup();
    const all = resultOf(await call(vaultIdOf(account))) as Method[];
    assert.deepEqual([...new Set(all.map((m) => m.asset))], ['XBT', 'ETH', 'USD']);
    const btc = all.find((m) => m.name === 'Bitcoin');
    assert.deepEqual(Object.keys(btc ?? {}).sort(), [
      'asset',
      'asset_class',
      'fee_amount',
      'fee_asset',
      'fee_asset_class',
      'is_disabled',
      'method_id',
      'minimum',
      'name',
      'network_info',
    ]);
    assert.equal(btc?.fee_amount, '0.0001500000');
    assert.match(btc?.network_info?.explorer ?? '', /\{tx_id\}/);
    const wire = all.find((m) => m.name === 'Fedwire (USD)');
    assert.equal(wire?.network_info, undefined);
    assert.ok(all.some((m) => m.fee_asset !== m.asset));
    const eth = resultOf(
      await call(vaultIdOf(account), { asset: 'ETH', asset_class: 'currency' }),
    ) as Method[];
    assert.ok(eth.length > 0 && eth.every((m) => m.asset === 'ETH'));
  });

  it('answers problem documents for bad vaults, foreign vaults and assets', async () => {
    const { d, account, call } = setup();
    const bad = problemOf(await call('V123'));
    assert.equal(bad.status, 400);
    assert.equal(bad.body.type, 'tag:sim.invalid,2025:BadRequest');
    assert.equal(bad.body.status, 400);
    assert.equal(typeof (bad.body.data as { message: string }).message, 'string');
    assert.equal(typeof bad.body.detail, 'string');
    assert.match(String(bad.body.instance), /trace-1/);

    const foreign = problemOf(await call(vaultIdOf(d.account())));
    assert.equal(foreign.status, 403);
    assert.equal(foreign.body.type, 'tag:sim.invalid,2025:PermissionDenied');

    const mine = vaultIdOf(account);
    assert.equal(problemOf(await call(mine, { asset: 'XBT' })).status, 400);
    assert.equal(problemOf(await call(mine, { asset: 'XBT', asset_class: 'forex' })).status, 400);
    const missing = problemOf(await call(mine, { asset: 'DOGE', asset_class: 'currency' }));
    assert.equal(missing.status, 404);
    assert.equal(missing.body.type, 'tag:sim.invalid,2025:AssetNotFound');
  });
});
