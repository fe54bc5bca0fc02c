import { Agent, errors as undiciErrors, type Dispatcher } from 'undici';
import {
  BodyBrokenError,
  ConnectError,
  ConnectionLostError,
  RequestAbortedError,
  RequestTimeoutError,
  type TransportError,
} from '../errors/index.js';
import {
  transportSettings,
  type HttpRequest,
  type HttpResponse,
  type Transport,
  type TransportOptions,
} from './types.js';

/**
 * Every call's HTTP: one undici Agent (a keep-alive pool per origin, explicit timeouts) used
 * through its documented `request()` and body mixins. Every failure becomes a TransportError that
 * says whether the exchange may have seen the request. Statuses are returned, not judged: each
 * exchange family has its own error bodies.
 */
export class HttpTransport implements Transport {
  readonly #agent: Agent;
  readonly #userAgent: string;

  constructor(options: TransportOptions = {}) {
    const o = transportSettings(options);
    this.#userAgent = o.userAgent;
    this.#agent = new Agent({
      connect: { timeout: o.connectTimeoutMs },
      headersTimeout: o.headersTimeoutMs,
      bodyTimeout: o.bodyTimeoutMs,
      keepAliveTimeout: o.keepAliveTimeoutMs,
      // A server's own keep-alive hint is believed up to this, never longer.
      keepAliveMaxTimeout: 60_000,
      connections: o.connectionsPerOrigin,
    });
  }

  async send(req: HttpRequest): Promise<HttpResponse> {
    // Refused here, nothing was handed to the pool: the exchange cannot have seen it.
    if (req.signal?.aborted === true) {
      throw new RequestAbortedError(req.endpoint, req.signal.reason, 'not-sent');
    }
    let res: Dispatcher.ResponseData;
    try {
      const url = new URL(req.url);
      res = await this.#agent.request({
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: req.method,
        headers: { 'user-agent': this.#userAgent, ...req.headers },
        body: req.body,
        signal: req.signal,
      });
    } catch (cause) {
      throw mapRequestError(req, cause);
    }
    const traceId = firstValue(res.headers['x-trace-id']);
    const contentType = firstValue(res.headers['content-type']);
    try {
      const binary = req.binary === true;
      return {
        status: res.statusCode,
        body: binary ? '' : await res.body.text(),
        bytes: binary ? new Uint8Array(await res.body.arrayBuffer()) : undefined,
        traceId,
        contentType,
      };
    } catch (cause) {
      throw mapBodyError(req.endpoint, cause, traceId);
    }
  }

  async close(): Promise<void> {
    await this.#agent.close();
  }
}

function firstValue(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

/** Errors the socket reports before any byte of the request could have left. */
const NOT_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

/** A failure before the answer's headers: sent or not, by what failed. */
function mapRequestError(req: HttpRequest, cause: unknown): TransportError {
  const endpoint = req.endpoint;
  if (cause instanceof undiciErrors.ConnectTimeoutError) return new ConnectError(endpoint, cause);
  if (cause instanceof undiciErrors.HeadersTimeoutError) {
    return new RequestTimeoutError(endpoint, 'headers', cause);
  }
  const code = (cause as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && NOT_SENT_CODES.has(code)) {
    return new ConnectError(endpoint, cause);
  }
  // The caller's signal: undici rejects with its reason, whatever its type (a string, say).
  if (req.signal?.aborted === true || cause instanceof undiciErrors.RequestAbortedError) {
    return new RequestAbortedError(endpoint, cause, 'unknown');
  }
  return new ConnectionLostError(endpoint, cause);
}

/** A failure after the headers came: the exchange saw the request. */
function mapBodyError(
  endpoint: string,
  cause: unknown,
  traceId: string | undefined,
): TransportError {
  if (cause instanceof undiciErrors.BodyTimeoutError) {
    return new RequestTimeoutError(endpoint, 'body', cause, traceId);
  }
  return new BodyBrokenError(endpoint, cause, traceId);
}
