import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { errorMessage, InvalidInputError, silentLog, type Log } from '../core/index.js';
import type { BearerToken } from './bearer-token.js';
import { HttpRefusals, type RefusalReason } from './http-refusals.js';
import {
  addressedHere,
  crossSite,
  isLoopbackHost,
  reachableFromElsewhere,
  requestSource,
} from './request-origin.js';

/**
 * A route's answer: JSON; text with its content type (Prometheus exposition, the console's files);
 * or a stream the route writes itself (Server-Sent Events), ended when the client goes.
 */
export type RouteAnswer =
  | {
      readonly json: unknown;
      readonly status?: number;
      /** The route refused the request for this reason (counted and logged as the server's own). */
      readonly refused?: RefusalReason;
    }
  | { readonly text: string; readonly contentType: string }
  | { readonly stream: (res: ServerResponse) => void };

/** What a route may read of its request besides the body. */
export interface RouteRequest {
  readonly headers: IncomingHttpHeaders;
  /** The client's address: the peer's, or the one a trusted proxy forwards for. */
  readonly remote: string | undefined;
}

/** `METHOD /path` → handler; POST handlers get the parsed JSON body ({} when empty). */
export type Routes = Readonly<
  Record<
    string,
    (body: Record<string, unknown>, request: RouteRequest) => Promise<RouteAnswer> | RouteAnswer
  >
>;

export interface HttpServerOptions {
  readonly host: string;
  /** 0: any free port. */
  readonly port: number;
  /**
   * The tokens requests must carry (`Authorization: Bearer <token>`): the control token for
   * everything, the read token for GET only. Without a control token nothing is asked, which only
   * a loopback host may do.
   */
  readonly tokens: HttpTokens;
  readonly routes: Routes;
  /** Routes answered without the token: files that hold no data (the console's page). */
  readonly publicRoutes?: ReadonlySet<string>;
  readonly log?: Log;
  /** Counts, logs and throttles refused requests (default: one of the server's own). */
  readonly refusals?: HttpRefusals;
  /**
   * The origin browsers see behind a reverse proxy (http.public_origin, as parsePublicOrigin
   * gives it): the Host and Origin checks accept it besides the endpoint's own.
   */
  readonly publicOrigin?: string;
  /** Peers whose X-Forwarded-For and X-Forwarded-Proto are believed (http.trusted_proxies). */
  readonly trustedProxies?: readonly string[];
}

export interface HttpTokens {
  /** Reads and acts: halt, resume, pull, restore, any POST. */
  readonly control?: BearerToken;
  /** Reads only: GET /status, /metrics, the console's stream. */
  readonly read?: BearerToken;
}

export interface RunningHttpServer {
  readonly url: string;
  close(): Promise<void>;
}

const MAX_BODY = 16 * 1024;

/**
 * The daemon's HTTP endpoint (status, metrics, halt and resume, the console). Loopback by default:
 * anything that can reach it can halt the bot, so another address needs a control token (and may
 * have a read token for watching only), compared in constant time and never logged; wrong tokens
 * lock their address out for a while (HttpRefusals). Browsers are kept from acting for another
 * site: a loopback endpoint answers only requests addressed to a loopback name or the public
 * origin's (a DNS-rebinding page names its own), and a POST a browser sends from another origin
 * than the endpoint's or the public one is refused.
 */
export async function startHttpServer(options: HttpServerOptions): Promise<RunningHttpServer> {
  const { host, tokens, routes } = options;
  const publicRoutes = options.publicRoutes ?? new Set<string>();
  const log = options.log ?? silentLog;
  const refusals = options.refusals ?? new HttpRefusals({ log });
  const { publicOrigin } = options;
  const trustedProxies = new Set(options.trustedProxies);
  if (reachableFromElsewhere(host, publicOrigin) && tokens.control === undefined) {
    const where =
      publicOrigin === undefined
        ? `http.host is ${host}, not loopback`
        : 'http.public_origin is set';
    throw new InvalidInputError(
      'http.token_env',
      `a token is required when ${where}: anyone reaching it could halt the bot`,
    );
  }
  const server = createServer((req, res) => {
    void handle(req, res).catch((err: unknown) => {
      log.error({ err: errorMessage(err) }, 'http request failed');
      send(res, 500, { error: 'internal error' });
    });
  });
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const method = req.method ?? 'GET';
    const key = `${method} ${path}`;
    const { remote, scheme } = requestSource(req, trustedProxies);
    const refuse = (reason: RefusalReason, status: number, error: string): void => {
      refusals.refused(remote, reason, status);
      send(res, status, { error });
    };
    if (isLoopbackHost(host) && !addressedHere(req.headers.host, publicOrigin)) {
      refuse('host', 403, hostRefusal(publicOrigin));
      return;
    }
    if (method === 'POST' && crossSite(req, scheme, publicOrigin)) {
      refuse(
        'cross_site',
        403,
        publicOrigin === undefined
          ? `cross-site request refused${BEHIND_A_PROXY}`
          : 'cross-site request refused',
      );
      return;
    }
    if (tokens.control !== undefined && !publicRoutes.has(key)) {
      const lockedFor = refusals.lockedFor(remote);
      if (lockedFor !== undefined) {
        refusals.refused(remote, 'throttled', 429);
        res.setHeader('retry-after', String(lockedFor));
        send(res, 429, { error: `too many wrong tokens from ${remote}: retry in ${lockedFor} s` });
        return;
      }
      const header = req.headers.authorization;
      const reads = method === 'GET' || method === 'HEAD';
      if (!tokens.control.accepts(header)) {
        if (tokens.read?.accepts(header) !== true) {
          refuse('token', 401, 'missing or wrong bearer token');
          return;
        }
        if (!reads) {
          refuse('read_token', 403, 'the read token cannot act: this needs the control token');
          return;
        }
      }
    }
    const route = routes[key];
    if (route === undefined) {
      send(res, 404, { error: `no route ${req.method ?? ''} ${path}` });
      return;
    }
    const body = req.method === 'POST' ? await jsonBody(req) : {};
    if (body === TOO_LARGE) {
      // The rest of the body is not read: the connection goes with the answer.
      res.setHeader('connection', 'close');
      send(res, 413, { error: `the body must be at most ${MAX_BODY} bytes` });
      return;
    }
    if (body === undefined) {
      send(res, 400, { error: 'the body must be a JSON object' });
      return;
    }
    const answer = await route(body, {
      headers: req.headers,
      remote: remote === '' ? undefined : remote,
    });
    if ('json' in answer) {
      if (answer.refused !== undefined) {
        refusals.refused(remote, answer.refused, answer.status ?? 200);
      }
      send(res, answer.status ?? 200, answer.json);
    } else if ('stream' in answer) answer.stream(res);
    else {
      res.writeHead(200, { ...GUARDS, 'content-type': answer.contentType });
      res.end(answer.text);
    }
  };
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(listenError(err, host, options.port)),
    );
    server.listen(options.port, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** What an operator behind a reverse proxy is missing when the checks refuse its browser. */
const BEHIND_A_PROXY =
  ' (behind a reverse proxy: name the origin the browser shows in http.public_origin)';

function hostRefusal(publicOrigin: string | undefined): string {
  return publicOrigin === undefined
    ? `this endpoint answers only requests addressed to 127.0.0.1 or localhost${BEHIND_A_PROXY}`
    : `this endpoint answers only requests addressed to 127.0.0.1, localhost or ${new URL(publicOrigin).hostname}`;
}

const TOO_LARGE = Symbol('too large');

async function jsonBody(
  req: IncomingMessage,
): Promise<Record<string, unknown> | undefined | typeof TOO_LARGE> {
  if (Number(req.headers['content-length'] ?? 0) > MAX_BODY) return TOO_LARGE;
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of req) {
    bytes += (chunk as Buffer).length;
    if (bytes > MAX_BODY) return TOO_LARGE;
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return {};
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * On every answer: no page may frame ours (a framed Halt button can be clicked for someone), no
 * type sniffing, and nothing cached (status is now, never from a cache).
 */
const GUARDS = {
  'content-security-policy': "frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'cache-control': 'no-store',
} as const;

function send(res: ServerResponse, status: number, value: unknown): void {
  if (res.headersSent) return;
  res.writeHead(status, { ...GUARDS, 'content-type': 'application/json' });
  res.end(`${JSON.stringify(value)}\n`);
}

/**
 * Refuses, as startHttpServer would, a port another process listens on: for a command that must
 * know before it changes anything (the demo clears its Redis prefix first). Port 0 is always free.
 */
export async function checkPortFree(host: string, port: number): Promise<void> {
  if (port === 0) return;
  const server = createNetServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => reject(listenError(err, host, port)));
    server.listen(port, host, () => resolve());
  });
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

function listenError(err: NodeJS.ErrnoException, host: string, port: number): Error {
  if (err.code !== 'EADDRINUSE') return err;
  return new InvalidInputError(
    'http.port',
    `${host}:${port} is in use (another makerd process?): give each process its own http.port or MAKERD_HTTP_PORT; 0 picks a free one`,
  );
}
