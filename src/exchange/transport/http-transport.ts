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
 * Every call but order entry (which has DirectTransport): undici's keep-alive pool per origin with
 * explicit timeouts, mapping every failure to a TransportError that says whether the exchange may
 * have seen the request. Statuses are returned, not judged: each exchange family has its own
 * error bodies.
 *
 * Requests are dispatched with a handler of our own that gathers the body as it comes, rather
 * than through Agent.request(): that path adds a request handler, a body stream and a promise
 * wrapper per call (docs/executor.md, "The transport").
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
      keepAliveMaxTimeout: 60_000,
      connections: o.connectionsPerOrigin,
      pipelining: 1,
    });
  }

  send(req: HttpRequest): Promise<HttpResponse> {
    return new Promise<HttpResponse>((resolve, reject) => {
      let url: URL;
      try {
        url = new URL(req.url);
      } catch (cause) {
        reject(mapRequestError(req.endpoint, cause));
        return;
      }
      const signal = req.signal;
      if (signal?.aborted === true) {
        reject(mapRequestError(req.endpoint, abortReason(signal)));
        return;
      }
      const handler = new ResponseGatherer(req, resolve, reject);
      this.#agent.dispatch(
        {
          origin: url.origin,
          path: `${url.pathname}${url.search}`,
          method: req.method,
          headers: { 'user-agent': this.#userAgent, ...req.headers },
          body: req.body,
        },
        handler,
      );
    });
  }

  async close(): Promise<void> {
    await this.#agent.close();
  }
}

/**
 * One request's handler, in undici's dispatch protocol (the form that is told onRequestSent,
 * right after the body's write): it keeps the status and the two headers we read, gathers the
 * body, and settles the send's promise once, with errors mapped by the phase they came in.
 */
class ResponseGatherer implements Dispatcher.DispatchHandler {
  readonly #req: HttpRequest;
  readonly #resolve: (res: HttpResponse) => void;
  readonly #reject: (err: TransportError) => void;
  readonly #chunks: Buffer[] = [];
  #status = 0;
  #traceId: string | undefined;
  #contentType: string | undefined;
  #headersSeen = false;
  #settled = false;
  #unlisten: (() => void) | undefined;

  constructor(
    req: HttpRequest,
    resolve: (res: HttpResponse) => void,
    reject: (err: TransportError) => void,
  ) {
    this.#req = req;
    this.#resolve = resolve;
    this.#reject = reject;
  }

  onConnect(abort: (err?: Error) => void): void {
    const signal = this.#req.signal;
    if (signal === undefined) return;
    if (signal.aborted) {
      abort(abortReason(signal));
      return;
    }
    const onAbort = (): void => abort(abortReason(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    this.#unlisten = () => signal.removeEventListener('abort', onAbort);
  }

  onRequestSent(): void {
    this.#req.onWritten?.();
  }

  onHeaders(status: number, rawHeaders: Buffer[]): boolean {
    // 1xx answers come before the real one and carry nothing we read.
    if (status < 200) return true;
    this.#status = status;
    this.#headersSeen = true;
    for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
      const name = (rawHeaders[i] as Buffer).toString('latin1').toLowerCase();
      if (name === 'x-trace-id') this.#traceId ??= (rawHeaders[i + 1] as Buffer).toString('latin1');
      else if (name === 'content-type')
        this.#contentType ??= (rawHeaders[i + 1] as Buffer).toString('latin1');
    }
    return true;
  }

  onData(chunk: Buffer): boolean {
    this.#chunks.push(chunk);
    return true;
  }

  onComplete(): void {
    if (this.#settle()) return;
    const all =
      this.#chunks.length === 1 ? (this.#chunks[0] as Buffer) : Buffer.concat(this.#chunks);
    const binary = this.#req.binary === true;
    this.#resolve({
      status: this.#status,
      body: binary ? '' : all.toString('utf8'),
      bytes: binary ? new Uint8Array(all.buffer, all.byteOffset, all.byteLength) : undefined,
      traceId: this.#traceId,
      contentType: this.#contentType,
    });
  }

  onError(err: Error): void {
    if (this.#settle()) return;
    const endpoint = this.#req.endpoint;
    this.#reject(
      this.#headersSeen
        ? mapBodyError(endpoint, err, this.#traceId)
        : mapRequestError(endpoint, err),
    );
  }

  /** Marks the request settled; true when it already was. */
  #settle(): boolean {
    if (this.#settled) return true;
    this.#settled = true;
    this.#unlisten?.();
    return false;
  }
}

/** What an aborted request fails with: the signal's reason when it is an error, as in request(). */
function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new undiciErrors.RequestAbortedError();
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
    return new RequestAbortedError(endpoint, cause, 'unknown');
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
  return new BodyBrokenError(endpoint, cause, traceId);
}

function isAbort(cause: unknown): boolean {
  return cause instanceof Error && cause.name === 'AbortError';
}
