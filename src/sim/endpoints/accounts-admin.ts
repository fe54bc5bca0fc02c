/**
 * Account administration through the spot interface: CreateSubaccount, AccountTransfer and
 * GetWebSocketsToken.
 *
 * - CreateSubaccount (`username`, `email`): only a master key may call it (a subaccount gets
 *   `EGeneral:Permission denied`). The subaccount is a new simulator account with key
 *   {@link subaccountKey}(master key, username), the master's tier, every permission, an empty
 *   wallet and a random secret the caller never sees (set one through `POST /_sim/accounts` to
 *   use it). Usernames are 3..64 of `[A-Za-z0-9._-]`; a username or email already used by any
 *   subaccount is `EGeneral:Invalid arguments:username already exists` / `...:email already
 *   exists`. Result `true`. The spec does not show its permission: any valid key.
 * - AccountTransfer (`asset`, `amount`, `from`, `to` IIBANs): both IIBANs must be the caller's or
 *   one of the subaccounts it created, and differ; an IIBAN the simulator does not know is
 *   `EGeneral:Invalid arguments:from|to`, one outside the caller's family is
 *   `EGeneral:Permission denied`, a short source balance `EFunding:Insufficient funds`. Funds move
 *   at once (ledger type `transfer`, subtype `subaccount`); result `{transfer_id, status:
 *   'complete'}`. Permission not shown in the spec: the simulator asks for `funds-withdraw`.
 * - GetWebSocketsToken: `{token, expires: 900}`, a fresh random token each call (the simulator has
 *   no websocket feed to present it to).
 */
import { randomBytes } from 'node:crypto';
import type { SimContext } from '../context.js';
import { invalidArguments, SimError } from '../errors.js';
import { ok, type Route } from '../http/route.js';
import type { Account } from '../state/accounts.js';
import { PERMISSIONS } from '../state/permissions.js';
import { requireText } from './order-params.js';
import { callerOf, requireAmount } from './support.js';

/** The API key the simulator gives a subaccount, so tests and operators can find it. */
export function subaccountKey(masterKey: string, username: string): string {
  return `${masterKey}:${username}`;
}

const USERNAME = /^[A-Za-z0-9._-]{3,64}$/;
const EMAIL = /^[^\s@]{1,64}@[^\s@]+\.[^\s@]{2,}$/;

export function accountsAdminRoutes(ctx: SimContext): Route[] {
  /** Subaccount key → master key. */
  const masterOf = new Map<string, string>();
  const usernames = new Set<string>();
  const emails = new Set<string>();

  const inFamily = (master: Account, other: Account): boolean =>
    other.key === master.key || masterOf.get(other.key) === master.key;

  return [
    {
      family: 'private',
      name: 'CreateSubaccount',
      permission: [],
      handle: (req) => {
        const master = callerOf(req);
        if (master.kind === 'subaccount' || masterOf.has(master.key)) {
          throw new SimError('EGeneral:Permission denied');
        }
        const username = requireText(req.params, 'username');
        const email = requireText(req.params, 'email');
        if (!USERNAME.test(username)) throw invalidArguments('username');
        if (!EMAIL.test(email)) throw invalidArguments('email');
        const key = subaccountKey(master.key, username);
        if (usernames.has(username.toLowerCase()) || ctx.accounts.get(key) !== undefined) {
          throw invalidArguments('username already exists');
        }
        if (emails.has(email.toLowerCase())) throw invalidArguments('email already exists');
        ctx.accounts.upsert(
          {
            key,
            secret: randomBytes(64).toString('base64'),
            tier: master.tier,
            permissions: PERMISSIONS,
            kind: 'subaccount',
          },
          req.nowMs,
        );
        masterOf.set(key, master.key);
        usernames.add(username.toLowerCase());
        emails.add(email.toLowerCase());
        return ok(true);
      },
    },
    {
      family: 'private',
      name: 'AccountTransfer',
      permission: ['funds-withdraw'],
      handle: (req) => {
        const master = callerOf(req);
        if (master.kind === 'subaccount' || masterOf.has(master.key)) {
          throw new SimError('EGeneral:Permission denied');
        }
        const asset = ctx.markets.requireAsset(requireText(req.params, 'asset'));
        const amount = requireAmount(req.params, 'amount', asset);
        const from = ctx.accounts.byIiban(requireText(req.params, 'from'));
        if (from === undefined) throw invalidArguments('from');
        const to = ctx.accounts.byIiban(requireText(req.params, 'to'));
        if (to === undefined) throw invalidArguments('to');
        if (from.key === to.key) throw invalidArguments('to');
        if (!inFamily(master, from) || !inFamily(master, to)) {
          throw new SimError('EGeneral:Permission denied');
        }
        if (amount.gt(from.wallet.available(asset.id))) {
          throw new SimError('EFunding:Insufficient funds');
        }
        const transferId = ctx.ids.ref('T');
        const posting = {
          refid: transferId,
          timeMs: req.nowMs,
          type: 'transfer',
          subtype: 'subaccount',
          asset: asset.id,
        } as const;
        from.wallet.post({ ...posting, amount: amount.negated() });
        to.wallet.post({ ...posting, amount });
        return ok({ transfer_id: transferId, status: 'complete' });
      },
    },
    {
      family: 'private',
      name: 'GetWebSocketsToken',
      permission: ['websocket'],
      handle: () => ok({ token: randomBytes(32).toString('base64url'), expires: 900 }),
    },
  ];
}
