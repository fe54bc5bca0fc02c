/**
 * Custody: `GET /v0/insto/custody/vaults/:vault_id/withdrawal-methods`.
 *
 * Each key owns one vault, {@link vaultIdOf}(account): `V`, 13 base32 characters derived from the
 * key, and a check character (the sum of each body character's base32 value times its 1-based
 * position, modulo 32, as a base32 character). Checks, in this order, each answered with a
 * problem document (`type: 'tag:sim.invalid,2025:<suffix>'`, `status`, `title`, `data:
 * {message}`, `detail`, `instance`):
 * 1. `vault_id` not of that shape or with a wrong check character: 400 `BadRequest`;
 * 2. a well-formed vault that is not the caller's (or nobody's): 403 `PermissionDenied`;
 * 3. `asset` without `asset_class`, or an `asset_class` other than `currency`: 400 `BadRequest`;
 * 4. an `asset` the simulator does not list: 404 `AssetNotFound`.
 * The result is the JSON array of methods of every configured asset (or of `asset`). Asset codes
 * are altnames (`XBT`, `ETH`, `USD`; `asset` accepts ids too). Amounts carry the asset's full
 * precision. `network_info` is omitted for bank methods. One method per default asset besides
 * the main one shows `is_disabled: true`, and `Bitcoin (fiat-billed)` charges its fee in USD.
 * Assets outside the built-in table get one chainless `<altname> internal transfer` method.
 */
import { Decimal } from '../../core/index.js';
import type { SimContext } from '../context.js';
import { ok, raw, type Route } from '../http/route.js';
import { problem } from '../http/auth.js';
import type { SimAsset } from '../markets.js';
import type { Account } from '../state/accounts.js';
import { callerOf } from './support.js';
import { base32Of, stableUuid } from '../ids.js';

const B32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

function checkChar(body: string): string {
  let sum = 0;
  for (let i = 0; i < body.length; i++) sum += (i + 1) * B32.indexOf(body.charAt(i));
  return B32.charAt(sum % 32);
}

/** The vault a key may read. */
export function vaultIdOf(account: Account): string {
  const body = base32Of(`vault:${account.key}`, 13);
  return `V${body}${checkChar(body)}`;
}

export function isVaultId(id: string): boolean {
  if (!/^V[A-Z2-7]{14}$/.test(id)) return false;
  return checkChar(id.slice(1, 14)) === id.charAt(14);
}

interface MethodDef {
  readonly asset: string;
  readonly name: string;
  readonly fee: string;
  readonly feeAsset?: string;
  readonly minimum: string;
  readonly disabled?: boolean;
  readonly network?: { readonly network: string; readonly explorer: string };
}

const METHODS: readonly MethodDef[] = [
  {
    asset: 'XXBT',
    name: 'Bitcoin',
    fee: '0.00015',
    minimum: '0.0005',
    network: { network: 'Bitcoin', explorer: 'https://blockstream.info/tx/{tx_id}' },
  },
  {
    asset: 'XXBT',
    name: 'Bitcoin (fiat-billed)',
    fee: '2.5',
    feeAsset: 'ZUSD',
    minimum: '0.01',
    disabled: true,
    network: { network: 'Bitcoin', explorer: 'https://blockstream.info/tx/{tx_id}' },
  },
  {
    asset: 'XETH',
    name: 'Ethereum',
    fee: '0.0025',
    minimum: '0.005',
    network: { network: 'Ethereum', explorer: 'https://etherscan.io/tx/{tx_id}' },
  },
  {
    asset: 'XETH',
    name: 'Arbitrum One',
    fee: '0.0001',
    minimum: '0.001',
    disabled: true,
    network: { network: 'Arbitrum One', explorer: 'https://arbiscan.io/tx/{tx_id}' },
  },
  { asset: 'ZUSD', name: 'Fedwire (USD)', fee: '5', minimum: '10' },
  { asset: 'ZUSD', name: 'SWIFT (USD)', fee: '25', minimum: '100', disabled: true },
];

export function custodyRoutes(ctx: SimContext): Route[] {
  const fixed = (value: string, asset: SimAsset): string =>
    new Decimal(value).toFixed(asset.decimals);

  const methodsOf = (asset: SimAsset): Record<string, unknown>[] => {
    const defs = METHODS.filter((m) => m.asset === asset.id);
    const list: MethodDef[] =
      defs.length > 0
        ? defs
        : [{ asset: asset.id, name: `${asset.altname} internal transfer`, fee: '0', minimum: '0' }];
    return list.map((m) => {
      const feeAsset = ctx.markets.asset(m.feeAsset ?? asset.id) ?? asset;
      return {
        name: m.name,
        method_id: stableUuid(`custody-method:${asset.id}:${m.name}`),
        fee_amount: fixed(m.fee, feeAsset),
        fee_asset: feeAsset.altname,
        fee_asset_class: 'currency',
        minimum: fixed(m.minimum, asset),
        is_disabled: m.disabled ?? false,
        asset: asset.altname,
        asset_class: 'currency',
        ...(m.network === undefined ? {} : { network_info: { ...m.network } }),
      };
    });
  };

  return [
    {
      family: 'custody',
      name: '/v0/insto/custody/vaults/:vault_id/withdrawal-methods',
      method: 'GET',
      handle: (req) => {
        const account = callerOf(req);
        const fail = (status: number, suffix: string, detail: string) =>
          raw(status, problem(status, suffix, detail, req.traceId));
        const vaultId = req.pathParams.vault_id ?? '';
        if (!isVaultId(vaultId)) {
          return fail(400, 'BadRequest', `vault_id ${JSON.stringify(vaultId)} is not a vault id`);
        }
        if (vaultId !== vaultIdOf(account)) {
          return fail(403, 'PermissionDenied', `no read access to vault ${vaultId}`);
        }
        const assetName = req.params.asset;
        const assetClass = req.params.asset_class;
        if (assetName !== undefined && assetClass === undefined) {
          return fail(400, 'BadRequest', 'asset requires asset_class');
        }
        if (assetClass !== undefined && assetClass !== 'currency') {
          return fail(400, 'BadRequest', 'asset_class must be currency');
        }
        if (assetName === undefined) return ok(ctx.markets.assets.flatMap((a) => methodsOf(a)));
        const code = typeof assetName === 'string' ? assetName : '';
        const asset = ctx.markets.asset(code);
        if (asset === undefined) {
          return fail(404, 'AssetNotFound', `no asset ${JSON.stringify(code)} of class currency`);
        }
        return ok(methodsOf(asset));
      },
    },
  ];
}
