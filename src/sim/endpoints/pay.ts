/**
 * Pay transfers: `Pay/transfer/create` (JSON body, nonce as a string).
 *
 * - Every account has a pay handle, {@link payHandleOf}: `@` and the first 12 hex digits of its
 *   account UID. A `to` naming a simulator account is credited when the transfer completes; any
 *   other well-formed handle (`[A-Za-z0-9@._-]{3,64}`) is an external user and the funds leave.
 *   Sending to one's own handle is refused.
 * - `amount` (positive, at most the asset's decimals), `asset` (id or altname), `to` and
 *   `external_id` are required; `note` (≤ 256 characters) and `return_for` are optional.
 *   `return_for` must be the `external_id` of a transfer the recipient (`to`) sent to the caller.
 * - `external_id`: base64 without padding (standard alphabet) decoding to 1..16 bytes, unique
 *   forever per caller. An id is used up only by a transfer that was created, so a refused call
 *   (for example for funds) can be repeated with the same id.
 * - Success debits the wallet at once (ledger `transfer` / `paysend`) and answers
 *   `{transfer_id, external_id, status: 'pending'}`; {@link PAY_SETTLE_MS} later the transfer is
 *   `completed` and a simulator recipient is credited (`transfer` / `payreceive`). The callback the
 *   spec mentions is not delivered (the simulator has no registration for it).
 * - Refusals use the pay error shape with HTTP 200 (the status the rest of the spot interface
 *   uses): `{error: [{severity: 'E', errorClass, type, errorMessage}]}`, i.e.
 *   `General / Invalid arguments / <field>` for bad input, `Funding / Insufficient funds`, and
 *   `Funding / External id already used / external_id <id> was used by transfer <transfer_id>`
 *   for a reused id (naming the earlier transfer lets the caller reconcile).
 * - Both `funds-query` and `funds-withdraw` are required; lacking either is
 *   `EGeneral:Permission denied` (a spot error string, as the door answers it).
 */
import { createHash } from 'node:crypto';
import type { Decimal } from '../../core/index.js';
import type { SimContext } from '../context.js';
import { SimError } from '../errors.js';
import { ok, raw, type Reply, type Route, type SimRequest } from '../http/route.js';
import type { Account } from '../state/accounts.js';
import { callerOf, positiveAmount } from './support.js';

export const PAY_SETTLE_MS = 3_000;

/** The handle other users pay this account with. */
export function payHandleOf(account: Account): string {
  return `@${account.accountUid.replaceAll('-', '').slice(0, 12)}`;
}

interface PayTransfer {
  readonly transferId: string;
  readonly externalId: string;
  readonly fromKey: string;
  readonly to: string;
  readonly toKey: string | undefined;
  readonly asset: string;
  readonly amount: Decimal;
  readonly completesAtMs: number;
  status: 'pending' | 'completed';
}

class PayRefusal extends Error {
  constructor(
    readonly errorClass: string,
    readonly type: string,
    readonly errorMessage: string,
  ) {
    super(`${errorClass}:${type}:${errorMessage}`);
  }
}

const HANDLE = /^[A-Za-z0-9@._-]{3,64}$/;
const BASE64_NO_PAD = /^[A-Za-z0-9+/]+$/;

function externalIdBytes(id: string): number | undefined {
  if (!BASE64_NO_PAD.test(id) || id.length % 4 === 1) return undefined;
  return Math.floor((id.length * 3) / 4);
}

export function payRoutes(ctx: SimContext): Route[] {
  const transfers: PayTransfer[] = [];
  /** `${accountKey}\n${external_id}` → transfer. */
  const used = new Map<string, PayTransfer>();

  ctx.onTick((nowMs) => {
    for (const t of transfers) {
      if (t.status !== 'pending' || t.completesAtMs > nowMs) continue;
      t.status = 'completed';
      const recipient = t.toKey === undefined ? undefined : ctx.accounts.get(t.toKey);
      recipient?.wallet.post({
        refid: t.transferId,
        timeMs: t.completesAtMs,
        type: 'transfer',
        subtype: 'payreceive',
        asset: t.asset,
        amount: t.amount,
      });
    }
  });

  const field = (req: SimRequest, name: string, required: boolean): string | undefined => {
    const v = req.params[name];
    if (v === undefined || v === null || v === '') {
      if (required) throw new PayRefusal('General', 'Invalid arguments', name);
      return undefined;
    }
    if (typeof v !== 'string') throw new PayRefusal('General', 'Invalid arguments', name);
    return v;
  };

  const create = (req: SimRequest, account: Account): PayTransfer => {
    const amountText = field(req, 'amount', true) as string;
    const assetName = field(req, 'asset', true) as string;
    const to = field(req, 'to', true) as string;
    const externalId = field(req, 'external_id', true) as string;
    const note = field(req, 'note', false);
    const returnFor = field(req, 'return_for', false);
    const asset = ctx.markets.asset(assetName);
    if (asset === undefined) throw new PayRefusal('General', 'Invalid arguments', 'asset');
    let amount: Decimal;
    try {
      amount = positiveAmount(amountText, 'amount', asset.decimals);
    } catch {
      throw new PayRefusal('General', 'Invalid arguments', 'amount');
    }
    if (!HANDLE.test(to)) throw new PayRefusal('General', 'Invalid arguments', 'to');
    const bytes = externalIdBytes(externalId);
    if (bytes === undefined || bytes < 1 || bytes > 16) {
      throw new PayRefusal('General', 'Invalid arguments', 'external_id');
    }
    if (note !== undefined && note.length > 256) {
      throw new PayRefusal('General', 'Invalid arguments', 'note');
    }
    const recipient = ctx.accounts.all().find((a) => payHandleOf(a) === to);
    if (recipient?.key === account.key) throw new PayRefusal('General', 'Invalid arguments', 'to');
    if (returnFor !== undefined) {
      const original =
        recipient === undefined ? undefined : used.get(`${recipient.key}\n${returnFor}`);
      if (original?.toKey !== account.key) {
        throw new PayRefusal('General', 'Invalid arguments', 'return_for');
      }
    }
    const previous = used.get(`${account.key}\n${externalId}`);
    if (previous !== undefined) {
      throw new PayRefusal(
        'Funding',
        'External id already used',
        `external_id ${externalId} was used by transfer ${previous.transferId}`,
      );
    }
    if (amount.gt(account.wallet.available(asset.id))) {
      throw new PayRefusal('Funding', 'Insufficient funds', asset.altname);
    }
    const transferId = stableTransferId(account.key, externalId);
    account.wallet.post({
      refid: transferId,
      timeMs: req.nowMs,
      type: 'transfer',
      subtype: 'paysend',
      asset: asset.id,
      amount: amount.negated(),
    });
    const t: PayTransfer = {
      transferId,
      externalId,
      fromKey: account.key,
      to,
      toKey: recipient?.key,
      asset: asset.id,
      amount,
      completesAtMs: req.nowMs + PAY_SETTLE_MS,
      status: 'pending',
    };
    transfers.push(t);
    used.set(`${account.key}\n${externalId}`, t);
    return t;
  };

  return [
    {
      family: 'private',
      name: 'Pay/transfer/create',
      permission: ['funds-query', 'funds-withdraw'],
      handle: (req): Reply => {
        const account = callerOf(req);
        if (!account.permissions.has('funds-query') || !account.permissions.has('funds-withdraw')) {
          throw new SimError('EGeneral:Permission denied');
        }
        try {
          const t = create(req, account);
          return ok({ transfer_id: t.transferId, external_id: t.externalId, status: t.status });
        } catch (err) {
          if (!(err instanceof PayRefusal)) throw err;
          return raw(200, {
            error: [
              {
                severity: 'E',
                errorClass: err.errorClass,
                type: err.type,
                errorMessage: err.errorMessage,
              },
            ],
          });
        }
      },
    },
  ];
}

/** Unique per (caller, external_id), which is itself unique forever. */
function stableTransferId(accountKey: string, externalId: string): string {
  const hex = createHash('sha256').update(`pay:${accountKey}:${externalId}`).digest('hex');
  return `PT${hex.slice(0, 22).toUpperCase()}`;
}
