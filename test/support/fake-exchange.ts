/**
 * A fake exchange that behaves as the real one does at the door, written from the spec (and, for
 * the futures and custody signatures the spec leaves unstated, from the scheme the test brief
 * fixes), never from src/: a bug shared by the client and this server would otherwise pass.
 *
 * It is a real HTTP server on 127.0.0.1, port 0. Every request is recorded (method, path, raw
 * query, headers, raw body bytes, parsed params, nonce, trace id, and what the door decided)
 * before any check, so tests can assert what crossed the wire even for rejected requests.
 *
 * Door checks, in order:
 *  - routing: `/0/public/<Name>` is GET only, `/0/private/<Name>` POST only (else HTTP 405);
 *    futures (`/derivatives/api/v3/...`, `/api/auth/v1/...`) and custody (`/v0/insto/custody/...`)
 *    paths; anything else is 404;
 *  - a `User-Agent` header (else HTTP 400);
 *  - spot private: content type (JSON for the JSON-bodied endpoints, form otherwise; a mismatch is
 *    `EGeneral:Invalid arguments`), `API-Key` (`EAPI:Invalid key`), a decimal `nonce`
 *    (`EAPI:Invalid nonce`), `API-Sign` over the raw body bytes (`EAPI:Invalid signature`), the
 *    nonce above the key's high-water mark or, with a nonce window, inside it and unseen
 *    (`EAPI:Invalid nonce`), and `otp` when the key has one (`EGeneral:Permission denied`: the spec
 *    lists no otp-specific string);
 *  - futures: `APIKey` and `Authent` (+ `Nonce`), HTTP 401 with the family's error bodies;
 *  - custody: `api-key`, `api-nonce` and `api-sign`, HTTP 401 problem documents.
 *
 * Only then is the handler registered for the endpoint asked for the answer.
 */
import { createHash, createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';

export type Family = 'public' | 'private' | 'futures' | 'custody';

export interface FakeKey {
  readonly apiKey: string;
  /** Base64, as the exchange issues it. */
  readonly apiSecret: string;
  /** When set, spot private requests must carry this `otp`. */
  readonly otp?: string;
  /** Tolerance for nonces arriving out of order: accepted if within this of the highest seen. */
  readonly nonceWindow?: number;
}

export interface RecordedRequest {
  /** Order of arrival, from 0. */
  readonly seq: number;
  readonly method: string;
  /** The path exactly as received, without the query. */
  readonly path: string;
  /** The raw query string without `?`, empty when none. */
  readonly query: string;
  readonly headers: IncomingHttpHeaders;
  readonly rawBody: Buffer;
  readonly bodyText: string;
  readonly contentType: string | undefined;
  readonly family: Family | undefined;
  /** `AddOrder`, `Earn/Allocate`, ...; the path for futures and custody. */
  readonly name: string;
  /** Form or query params decoded, or the JSON body; undefined when the body did not parse. */
  params: Record<string, unknown> | undefined;
  /** The nonce as decimal text (body `nonce`, `Nonce` or `api-nonce` header). */
  nonce: string | undefined;
  readonly traceId: string;
  /** Date.now() at arrival of the complete request. */
  readonly receivedAt: number;
  /** True once the door let the request through to its handler. */
  accepted: boolean;
  /** The door's reason for turning the request away. */
  rejection: string | undefined;
  /** The HTTP status answered, once answered; undefined for dropped or unanswered requests. */
  status: number | undefined;
}

export interface DropReply {
  /** Destroy the socket without answering (after the request was read). */
  readonly drop: true;
}
export interface DelayReply {
  readonly delayMs: number;
  /** What to answer after the delay; the endpoint's default answer when omitted. */
  readonly reply?: Reply;
}
export interface RawReply {
  readonly status: number;
  /** A string or Buffer is sent as is; anything else as JSON. */
  readonly body: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}
export interface EnvelopeReply {
  /** `E...` and `W...` strings, sent verbatim. */
  readonly error: readonly string[];
  readonly result?: unknown;
}

/**
 * What a handler answers: one of the shapes above (told apart by `drop`, `delayMs`,
 * `status`+`body`, `error` array), or any other value, which is the result (spot: wrapped in the
 * envelope; futures and custody: the body itself). Use resultOf() when a result could be mistaken
 * for one of the shapes.
 */
export type Reply = DropReply | DelayReply | RawReply | EnvelopeReply | ResultValue;
/** A result value: anything a handler returns that is not one of the reply shapes. */
export type ResultValue = object | string | number | boolean | null;

export type Handler = (req: RecordedRequest) => Reply | Promise<Reply>;

export interface FakeExchangeOptions {
  /** Extra keys beside the defaults. */
  readonly keys?: readonly FakeKey[];
  /** Nonce window for the default spot key. */
  readonly nonceWindow?: number;
}

/** The spot endpoints whose bodies are JSON (spec: conventions 4; additional endpoints). */
export function isJsonEndpoint(name: string): boolean {
  return (
    name === 'Level3' ||
    name === 'AddOrderBatch' ||
    name === 'CancelOrderBatch' ||
    name.startsWith('Earn/') ||
    name.startsWith('Nft') ||
    name === 'GetOtcSpotTradeHistory' ||
    name === 'Pay/transfer/create'
  );
}

export function newSecret(): string {
  return randomBytes(64).toString('base64');
}

export function newKey(extra: Partial<FakeKey> = {}): FakeKey {
  return { apiKey: `key-${randomBytes(12).toString('hex')}`, apiSecret: newSecret(), ...extra };
}

/** Wraps a result in the spot envelope explicitly (when the result could look like a Reply). */
export function resultOf(result: unknown, warnings: readonly string[] = []): Reply {
  return { error: [...warnings], result };
}

interface NonceState {
  high: bigint;
  readonly seen: Set<bigint>;
}

const DEFAULT_RESULTS: Readonly<Record<string, unknown>> = {
  Time: { unixtime: 1_700_000_000, rfc1123: 'Tue, 14 Nov 23 22:13:20 +0000' },
  Balance: { ZUSD: '1000.0000', XXBT: '0.5000000000' },
  AddOrder: { descr: { order: 'buy 1.25 XBTUSD @ limit 37500.0' }, txid: ['OFAKE1-AAAAA-BBBBBB'] },
  CancelOrder: { count: 1 },
  CancelAll: { count: 0 },
};

export class FakeExchange {
  readonly requests: RecordedRequest[] = [];
  /** The default keys: spot (no otp), spot with otp, futures, custody. */
  readonly keys: {
    readonly spot: FakeKey;
    readonly otp: FakeKey;
    readonly futures: FakeKey;
    readonly custody: FakeKey;
  };
  readonly #keys = new Map<string, FakeKey>();
  readonly #nonces = new Map<string, NonceState>();
  readonly #handlers = new Map<string, Handler>();
  readonly #patterns: { readonly pattern: RegExp; readonly handler: Handler }[] = [];
  readonly #timers = new Set<NodeJS.Timeout>();
  readonly #waiters: { readonly check: () => boolean; readonly resolve: () => void }[] = [];
  readonly #server: Server;
  #url = '';

  constructor(options: FakeExchangeOptions = {}) {
    this.keys = {
      spot: newKey(options.nonceWindow === undefined ? {} : { nonceWindow: options.nonceWindow }),
      otp: newKey({ otp: '246810' }),
      futures: newKey(),
      custody: newKey(),
    };
    for (const k of [...Object.values(this.keys), ...(options.keys ?? [])]) this.addKey(k);
    this.#server = createServer((req, res) => {
      void this.#serve(req, res);
    });
  }

  get url(): string {
    return this.#url;
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(0, '127.0.0.1', () => {
        this.#server.off('error', reject);
        resolve();
      });
    });
    const { port } = this.#server.address() as AddressInfo;
    this.#url = `http://127.0.0.1:${port}`;
    return this;
  }

  async close(): Promise<void> {
    for (const t of this.#timers) clearTimeout(t);
    this.#timers.clear();
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  addKey(key: FakeKey): void {
    this.#keys.set(key.apiKey, key);
  }

  removeKey(apiKey: string): void {
    this.#keys.delete(apiKey);
  }

  /** Sets a key's nonce high-water mark, as if a nonce this high had been accepted. */
  setLastNonce(family: Family, apiKey: string, nonce: number | bigint): void {
    this.#nonceState(family, apiKey).high = BigInt(nonce);
  }

  /** Handler by endpoint name (`AddOrder`, `Earn/Allocate`; the path for futures and custody). */
  on(name: string | RegExp, handler: Handler): this {
    if (typeof name === 'string') this.#handlers.set(name, handler);
    else this.#patterns.push({ pattern: name, handler });
    return this;
  }

  requestsFor(name: string): RecordedRequest[] {
    return this.requests.filter((r) => r.name === name);
  }

  /** Resolves once `count` requests for `name` (any name when omitted) have arrived. */
  waitForRequests(count: number, name?: string): Promise<void> {
    const check = (): boolean =>
      (name === undefined ? this.requests.length : this.requestsFor(name).length) >= count;
    if (check()) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ check, resolve }));
  }

  // ---- the door -------------------------------------------------------------------------------

  async #serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const traceId = randomUUID();
    res.setHeader('x-trace-id', traceId);
    let rawBody: Buffer;
    try {
      rawBody = await readBody(req);
    } catch {
      req.socket.destroy();
      return;
    }
    const target = req.url ?? '/';
    const q = target.indexOf('?');
    const path = q === -1 ? target : target.slice(0, q);
    const query = q === -1 ? '' : target.slice(q + 1);
    const route = routeOf(path);
    const contentType = req.headers['content-type'];
    const record: RecordedRequest = {
      seq: this.requests.length,
      method: req.method ?? '',
      path,
      query,
      headers: req.headers,
      rawBody,
      bodyText: rawBody.toString('utf8'),
      contentType,
      family: route?.family,
      name: route?.name ?? path,
      params: undefined,
      nonce: undefined,
      traceId,
      receivedAt: Date.now(),
      accepted: false,
      rejection: undefined,
      status: undefined,
    };
    this.requests.push(record);
    this.#notify();

    try {
      const reply = this.#door(record, route);
      if (reply !== undefined) {
        this.#send(res, record, reply.status, reply.body);
        return;
      }
      record.accepted = true;
      const handler = this.#handlerFor(record.name);
      const answer = handler === undefined ? this.#defaultReply(record) : await handler(record);
      await this.#reply(req, res, record, answer);
    } catch (err) {
      this.#send(res, record, 500, { error: [`EGeneral:Internal error:${String(err)}`] });
    }
  }

  /** Returns the rejection to send, or undefined when the request may pass. */
  #door(
    r: RecordedRequest,
    route: { family: Family; name: string } | undefined,
  ): { status: number; body: unknown } | undefined {
    if (route === undefined)
      return this.#reject(r, 404, 'not found', { error: ['EGeneral:Unknown method'] });
    if (typeof r.headers['user-agent'] !== 'string' || r.headers['user-agent'] === '') {
      return this.#reject(r, 400, 'no user-agent', 'User-Agent header required');
    }
    switch (route.family) {
      case 'public':
        if (r.method !== 'GET') {
          return this.#reject(r, 405, 'public endpoints are GET only', {
            error: ['EGeneral:Invalid arguments'],
          });
        }
        r.params = Object.fromEntries(new URLSearchParams(r.query));
        return undefined;
      case 'private':
        if (r.method !== 'POST') {
          return this.#reject(r, 405, 'private endpoints are POST only', {
            error: ['EGeneral:Invalid arguments'],
          });
        }
        return this.#spotDoor(r, route.name);
      case 'futures':
        return this.#futuresDoor(r);
      case 'custody':
        return this.#custodyDoor(r);
    }
  }

  #spotDoor(r: RecordedRequest, name: string): { status: number; body: unknown } | undefined {
    const reject = (error: string): { status: number; body: unknown } =>
      this.#reject(r, 200, error, { error: [error] });
    const wantJson = isJsonEndpoint(name);
    const media = (r.contentType ?? '').split(';')[0]?.trim().toLowerCase();
    if (media !== (wantJson ? 'application/json' : 'application/x-www-form-urlencoded')) {
      return reject('EGeneral:Invalid arguments');
    }
    let params: Record<string, unknown>;
    if (wantJson) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(r.bodyText);
      } catch {
        return reject('EGeneral:Invalid arguments');
      }
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
        return reject('EGeneral:Invalid arguments');
      }
      params = parsed as Record<string, unknown>;
    } else {
      params = Object.fromEntries(new URLSearchParams(r.bodyText));
    }
    r.params = params;

    const apiKey = header(r.headers, 'api-key');
    const key = apiKey === undefined ? undefined : this.#keys.get(apiKey);
    if (key === undefined) return reject('EAPI:Invalid key');

    const rawNonce = params.nonce;
    const nonce =
      typeof rawNonce === 'number' && Number.isSafeInteger(rawNonce)
        ? String(rawNonce)
        : typeof rawNonce === 'string'
          ? rawNonce
          : undefined;
    if (nonce === undefined || !/^\d{1,20}$/.test(nonce)) return reject('EAPI:Invalid nonce');
    r.nonce = nonce;

    const expected = hmacSha512(
      key.apiSecret,
      Buffer.concat([Buffer.from(r.path, 'utf8'), sha256(Buffer.from(nonce, 'utf8'), r.rawBody)]),
    );
    if (!sameText(header(r.headers, 'api-sign'), expected)) return reject('EAPI:Invalid signature');

    if (!this.#takeNonce('private', key, nonce)) return reject('EAPI:Invalid nonce');

    if (key.otp !== undefined && params.otp !== key.otp)
      return reject('EGeneral:Permission denied');
    return undefined;
  }

  #futuresDoor(r: RecordedRequest): { status: number; body: unknown } | undefined {
    const isKeyCheck = r.path.startsWith('/api/auth/');
    const reject = (reason: string, id: string): { status: number; body: unknown } =>
      this.#reject(
        r,
        401,
        reason,
        isKeyCheck
          ? { error: 'authenticationError', message: reason, suberror: id }
          : { result: 'error', error: id, errors: [reason], serverTime: new Date().toISOString() },
      );
    r.params = Object.fromEntries(new URLSearchParams(r.query));
    const apiKey = header(r.headers, 'apikey');
    const key = apiKey === undefined ? undefined : this.#keys.get(apiKey);
    if (key === undefined) return reject('invalid key', 'apiKeyInvalid');
    const nonce = header(r.headers, 'nonce') ?? '';
    if (nonce !== '' && !/^\d{1,20}$/.test(nonce)) return reject('invalid nonce', 'nonceInvalid');
    r.nonce = nonce === '' ? undefined : nonce;
    const endpointPath = r.path.startsWith('/derivatives')
      ? r.path.slice('/derivatives'.length)
      : r.path;
    const data = r.rawBody.length > 0 ? r.rawBody : Buffer.from(r.query, 'utf8');
    const expected = hmacSha512(
      key.apiSecret,
      sha256(data, Buffer.from(nonce, 'utf8'), Buffer.from(endpointPath, 'utf8')),
    );
    if (!sameText(header(r.headers, 'authent'), expected)) {
      return reject('invalid signature', 'authenticationError');
    }
    if (nonce !== '' && !this.#takeNonce('futures', key, nonce)) {
      return reject('invalid nonce', 'nonceBelowThreshold');
    }
    return undefined;
  }

  #custodyDoor(r: RecordedRequest): { status: number; body: unknown } | undefined {
    const reject = (detail: string): { status: number; body: unknown } =>
      this.#reject(r, 401, detail, {
        type: 'tag:fake-exchange,2025:Unauthorized',
        status: 401,
        title: 'Unauthorized',
        detail,
        instance: `https://trace.invalid/${r.traceId}`,
      });
    r.params = Object.fromEntries(new URLSearchParams(r.query));
    const apiKey = header(r.headers, 'api-key');
    const key = apiKey === undefined ? undefined : this.#keys.get(apiKey);
    if (key === undefined) return reject('invalid key');
    const nonce = header(r.headers, 'api-nonce');
    if (nonce === undefined || !/^\d{1,20}$/.test(nonce)) return reject('invalid nonce');
    r.nonce = nonce;
    const targetText = r.query === '' ? r.path : `${r.path}?${r.query}`;
    const expected = hmacSha512(
      key.apiSecret,
      Buffer.concat([
        Buffer.from(targetText, 'utf8'),
        sha256(Buffer.from(nonce, 'utf8'), r.rawBody),
      ]),
    );
    if (!sameText(header(r.headers, 'api-sign'), expected)) return reject('invalid signature');
    if (!this.#takeNonce('custody', key, nonce)) return reject('invalid nonce');
    return undefined;
  }

  #reject(
    r: RecordedRequest,
    status: number,
    reason: string,
    body: unknown,
  ): { status: number; body: unknown } {
    r.rejection = reason;
    return { status, body };
  }

  #nonceState(family: Family, apiKey: string): NonceState {
    const id = `${family}\u0000${apiKey}`;
    let state = this.#nonces.get(id);
    if (state === undefined) {
      state = { high: -1n, seen: new Set() };
      this.#nonces.set(id, state);
    }
    return state;
  }

  /** Strictly increasing, or within the key's window and not seen before. */
  #takeNonce(family: Family, key: FakeKey, text: string): boolean {
    const state = this.#nonceState(family, key.apiKey);
    const n = BigInt(text);
    const window = BigInt(key.nonceWindow ?? 0);
    if (n > state.high) {
      state.high = n;
      state.seen.add(n);
      if (window > 0n && state.seen.size > 4096) {
        for (const s of state.seen) if (s <= state.high - window) state.seen.delete(s);
      }
      return true;
    }
    if (window > 0n && n > state.high - window && !state.seen.has(n)) {
      state.seen.add(n);
      return true;
    }
    return false;
  }

  // ---- answers --------------------------------------------------------------------------------

  #handlerFor(name: string): Handler | undefined {
    return this.#handlers.get(name) ?? this.#patterns.find((p) => p.pattern.test(name))?.handler;
  }

  #defaultReply(r: RecordedRequest): Reply {
    if (r.name in DEFAULT_RESULTS) return resultOf(DEFAULT_RESULTS[r.name]);
    return {
      status: 200,
      body: { error: [`EGeneral:Unknown method:no handler for ${r.name} in the fake exchange`] },
    };
  }

  async #reply(
    req: IncomingMessage,
    res: ServerResponse,
    r: RecordedRequest,
    reply: Reply,
  ): Promise<void> {
    if (isObject(reply) && reply.drop === true) {
      req.socket.destroy();
      return;
    }
    if (isObject(reply) && typeof reply.delayMs === 'number') {
      const delayMs = reply.delayMs;
      await new Promise<void>((resolve) => {
        const t = setTimeout(() => {
          this.#timers.delete(t);
          resolve();
        }, delayMs);
        this.#timers.add(t);
      });
      const next = 'reply' in reply ? (reply.reply as Reply) : this.#defaultReply(r);
      await this.#reply(req, res, r, next);
      return;
    }
    if (isObject(reply) && typeof reply.status === 'number' && 'body' in reply) {
      const headers = isObject(reply.headers) ? (reply.headers as Record<string, string>) : {};
      this.#send(res, r, reply.status, reply.body, headers);
      return;
    }
    if (isObject(reply) && Array.isArray(reply.error)) {
      this.#send(res, r, 200, reply);
      return;
    }
    const spot = r.family === 'public' || r.family === 'private';
    this.#send(res, r, 200, spot ? { error: [], result: reply } : reply);
  }

  #send(
    res: ServerResponse,
    r: RecordedRequest,
    status: number,
    body: unknown,
    headers: Readonly<Record<string, string>> = {},
  ): void {
    if (res.destroyed || res.writableEnded) return;
    const isRaw = typeof body === 'string' || Buffer.isBuffer(body);
    const payload = isRaw ? body : JSON.stringify(body);
    r.status = status;
    res.statusCode = status;
    if (!isRaw) res.setHeader('content-type', 'application/json');
    else if (!('content-type' in lowerKeys(headers))) res.setHeader('content-type', 'text/plain');
    for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
    res.end(payload);
  }

  #notify(): void {
    for (let i = this.#waiters.length - 1; i >= 0; i--) {
      const w = this.#waiters[i];
      if (w !== undefined && w.check()) {
        this.#waiters.splice(i, 1);
        w.resolve();
      }
    }
  }
}

/** Starts a fake exchange on 127.0.0.1, port 0. */
export async function startFakeExchange(options: FakeExchangeOptions = {}): Promise<FakeExchange> {
  return new FakeExchange(options).start();
}

function routeOf(path: string): { family: Family; name: string } | undefined {
  const spot = /^\/0\/(public|private)\/(.+)$/.exec(path);
  if (spot !== null) {
    return { family: spot[1] === 'public' ? 'public' : 'private', name: spot[2] ?? '' };
  }
  if (path.startsWith('/derivatives/api/v3/') || path.startsWith('/api/auth/v1/')) {
    return { family: 'futures', name: path };
  }
  if (path.startsWith('/v0/insto/custody/')) return { family: 'custody', name: path };
  return undefined;
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
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

function hmacSha512(secretBase64: string, message: Buffer): string {
  return createHmac('sha512', Buffer.from(secretBase64, 'base64')).update(message).digest('base64');
}

function sameText(got: string | undefined, expected: string): boolean {
  if (got === undefined) return false;
  const a = Buffer.from(got);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function lowerKeys(h: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toLowerCase(), v]));
}
