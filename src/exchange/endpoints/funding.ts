import { Type } from '@sinclair/typebox';
import { Bool, Dec, Int, Open, OpenObject, Opt, Str, type CommaList } from './common.js';
import { privateForm } from './define.js';
import type { OpenRequest } from './account.js';

// ---- Data export ------------------------------------------------------------------------------

export interface AddExportRequest {
  readonly report: 'trades' | 'ledgers';
  readonly description: string;
  readonly format?: 'CSV' | 'TSV';
  readonly fields?: CommaList;
  readonly starttm?: number;
  readonly endtm?: number;
}
export const addExport = privateForm<AddExportRequest>()('AddExport', Type.Object({ id: Str }), {
  kind: 'write',
});

export const ExportRecord = Type.Object(
  {
    id: Str,
    descr: Str,
    format: Str,
    report: Str,
    subtype: Opt(Str),
    status: Str,
    flags: Opt(Type.Union([Str, Int])),
    fields: Opt(Str),
    createdtm: Opt(Str),
    expiretm: Opt(Str),
    starttm: Opt(Str),
    completedtm: Opt(Str),
    datastarttm: Opt(Str),
    dataendtm: Opt(Str),
    aclass: Opt(Str),
    asset: Opt(Str),
  },
  { additionalProperties: true },
);
export const exportStatus = privateForm<{ report: 'trades' | 'ledgers' }>()(
  'ExportStatus',
  Type.Array(ExportRecord),
);
/** A zip archive: the result is its bytes. */
export const retrieveExport = privateForm<{ id: string }>()('RetrieveExport', Type.Uint8Array(), {
  binary: true,
});
export const removeExport = privateForm<{ id: string; type: 'cancel' | 'delete' }>()(
  'RemoveExport',
  Type.Object({ delete: Opt(Bool), cancel: Opt(Bool) }, { additionalProperties: true }),
  { kind: 'write' },
);

// ---- Funding (shapes not shown beyond the withdrawal status record) -----------------------------

export const WithdrawalStatusRecord = Type.Object(
  {
    method: Str,
    aclass: Opt(Str),
    asset: Str,
    refid: Str,
    txid: Opt(Type.Union([Str, Type.Null()])),
    info: Opt(Str),
    amount: Dec,
    fee: Dec,
    time: Int,
    status: Str,
    'status-prop': Opt(Str),
    key: Opt(Str),
  },
  { additionalProperties: true },
);

export const depositMethods = privateForm<OpenRequest & { asset: string }>()(
  'DepositMethods',
  Open,
);
export const depositAddresses = privateForm<
  OpenRequest & { asset: string; method: string; new?: boolean; amount?: string }
>()('DepositAddresses', Open);
export const depositStatus = privateForm<
  OpenRequest & {
    asset?: string;
    start?: string;
    end?: string;
    cursor?: string | boolean;
    limit?: number;
    originators?: boolean;
  }
>()('DepositStatus', Open);
export const withdraw = privateForm<
  OpenRequest & { asset: string; key: string; amount: string; address?: string; max_fee?: string }
>()('Withdraw', OpenObject, { kind: 'write' });
export const withdrawMethods = privateForm<OpenRequest>()('WithdrawMethods', Open);
export const withdrawAddresses = privateForm<OpenRequest>()('WithdrawAddresses', Open);
export const withdrawStatus = privateForm<
  OpenRequest & {
    asset?: string;
    start?: string;
    end?: string;
    cursor?: string | boolean;
    limit?: number;
  }
>()(
  'WithdrawStatus',
  // A plain array, or a page object when `cursor` is used; records are checked where they appear.
  Type.Union([Type.Array(WithdrawalStatusRecord), OpenObject]),
);
export const withdrawCancel = privateForm<{ asset: string; refid: string }>()(
  'WithdrawCancel',
  Bool,
  {
    kind: 'write',
  },
);
export const walletTransfer = privateForm<{
  asset: string;
  from: 'Spot Wallet';
  to: 'Futures Wallet';
  amount: string;
}>()('WalletTransfer', Type.Object({ refid: Str }, { additionalProperties: true }), {
  kind: 'write',
});

// ---- Subaccounts and websocket token ------------------------------------------------------------

export const createSubaccount = privateForm<{ username: string; email: string }>()(
  'CreateSubaccount',
  Bool,
  {
    kind: 'write',
  },
);
export const accountTransfer = privateForm<{
  asset: string;
  amount: string;
  from: string;
  to: string;
}>()(
  'AccountTransfer',
  Type.Object({ transfer_id: Str, status: Str }, { additionalProperties: true }),
  { kind: 'write' },
);
export const getWebSocketsToken = privateForm<Record<string, never>>()(
  'GetWebSocketsToken',
  Type.Object({ token: Str, expires: Int }, { additionalProperties: true }),
);
