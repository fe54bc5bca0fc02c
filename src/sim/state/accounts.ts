import { Decimal, InvalidInputError } from '../../core/index.js';
import type { Tier } from '../../exchange/limits/index.js';
import { base32Of, stableUuid, type IdFactory } from '../ids.js';
import type { Permission } from './permissions.js';
import { Wallet } from './wallet.js';

export type AccountKind = 'user' | 'background' | 'subaccount';

/**
 * One API key and the account behind it. The simulator keeps one key per account: the spec's
 * limits and permissions are per key, and sharing a wallet between keys adds nothing a bot needs.
 */
export interface Account {
  readonly key: string;
  /** Base64 HMAC key. Never logged or returned by the admin API. */
  secret: string;
  tier: Tier;
  permissions: Set<Permission>;
  nonceWindow: number;
  otp: string | undefined;
  readonly kind: AccountKind;
  readonly wallet: Wallet;
  readonly createdAtMs: number;
  /** Futures key-check and AccountTransfer identities, derived from the key. */
  readonly accountUid: string;
  readonly iiban: string;
}

export interface AccountDefinition {
  readonly key: string;
  readonly secret: string;
  readonly tier?: Tier;
  readonly permissions?: readonly Permission[];
  readonly balances?: Readonly<Record<string, string>>;
  readonly nonceWindow?: number;
  readonly otp?: string;
  readonly kind?: AccountKind;
}

export class Accounts {
  readonly #byKey = new Map<string, Account>();
  readonly #ids: IdFactory;
  readonly #allPermissions: readonly Permission[];

  constructor(ids: IdFactory, allPermissions: readonly Permission[]) {
    this.#ids = ids;
    this.#allPermissions = allPermissions;
  }

  get(key: string): Account | undefined {
    return this.#byKey.get(key);
  }

  require(key: string): Account {
    const a = this.#byKey.get(key);
    if (a === undefined)
      throw new InvalidInputError('key', `no account with key ${JSON.stringify(key)}`);
    return a;
  }

  all(): Account[] {
    return [...this.#byKey.values()];
  }

  byIiban(iiban: string): Account | undefined {
    return this.all().find((a) => a.iiban === iiban);
  }

  /** Creates a key or updates the fields given; balances given are set outright. */
  upsert(def: AccountDefinition, nowMs: number): Account {
    let account = this.#byKey.get(def.key);
    if (account === undefined) {
      const b32 = base32Of(def.key, 14);
      account = {
        key: def.key,
        secret: def.secret,
        tier: def.tier ?? 'starter',
        permissions: new Set(def.permissions ?? this.#allPermissions),
        nonceWindow: def.nonceWindow ?? 0,
        otp: def.otp,
        kind: def.kind ?? 'user',
        wallet: new Wallet(() => this.#ids.ledger()),
        createdAtMs: nowMs,
        accountUid: stableUuid(def.key),
        iiban: `AA${b32.slice(0, 2)} ${b32.slice(2, 6)} ${b32.slice(6, 10)} ${b32.slice(10, 14)}`,
      };
      this.#byKey.set(def.key, account);
    } else {
      account.secret = def.secret;
      if (def.tier !== undefined) account.tier = def.tier;
      if (def.permissions !== undefined) account.permissions = new Set(def.permissions);
      if (def.nonceWindow !== undefined) account.nonceWindow = def.nonceWindow;
      if (def.otp !== undefined) account.otp = def.otp === '' ? undefined : def.otp;
    }
    for (const [asset, value] of Object.entries(def.balances ?? {})) {
      account.wallet.set(asset, new Decimal(value), `ADMIN-${def.key}`, nowMs);
    }
    return account;
  }
}
