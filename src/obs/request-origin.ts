import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import { InvalidInputError } from '../core/index.js';

/**
 * Where a request comes from and what it is addressed to, for the endpoint's checks: the client's
 * address and scheme (from a trusted reverse proxy's X-Forwarded-For and X-Forwarded-Proto, else
 * the connection's own), whether its Host names this machine, and whether a browser sent it for a
 * page of another origin. Behind a proxy terminating TLS the browser sees another origin than the
 * one makerd listens on: http.public_origin names it, and both checks accept it.
 */

/** Who sent a request, as far as the endpoint can believe it. */
export interface RequestSource {
  /** The client's address: the connection's peer, or the one a trusted proxy forwards for. */
  readonly remote: string;
  /** The scheme the client used: a trusted proxy's X-Forwarded-Proto, else makerd's own http. */
  readonly scheme: 'http' | 'https';
}

/** Host names of this machine as a browser writes them in Host. */
const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

/** `::ffff:127.0.0.1` (an IPv4 peer on a dual-stack socket) as `127.0.0.1`. */
function plainAddress(address: string): string {
  const lower = address.trim().toLowerCase();
  return lower.startsWith('::ffff:') && isIP(lower.slice(7)) === 4 ? lower.slice(7) : lower;
}

/**
 * The request's client. X-Forwarded-* are believed only from a peer in `trusted`: anyone else can
 * write them. The client is the nearest address in X-Forwarded-For that is not itself a trusted
 * proxy (each proxy appends the one it saw, so what lies beyond the first untrusted one is the
 * client's own claim).
 */
export function requestSource(req: IncomingMessage, trusted: ReadonlySet<string>): RequestSource {
  const peer = plainAddress(req.socket.remoteAddress ?? '');
  if (!trusted.has(peer)) return { remote: peer, scheme: 'http' };
  const hops = headerList(req.headers['x-forwarded-for']).map(plainAddress);
  let remote = peer;
  for (const hop of hops.reverse()) {
    if (isIP(hop) === 0) break;
    remote = hop;
    if (!trusted.has(hop)) break;
  }
  const proto = headerList(req.headers['x-forwarded-proto']).pop()?.toLowerCase();
  return { remote, scheme: proto === 'https' ? 'https' : 'http' };
}

function headerList(value: string | string[] | undefined): string[] {
  const text = Array.isArray(value) ? value.join(',') : (value ?? '');
  return text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/**
 * Whether a Host header names this machine (or the public origin's host): a DNS-rebinding page
 * names its own host, which an endpoint on loopback must not answer.
 */
export function addressedHere(host: string | undefined, publicOrigin: string | undefined): boolean {
  const name = hostName(host);
  return (
    LOOPBACK_HOSTS.has(name) ||
    (publicOrigin !== undefined && new URL(publicOrigin).hostname === name)
  );
}

/** The host name of a Host header (`127.0.0.1:9464` -> `127.0.0.1`, `[::1]:9464` -> `[::1]`). */
function hostName(header: string | undefined): string {
  if (header === undefined) return '';
  const name = header.startsWith('[')
    ? header.slice(0, header.indexOf(']') + 1)
    : (header.split(':')[0] ?? '');
  return name.toLowerCase();
}

/**
 * A browser's request made by a page of another origin: browsers say so in Sec-Fetch-Site, and
 * send Origin with every POST, which must be the endpoint's own (the scheme the client used and
 * the Host) or the public origin. Tools (curl, makerd's own CLI) send neither and are not refused.
 */
export function crossSite(
  req: IncomingMessage,
  scheme: RequestSource['scheme'],
  publicOrigin: string | undefined,
): boolean {
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return true;
  const origin = req.headers.origin;
  if (origin === undefined) return false;
  const from = originOf(origin);
  if (from === undefined) return true;
  return from !== publicOrigin && from !== originOf(`${scheme}://${req.headers.host ?? ''}`);
}

/** `https://Example.com:443/` -> `https://example.com`; undefined when it is no http(s) origin. */
function originOf(text: string): string | undefined {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : undefined;
  } catch {
    return undefined;
  }
}

/**
 * http.public_origin as the checks compare it (`https://makerd.example.com`), or a one-line error
 * naming the field: an http or https origin with a host, maybe a port, and nothing else.
 */
export function parsePublicOrigin(value: string): string {
  const origin = originOf(value);
  // Anything besides the origin (a path, a query, a user) shows in the normalised URL.
  if (origin !== undefined && new URL(value).href === `${origin}/`) return origin;
  throw new InvalidInputError(
    'http.public_origin',
    `must be the origin the browser shows (https:// or http://, the host, maybe a port, no ` +
      `path), such as https://makerd.example.com; got ${JSON.stringify(value)}`,
  );
}

/** http.trusted_proxies as the checks compare them, or a one-line error naming the bad entry. */
export function parseTrustedProxies(values: readonly string[]): string[] {
  values.forEach((value, i) => {
    if (isIP(value.trim()) === 0) {
      throw new InvalidInputError(
        `http.trusted_proxies[${i}]`,
        `must be an IP address, the proxy's as makerd sees it (such as 127.0.0.1); got ` +
          JSON.stringify(value),
      );
    }
  });
  return values.map(plainAddress);
}

/**
 * Whether others than this machine reach the endpoint: it listens beyond loopback, or a reverse
 * proxy publishes it (http.public_origin). Then it needs a control token of full length.
 */
export function reachableFromElsewhere(host: string, publicOrigin: string | undefined): boolean {
  return !isLoopbackHost(host) || publicOrigin !== undefined;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

/** Whether only this machine can reach an endpoint bound to `host`. */
export function isLoopbackHost(host: string): boolean {
  return LOOPBACK.has(host);
}
