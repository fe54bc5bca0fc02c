import { Agent, errors as undiciErrors, type Dispatcher } from 'undici';
import {
  ConnectError,
  ConnectionLostError,
  RequestTimeoutError,
  TransportError,
} from '../errors/index.js';

export interface TransportOptions {
  /** Sent on every request; the exchange requires one. */
  readonly userAgent?: string;
  readonly connectTimeoutMs?: number;
  /** Time to the response headers: past it the outcome of an order is unknown. */
  readonly headersTimeoutMs?: number;
  readonly bodyTimeoutMs?: number;
  /** Kept below a typical server's idle timeout so a reused socket is rarely closed under us. */
  readonly keepAliveTimeoutMs?: number;
  readonly connectionsPerOrigin?: number;
}

export interface HttpRequest {
  readonly method: 'GET' | 'POST';
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly body?: string | undefined;
  /** The spec's endpoint name, for errors and diagnostics. */
  readonly endpoint: string;
  readonly signal?: AbortSignal | undefined;
  /** Read the body as bytes (binary downloads) rather than text. */
  readonly binary?: boolean;
  /** Called once the request, body included, has been written to the socket. */
  readonly onWritten?: (() => void) | undefined;
}

export interface HttpResponse {
  readonly status: number;
  /** The body as text; empty for binary requests. */
  readonly body: string;
  /** The body as bytes, for binary requests only. */
  readonly bytes: Uint8Array | undefined;
  readonly traceId: string | undefined;
  readonly contentType: string | undefined;
}

export const DEFAULT_USER_AGENT = 'makerd/0.1.0';

/**
 * The one place that talks HTTP: a keep-alive pool per origin with explicit timeouts, mapping
 * every failure to a TransportError that says whether the exchange may have seen the request.
 * Statuses are returned, not judged: each exchange family has its own error bodies.
 */
export class HttpTransport {
  readonly #agent: Agent;
  readonly #userAgent: string;

  constructor(options: TransportOptions = {}) {
    this.#userAgent = options.userAgent ?? DEFAULT_USER_AGENT;
    this.#agent = new WrittenReportingAgent({
      connect: { timeout: options.connectTimeoutMs ?? 5_000 },
      headersTimeout: options.headersTimeoutMs ?? 10_000,
      bodyTimeout: options.bodyTimeoutMs ?? 10_000,
      keepAliveTimeout: options.keepAliveTimeoutMs ?? 4_000,
      keepAliveMaxTimeout: 60_000,
      connections: options.connectionsPerOrigin ?? 8,
      pipelining: 1,
    });
  }

  async send(req: HttpRequest): Promise<HttpResponse> {
    const headers: Record<string, string> = { 'user-agent': this.#userAgent, ...req.headers };
    let status: number;
    let traceId: string | undefined;
    let contentType: string | undefined;
    let body = '';
    let bytes: Uint8Array | undefined;
    try {
      const url = new URL(req.url);
      const res = await this.#agent.request({
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: req.method,
        headers,
        body: req.body,
        signal: req.signal,
        ...(req.onWritten === undefined ? {} : { onWritten: req.onWritten }),
      });
      status = res.statusCode;
      traceId = headerValue(res.headers['x-trace-id']);
      contentType = headerValue(res.headers['content-type']);
      try {
        if (req.binary === true) bytes = new Uint8Array(await res.body.arrayBuffer());
        else body = await res.body.text();
      } catch (cause) {
        throw mapBodyError(req.endpoint, cause, traceId);
      }
    } catch (cause) {
      if (cause instanceof TransportError) throw cause;
      throw mapRequestError(req.endpoint, cause);
    }
    return { status, body, bytes, traceId, contentType };
  }

  async close(): Promise<void> {
    await this.#agent.close();
  }
}

/**
 * An Agent that tells a request's `onWritten` when undici has written it: its handler's
 * onRequestSent, which undici calls right after the body's write. The handler is the request's
 * own (request() makes one per call), so the hook is extended on it in place. (An interceptor
 * added with compose() cannot: the handler wrappers it brings do not pass onRequestSent on.)
 */
class WrittenReportingAgent extends Agent {
  override dispatch(opts: Agent.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    const onWritten = (opts as { onWritten?: () => void }).onWritten;
    if (onWritten !== undefined) {
      const own = handler as Dispatcher.DispatchHandler & { onRequestSent?: () => void };
      const sent = own.onRequestSent?.bind(own);
      own.onRequestSent = () => {
        onWritten();
        sent?.();
      };
    }
    return super.dispatch(opts, handler);
  }
}

function headerValue(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

const NOT_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

function mapRequestError(endpoint: string, cause: unknown): TransportError {
  if (cause instanceof undiciErrors.ConnectTimeoutError) return new ConnectError(endpoint, cause);
  if (cause instanceof undiciErrors.HeadersTimeoutError) {
    return new RequestTimeoutError(endpoint, 'headers', cause);
  }
  const code = (cause as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && NOT_SENT_CODES.has(code))
    return new ConnectError(endpoint, cause);
  if (cause instanceof undiciErrors.RequestAbortedError || isAbort(cause)) {
    return new TransportError('TRANSPORT_ABORTED', 'request aborted by the caller', {
      endpoint,
      outcome: 'unknown',
      cause,
      retryable: false,
    });
  }
  return new ConnectionLostError(endpoint, cause);
}

function mapBodyError(
  endpoint: string,
  cause: unknown,
  traceId: string | undefined,
): TransportError {
  if (cause instanceof undiciErrors.BodyTimeoutError) {
    return new RequestTimeoutError(endpoint, 'body', cause, traceId);
  }
  return new TransportError('TRANSPORT_BODY', 'response body broken', {
    endpoint,
    traceId,
    outcome: 'unknown',
    cause,
  });
}

function isAbort(cause: unknown): boolean {
  return cause instanceof Error && cause.name === 'AbortError';
}
