import { timingSafeEqual } from 'node:crypto';
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { errorMessage, InvalidInputError, silentLog, type Log } from '../core/index.js';

/**
 * A route's answer: JSON; text with its content type (Prometheus exposition, the console's files);
 * or a stream the route writes itself (Server-Sent Events), ended when the client goes.
 */
export type RouteAnswer =
  | { readonly json: unknown; readonly status?: number }
  | { readonly text: string; readonly contentType: string }
  | { readonly stream: (res: ServerResponse) => void };

/** What a route may read of its request besides the body. */
export interface RouteRequest {
  readonly headers: IncomingHttpHeaders;
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
  /** Required when host is not loopback; then every request carries `Authorization: Bearer <token>`. */
  readonly token: string | undefined;
  readonly routes: Routes;
  /** Routes answered without the token: files that hold no data (the console's page). */
  readonly publicRoutes?: ReadonlySet<string>;
  readonly log?: Log;
}

export interface RunningHttpServer {
  readonly url: string;
  close(): Promise<void>;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);
/** Host header names of this machine, as a browser writes them. */
const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

/** Whether only this machine can reach an endpoint bound to `host`. */
export function isLoopbackHost(host: string): boolean {
  return LOOPBACK.has(host);
}
const MAX_BODY = 16 * 1024;

/**
 * The daemon's HTTP endpoint (status, metrics, halt and resume, the console). Loopback by default:
 * anything that can reach it can halt the bot, so another address needs a token, compared in
 * constant time and never logged. Browsers are kept from acting for another site: a loopback
 * endpoint answers only requests addressed to a loopback name (a DNS-rebinding page names its
 * own), and a POST a browser sends from another origin is refused.
 */
export async function startHttpServer(options: HttpServerOptions): Promise<RunningHttpServer> {
  const { host, token, routes } = options;
  const publicRoutes = options.publicRoutes ?? new Set<string>();
  const log = options.log ?? silentLog;
  if (!isLoopbackHost(host) && (token === undefined || token === '')) {
    throw new InvalidInputError(
      'http.token_env',
      `a token is required when http.host is ${host}, not loopback: anyone reaching it could halt the bot`,
    );
  }
  const expected = token === undefined ? undefined : Buffer.from(`Bearer ${token}`);
  const server = createServer((req, res) => {
    void handle(req, res).catch((err: unknown) => {
      log.error({ err: errorMessage(err) }, 'http request failed');
      send(res, 500, { error: 'internal error' });
    });
  });
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const key = `${req.method ?? 'GET'} ${path}`;
    if (isLoopbackHost(host) && !LOOPBACK_HOSTS.has(hostName(req.headers.host))) {
      send(res, 403, {
        error: 'this endpoint answers only requests addressed to 127.0.0.1 or localhost',
      });
      return;
    }
    if (req.method === 'POST' && crossSite(req)) {
      send(res, 403, { error: 'cross-site request refused' });
      return;
    }
    if (expected !== undefined && !publicRoutes.has(key)) {
      const got = Buffer.from(req.headers.authorization ?? '');
      if (got.length !== expected.length || !timingSafeEqual(got, expected)) {
        send(res, 401, { error: 'missing or wrong bearer token' });
        return;
      }
    }
    const route = routes[key];
    if (route === undefined) {
      send(res, 404, { error: `no route ${req.method ?? ''} ${path}` });
      return;
    }
    const body = req.method === 'POST' ? await jsonBody(req) : {};
    if (body === undefined) {
      send(res, 400, { error: 'the body must be a JSON object' });
      return;
    }
    const answer = await route(body, { headers: req.headers, remote: req.socket.remoteAddress });
    if ('json' in answer) send(res, answer.status ?? 200, answer.json);
    else if ('stream' in answer) answer.stream(res);
    else {
      res.writeHead(200, { ...GUARDS, 'content-type': answer.contentType });
      res.end(answer.text);
    }
  };
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(
        err.code === 'EADDRINUSE'
          ? new InvalidInputError(
              'http.port',
              `${host}:${options.port} is in use (another makerd process?): give each process its own http.port or MAKERD_HTTP_PORT; 0 picks a free one`,
            )
          : err,
      ),
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

/** The host name of a Host header (`127.0.0.1:9464` -> `127.0.0.1`, `[::1]:9464` -> `[::1]`). */
function hostName(header: string | undefined): string {
  if (header === undefined) return '';
  return header.startsWith('[')
    ? header.slice(0, header.indexOf(']') + 1)
    : (header.split(':')[0] ?? '');
}

/**
 * A browser's request made by a page of another origin: browsers say so in Sec-Fetch-Site, and
 * send Origin with every POST. Tools (curl, makerd's own CLI) send neither and are not refused.
 */
function crossSite(req: IncomingMessage): boolean {
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return true;
  const origin = req.headers.origin;
  if (origin === undefined) return false;
  try {
    return new URL(origin).host !== req.headers.host;
  } catch {
    return true;
  }
}

async function jsonBody(req: IncomingMessage): Promise<Record<string, unknown> | undefined> {
  let text = '';
  for await (const chunk of req) {
    text += String(chunk);
    if (text.length > MAX_BODY) return undefined;
  }
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
