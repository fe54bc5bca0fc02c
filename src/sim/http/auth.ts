import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { Account, Accounts } from '../state/accounts.js';
import { SimError, SimHttpError } from '../errors.js';

const MAX_NONCE = (1n << 64n) - 1n;
/** Nonces remembered per key inside a window; older ones fall below the window anyway. */
const SEEN_CAP = 8192;

interface NonceState {
  high: bigint;
  /** Nonces at or below this were forgotten; they are refused. */
  floor: bigint;
  readonly seen: Set<bigint>;
}

interface LockoutState {
  invalidKeys: number;
  lockedUntilMs: number;
}

export interface SpotAuthInput {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly rawBody: Buffer;
  readonly nonce: unknown;
  readonly otp: unknown;
  readonly clientId: string;
  readonly nowMs: number;
}

export interface HeaderAuthInput {
  readonly path: string;
  readonly query: string;
  readonly method: string;
  readonly headers: IncomingHttpHeaders;
  readonly rawBody: Buffer;
  readonly traceId: string;
}

/**
 * The exchange's door for authenticated calls, written from the spec rather than from the client
 * (a bug shared by both would otherwise pass): key, signature over the raw body bytes, nonce
 * strictly increasing per key (or inside the key's window and unseen), otp, and the temporary
 * lockout after repeated invalid keys from one address.
 */
export class Door {
  readonly #accounts: Accounts;
  readonly #nonces = new Map<string, NonceState>();
  readonly #lockouts = new Map<string, LockoutState>();
  readonly #lockoutThreshold: number;
  readonly #lockoutMs: number;

  constructor(accounts: Accounts, lockout: { threshold: number; duration_ms: number }) {
    this.#accounts = accounts;
    this.#lockoutThreshold = lockout.threshold;
    this.#lockoutMs = lockout.duration_ms;
  }

  spot(input: SpotAuthInput): Account {
    const lock = this.#lockouts.get(input.clientId);
    if (lock !== undefined && input.nowMs < lock.lockedUntilMs) {
      throw new SimError('EGeneral:Temporary lockout');
    }
    const apiKey = header(input.headers, 'api-key');
    const account = apiKey === undefined ? undefined : this.#accounts.get(apiKey);
    if (account === undefined || account.kind === 'background') {
      this.#invalidKey(input.clientId, input.nowMs);
      throw new SimError('EAPI:Invalid key');
    }
    this.#lockouts.delete(input.clientId);

    const nonceText = nonceString(input.nonce);
    if (nonceText === undefined) throw new SimError('EAPI:Invalid nonce');
    const expected = hmac(
      account.secret,
      Buffer.concat([
        Buffer.from(input.path, 'utf8'),
        sha256(Buffer.from(nonceText), input.rawBody),
      ]),
    );
    if (!same(header(input.headers, 'api-sign'), expected)) {
      throw new SimError('EAPI:Invalid signature');
    }
    if (!this.#takeNonce('spot', account, BigInt(nonceText))) {
      throw new SimError('EAPI:Invalid nonce');
    }
    // The spec has no otp-specific string; a key whose second factor is missing lacks permission.
    if (account.otp !== undefined && input.otp !== account.otp) {
      throw new SimError('EGeneral:Permission denied');
    }
    return account;
  }

  /**
   * Futures: `APIKey` (or `apikey`) and `Authent`, optional `Nonce`; the family's scheme over
   * (body or query + nonce + path without `/derivatives`). Failures are HTTP 401 with the family's
   * bodies (key check: {error, message, suberror}; others: {result: 'error', error, serverTime}).
   */
  futures(input: HeaderAuthInput, serverTime: string): Account {
    const isKeyCheck = input.path.startsWith('/api/auth/');
    const fail = (message: string, id: string): SimHttpError =>
      new SimHttpError(
        401,
        isKeyCheck
          ? { error: 'authenticationError', message, suberror: id }
          : { result: 'error', error: id, errors: [message], serverTime },
      );
    const apiKey = header(input.headers, 'apikey');
    const account = apiKey === undefined ? undefined : this.#accounts.get(apiKey);
    if (account === undefined || account.kind === 'background') {
      throw fail('invalid key', 'apiKeyInvalid');
    }
    const nonce = header(input.headers, 'nonce') ?? '';
    if (nonce !== '' && nonceString(nonce) === undefined)
      throw fail('invalid nonce', 'nonceInvalid');
    const endpointPath = input.path.startsWith('/derivatives')
      ? input.path.slice('/derivatives'.length)
      : input.path;
    const data = input.rawBody.length > 0 ? input.rawBody : Buffer.from(input.query, 'utf8');
    const expected = hmac(
      account.secret,
      sha256(data, Buffer.from(nonce, 'utf8'), Buffer.from(endpointPath, 'utf8')),
    );
    if (!same(header(input.headers, 'authent'), expected)) {
      throw fail('invalid signature', 'authenticationError');
    }
    if (nonce !== '' && !this.#takeNonce('futures', account, BigInt(nonce))) {
      throw fail('invalid nonce', 'nonceBelowThreshold');
    }
    return account;
  }

  /** Custody: `api-key`, `api-nonce`, `api-sign`; failures are 401 problem documents. */
  custody(input: HeaderAuthInput): Account {
    const fail = (detail: string): SimHttpError =>
      new SimHttpError(401, problem(401, 'Unauthorized', detail, input.traceId));
    const apiKey = header(input.headers, 'api-key');
    const account = apiKey === undefined ? undefined : this.#accounts.get(apiKey);
    if (account === undefined || account.kind === 'background') throw fail('invalid key');
    const nonce = nonceString(header(input.headers, 'api-nonce'));
    if (nonce === undefined) throw fail('invalid nonce');
    const target = input.query === '' ? input.path : `${input.path}?${input.query}`;
    const expected = hmac(
      account.secret,
      Buffer.concat([Buffer.from(target, 'utf8'), sha256(Buffer.from(nonce), input.rawBody)]),
    );
    if (!same(header(input.headers, 'api-sign'), expected)) throw fail('invalid signature');
    if (!this.#takeNonce('custody', account, BigInt(nonce))) throw fail('invalid nonce');
    return account;
  }

  #invalidKey(clientId: string, nowMs: number): void {
    const state = this.#lockouts.get(clientId) ?? { invalidKeys: 0, lockedUntilMs: 0 };
    state.invalidKeys += 1;
    if (state.invalidKeys >= this.#lockoutThreshold) {
      state.lockedUntilMs = nowMs + this.#lockoutMs;
      state.invalidKeys = 0;
    }
    this.#lockouts.set(clientId, state);
  }

  #takeNonce(family: string, account: Account, n: bigint): boolean {
    const id = `${family}\u0000${account.key}`;
    let state = this.#nonces.get(id);
    if (state === undefined) {
      state = { high: -1n, floor: -1n, seen: new Set() };
      this.#nonces.set(id, state);
    }
    const window = BigInt(account.nonceWindow);
    if (n > state.high) {
      state.high = n;
      if (window > 0n) this.#remember(state, n);
      return true;
    }
    if (window > 0n && n > state.high - window && n > state.floor && !state.seen.has(n)) {
      this.#remember(state, n);
      return true;
    }
    return false;
  }

  /**
   * Keeps the last SEEN_CAP accepted nonces (a Set iterates in insertion order, so the oldest go
   * first); anything at or below the highest forgotten one is refused, never accepted twice.
   */
  #remember(state: NonceState, n: bigint): void {
    state.seen.add(n);
    if (state.seen.size <= SEEN_CAP) return;
    for (const old of state.seen) {
      state.seen.delete(old);
      if (old > state.floor) state.floor = old;
      if (state.seen.size <= SEEN_CAP / 2) break;
    }
  }
}

/** A custody-style problem document (RFC 9457 fields as the second spec document lists them). */
export function problem(
  status: number,
  suffix: string,
  detail: string,
  traceId: string,
  data?: unknown,
): Record<string, unknown> {
  return {
    type: `tag:sim.invalid,2025:${suffix}`,
    status,
    title: suffix.split('/').pop() ?? suffix,
    data: data ?? { message: detail },
    detail,
    instance: `https://trace.sim.invalid/${traceId}`,
  };
}

function nonceString(value: unknown): string | undefined {
  const text =
    typeof value === 'number' && Number.isSafeInteger(value) && value >= 0
      ? String(value)
      : typeof value === 'string'
        ? value
        : undefined;
  if (text === undefined || !/^\d{1,20}$/.test(text) || BigInt(text) > MAX_NONCE) return undefined;
  return text;
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function sha256(...parts: Buffer[]): Buffer {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest();
}

function hmac(secretBase64: string, message: Buffer): string {
  return createHmac('sha512', Buffer.from(secretBase64, 'base64')).update(message).digest('base64');
}

function same(got: string | undefined, expected: string): boolean {
  if (got === undefined) return false;
  const a = Buffer.from(got);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
