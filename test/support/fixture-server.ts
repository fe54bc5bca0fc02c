/**
 * A tiny HTTP server for client tests: it answers every path with a canned response chosen by the
 * test and records what it received. It does not check signatures (see the strict server for that).
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { SpotClient, type SpotClientOptions } from '../../src/index.js';

export interface CannedResponse {
  /** HTTP status; 200 unless told. */
  readonly status?: number;
  /** Extra headers; `content-type` defaults to application/json. */
  readonly headers?: Readonly<Record<string, string>>;
  /** The body exactly as sent. */
  readonly body: string | Uint8Array;
  /** The `x-trace-id` header; a fresh `trace-<n>` unless told. `null` leaves the header out. */
  readonly traceId?: string | null;
}

export interface RecordedRequest {
  readonly method: string;
  /** Path without the query string, e.g. `/0/private/AddOrder`. */
  readonly path: string;
  /** The request target as received, with the query string. */
  readonly url: string;
  readonly query: URLSearchParams;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  /** The `x-trace-id` the server answered with (undefined when it sent none). */
  readonly traceId: string | undefined;
}

type Responder = CannedResponse | ((req: RecordedRequest) => CannedResponse);

/** The spot envelope `{ error, result }` as JSON text. */
export function envelope(result: unknown, errors: readonly unknown[] = []): string {
  return JSON.stringify({ error: errors, result });
}

/** An envelope carrying only errors, as the spec says rejected calls do. */
export function errorEnvelope(...errors: readonly unknown[]): string {
  return JSON.stringify({ error: errors });
}

export class FixtureServer {
  readonly requests: RecordedRequest[] = [];
  readonly #server: Server;
  readonly #queue: Responder[] = [];
  #fallback: Responder = { status: 500, body: '{"error":["EGeneral:No fixture set"]}' };
  #traceCounter = 0;
  #url = '';

  private constructor() {
    this.#server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const target = req.url ?? '/';
        const parsed = new URL(target, 'http://fixture.invalid');
        const partial = {
          method: req.method ?? '',
          path: parsed.pathname,
          url: target,
          query: parsed.searchParams,
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        };
        const responder = this.#queue.shift() ?? this.#fallback;
        let canned: CannedResponse;
        try {
          canned =
            typeof responder === 'function'
              ? responder({ ...partial, traceId: undefined })
              : responder;
        } catch (err) {
          canned = { status: 599, body: String(err) };
        }
        const traceId =
          canned.traceId === null ? undefined : (canned.traceId ?? `trace-${++this.#traceCounter}`);
        this.requests.push({ ...partial, traceId });
        const headers: Record<string, string> = {
          'content-type': 'application/json',
          ...canned.headers,
        };
        if (traceId !== undefined) headers['x-trace-id'] = traceId;
        const body =
          typeof canned.body === 'string'
            ? Buffer.from(canned.body, 'utf8')
            : Buffer.from(canned.body);
        headers['content-length'] = String(body.length);
        res.writeHead(canned.status ?? 200, headers);
        res.end(body);
      });
    });
  }

  static async start(): Promise<FixtureServer> {
    const fs = new FixtureServer();
    await new Promise<void>((resolve, reject) => {
      fs.#server.once('error', reject);
      fs.#server.listen(0, '127.0.0.1', () => resolve());
    });
    const { port } = fs.#server.address() as AddressInfo;
    fs.#url = `http://127.0.0.1:${port}`;
    return fs;
  }

  /** Base URL without a trailing slash, e.g. `http://127.0.0.1:40123`. */
  get url(): string {
    return this.#url;
  }

  /** Answers every following request with this (until changed). Clears queued one-shot answers. */
  reply(responder: Responder): void {
    this.#queue.length = 0;
    this.#fallback = responder;
  }

  /** Answers the next request only with this; queued answers are used in order. */
  replyOnce(responder: Responder): void {
    this.#queue.push(responder);
  }

  /** Shortcut: 200 with the spot envelope around `result`. */
  replyResult(result: unknown, options: Omit<CannedResponse, 'body'> = {}): void {
    this.reply({ ...options, body: envelope(result) });
  }

  /** The last request received; throws when there was none. */
  last(): RecordedRequest {
    const r = this.requests[this.requests.length - 1];
    if (r === undefined) throw new Error('fixture server received no request');
    return r;
  }

  clearRequests(): void {
    this.requests.length = 0;
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve, reject) =>
      this.#server.close((err) => (err === undefined ? resolve() : reject(err))),
    );
  }
}

/** Credentials accepted by every family: the server does not check signatures. */
export const TEST_CREDENTIALS = { apiKey: 'k', apiSecret: Buffer.from('s').toString('base64') };

/** A client pointed at the fixture server: no pacing, no retries, credentials for all families. */
export function fixtureClient(
  server: FixtureServer,
  overrides: Partial<SpotClientOptions> = {},
): SpotClient {
  return new SpotClient({
    baseUrl: server.url,
    restLimiter: false,
    retry: { retries: 0 },
    credentials: TEST_CREDENTIALS,
    futuresCredentials: TEST_CREDENTIALS,
    custodyCredentials: TEST_CREDENTIALS,
    ...overrides,
  });
}
