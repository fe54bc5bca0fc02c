import { ConnectError, RequestAbortedError, type TransportError } from '../errors/index.js';
import {
  DirectConnection,
  requestText,
  type ConnectionSettings,
  type Exchange,
  type Origin,
} from './direct-connection.js';
import {
  transportSettings,
  type HttpRequest,
  type HttpResponse,
  type Transport,
  type TransportOptions,
} from './types.js';

export interface DirectTransportOptions extends TransportOptions {
  /**
   * Connections per origin kept open and ready once the origin is first used (or preconnect()ed),
   * renewed as they reach the idle limit, so an order never waits for a connection to be made.
   * Default 2.
   */
  readonly warmConnections?: number;
  /** A certificate (PEM) trusted for https besides the system's: a private deployment, tests. */
  readonly ca?: string;
}

interface Pool {
  readonly origin: Origin;
  /** Idle connections, the most recently used last (taken first: least likely closed by now). */
  readonly idle: DirectConnection[];
  readonly all: Set<DirectConnection>;
  /** Requests waiting for a connection, oldest first. */
  readonly waiting: Exchange[];
  connecting: number;
  /** Idle (or connecting) connections kept ready. */
  warm: number;
}

/** How often idle connections are checked against their idle limit and the warm ones topped up. */
const UPKEEP_EVERY_MS = 500;
/** Kept between the server's announced idle timeout and ours. */
const SERVER_IDLE_MARGIN_MS = 1_000;

/**
 * The order-entry transport: keep-alive HTTP/1.1 connections (DirectConnection) that write each
 * request in the call that sends it, with connections kept warm so none is made on an order's way.
 * Every other call goes through HttpTransport (undici), whose pooling and parsing serve reads at
 * least as well; this one exists for the ~0.15-0.3 ms undici's deferred write costs an order.
 */
export class DirectTransport implements Transport {
  readonly #settings: ConnectionSettings;
  readonly #idleLimitMs: number;
  readonly #maxConnections: number;
  readonly #warm: number;
  readonly #pools = new Map<string, Pool>();
  #upkeep: NodeJS.Timeout | undefined;
  #closing = false;
  #closed: (() => void) | undefined;

  constructor(options: DirectTransportOptions = {}) {
    const o = transportSettings(options);
    this.#settings = { ...o, ca: options.ca };
    this.#idleLimitMs = o.keepAliveTimeoutMs;
    this.#maxConnections = o.connectionsPerOrigin;
    this.#warm = Math.min(options.warmConnections ?? 2, this.#maxConnections);
  }

  send(req: HttpRequest): Promise<HttpResponse> {
    return new Promise<HttpResponse>((resolve, reject) => {
      const target = this.#target(req.url);
      if (typeof target === 'string') {
        reject(new ConnectError(req.endpoint, new Error(target)));
        return;
      }
      if (this.#closing) {
        reject(new ConnectError(req.endpoint, new Error('transport closed')));
        return;
      }
      const signal = req.signal;
      if (signal?.aborted === true) {
        reject(notSentAbort(req, signal));
        return;
      }
      const text = requestText(target.origin, target.path, req, this.#settings.userAgent);
      if (typeof text !== 'string') {
        reject(text);
        return;
      }
      const pool = this.#poolFor(target.origin);
      const ex: Exchange = { req, path: target.path, text, resolve, reject };
      const conn = this.#takeIdle(pool);
      if (conn !== undefined) {
        conn.write(ex);
        return;
      }
      pool.waiting.push(ex);
      if (signal !== undefined) {
        signal.addEventListener(
          'abort',
          () => {
            const i = pool.waiting.indexOf(ex);
            if (i < 0) return;
            pool.waiting.splice(i, 1);
            reject(notSentAbort(req, signal));
          },
          { once: true },
        );
      }
      this.#grow(pool);
    });
  }

  /**
   * Keeps `connections` (default warmConnections, at most connectionsPerOrigin) ready to `url`'s
   * origin from now on, and resolves once they are open: as many as the calls that may go out at
   * once, so a burst of them waits for none.
   */
  async preconnect(url: string, connections = this.#warm): Promise<void> {
    const target = this.#target(url);
    if (typeof target === 'string') throw new Error(target);
    const pool = this.#poolFor(target.origin);
    pool.warm = Math.max(pool.warm, Math.min(connections, this.#maxConnections));
    this.#keepWarm(pool);
    await Promise.all([...pool.all].map((c) => c.ready));
  }

  async close(): Promise<void> {
    if (this.#closing) return;
    this.#closing = true;
    clearInterval(this.#upkeep);
    const open = [...this.#pools.values()].some((p) => p.all.size > 0);
    const done = open ? new Promise<void>((resolve) => (this.#closed = resolve)) : undefined;
    for (const pool of this.#pools.values()) {
      for (const ex of pool.waiting.splice(0)) {
        ex.reject(new ConnectError(ex.req.endpoint, new Error('transport closed')));
      }
      for (const conn of [...pool.all]) if (!conn.busy) conn.close();
    }
    await done;
  }

  #target(url: string): { origin: Origin; path: string } | string {
    const schemeEnd = url.indexOf('://');
    const slash = schemeEnd < 0 ? -1 : url.indexOf('/', schemeEnd + 3);
    const key = slash < 0 ? url : url.slice(0, slash);
    const path = slash < 0 ? '/' : url.slice(slash);
    const known = this.#pools.get(key);
    if (known !== undefined) return { origin: known.origin, path };
    let parsed: URL;
    try {
      parsed = new URL(key);
    } catch {
      return `not a URL: ${key}`;
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      return `unsupported protocol ${parsed.protocol}`;
    }
    const tls = parsed.protocol === 'https:';
    return {
      origin: {
        key,
        tls,
        hostname: parsed.hostname.replace(/^\[(.*)\]$/, '$1'),
        port: parsed.port === '' ? (tls ? 443 : 80) : Number(parsed.port),
        host: parsed.host,
      },
      path,
    };
  }

  #poolFor(origin: Origin): Pool {
    let pool = this.#pools.get(origin.key);
    if (pool === undefined) {
      pool = { origin, idle: [], all: new Set(), waiting: [], connecting: 0, warm: this.#warm };
      this.#pools.set(origin.key, pool);
      this.#keepWarm(pool);
      if (this.#upkeep === undefined) {
        this.#upkeep = setInterval(() => this.#tend(), UPKEEP_EVERY_MS);
        this.#upkeep.unref();
      }
    }
    return pool;
  }

  /** The most recently used idle connection still inside its idle limit; older ones are closed. */
  #takeIdle(pool: Pool): DirectConnection | undefined {
    const now = performance.now();
    for (let conn = pool.idle.pop(); conn !== undefined; conn = pool.idle.pop()) {
      if (conn.closed) continue;
      if (now - conn.idleSinceMs > this.#limitOf(conn)) {
        conn.close();
        continue;
      }
      return conn;
    }
    return undefined;
  }

  #limitOf(conn: DirectConnection): number {
    const server = conn.serverIdleMs;
    return server === undefined
      ? this.#idleLimitMs
      : Math.min(this.#idleLimitMs, server - SERVER_IDLE_MARGIN_MS);
  }

  /** A new connection if requests wait for more than the ones being made, within the maximum. */
  #grow(pool: Pool): void {
    if (pool.waiting.length > pool.connecting && pool.all.size < this.#maxConnections) {
      this.#open(pool);
    }
  }

  #keepWarm(pool: Pool): void {
    while (
      !this.#closing &&
      pool.idle.length + pool.connecting < pool.warm &&
      pool.all.size < this.#maxConnections
    ) {
      this.#open(pool);
    }
  }

  #open(pool: Pool): void {
    const conn = new DirectConnection(pool.origin, this.#settings);
    pool.all.add(conn);
    pool.connecting += 1;
    conn.onIdle = (c) => this.#release(pool, c);
    conn.onClose = (c) => {
      pool.all.delete(c);
      const i = pool.idle.indexOf(c);
      if (i >= 0) pool.idle.splice(i, 1);
      if (this.#closing) {
        if ([...this.#pools.values()].every((p) => p.all.size === 0)) this.#closed?.();
      }
    };
    void conn.ready.then((ok) => {
      pool.connecting -= 1;
      if (ok) {
        this.#release(pool, conn);
        return;
      }
      // Nothing could be sent: the requests waiting for a connection fail as not sent, unless
      // another connection is still being made for them.
      if (pool.connecting > 0) return;
      const cause = conn.failure ?? new Error(`cannot connect to ${pool.origin.key}`);
      for (const ex of pool.waiting.splice(0)) ex.reject(new ConnectError(ex.req.endpoint, cause));
    });
  }

  /** A connection free for the next request: the oldest waiting one, else the idle list. */
  #release(pool: Pool, conn: DirectConnection): void {
    if (conn.closed) return;
    if (this.#closing) {
      conn.close();
      return;
    }
    const ex = pool.waiting.shift();
    if (ex !== undefined) {
      conn.write(ex);
      return;
    }
    conn.park();
    pool.idle.push(conn);
  }

  /** Closes idle connections past their limit (before the server does) and tops up warm ones. */
  #tend(): void {
    const now = performance.now();
    for (const pool of this.#pools.values()) {
      for (const conn of [...pool.idle]) {
        if (now - conn.idleSinceMs > this.#limitOf(conn)) conn.close();
      }
      this.#keepWarm(pool);
    }
  }
}

function notSentAbort(req: HttpRequest, signal: AbortSignal): TransportError {
  return new RequestAbortedError(req.endpoint, signal.reason, 'not-sent');
}
