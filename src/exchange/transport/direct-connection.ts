import { channel } from 'node:diagnostics_channel';
import { connect as netConnect, isIP, type Socket } from 'node:net';
import { connect as tlsConnect, rootCertificates } from 'node:tls';
import { HTTPParser } from 'http-parser-js';
import {
  BodyBrokenError,
  ConnectError,
  ConnectionLostError,
  RequestAbortedError,
  RequestTimeoutError,
  TransportError,
} from '../errors/index.js';
import type { HttpRequest, HttpResponse } from './types.js';

/** Where a connection goes: parsed once per origin. */
export interface Origin {
  /** `http://host:port`, as the pool is keyed. */
  readonly key: string;
  readonly tls: boolean;
  readonly hostname: string;
  readonly port: number;
  /** The Host header's value. */
  readonly host: string;
}

export interface ConnectionSettings {
  readonly userAgent: string;
  /** Certificates trusted for https besides the system's (a private deployment, tests). */
  readonly ca?: string | undefined;
  readonly connectTimeoutMs: number;
  readonly headersTimeoutMs: number;
  readonly bodyTimeoutMs: number;
}

/** One request on a connection, from its write to its answer. */
export interface Exchange {
  readonly req: HttpRequest;
  /** The request line's target. */
  readonly path: string;
  /** What is written: request line, headers and body (requestText). */
  readonly text: string;
  readonly resolve: (res: HttpResponse) => void;
  readonly reject: (err: TransportError) => void;
}

/**
 * Told of each request as it is written (its endpoint name and request line's target; never a
 * header or the body): tests and diagnostics see when an order left, as undici's own channels
 * show it for the other calls.
 */
export const writtenChannel = channel('makerd:transport:written');

export interface WrittenMessage {
  readonly endpoint: string;
  readonly path: string;
}

/** What a request header may hold (RFC 9110 field names, visible ASCII values). */
const HEADER_VALUE_OK = /^[\t\x20-\x7e]*$/;
const HEADER_NAME_OK = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** A request target: visible ASCII, starting at the root. */
const PATH_OK = /^\/[\x21-\x7e]*$/;

/**
 * The request as written: request line, Host, User-Agent (unless the request has one), its
 * headers, Content-Length and the body. A header that is not valid HTTP (a CR or LF in a value
 * would let it write headers or a request of its own) refuses the request: nothing is sent.
 */
export function requestText(
  origin: Origin,
  path: string,
  req: HttpRequest,
  userAgent: string,
): string | TransportError {
  const refuse = (what: string): TransportError =>
    new TransportError('TRANSPORT_BAD_REQUEST', `${what} is not valid HTTP`, {
      endpoint: req.endpoint,
      outcome: 'not-sent',
      retryable: false,
    });
  if (!PATH_OK.test(path)) return refuse('the request target');
  let head = `${req.method} ${path} HTTP/1.1\r\nhost: ${origin.host}\r\n`;
  if (req.headers['user-agent'] === undefined) head += `user-agent: ${userAgent}\r\n`;
  for (const name in req.headers) {
    const value = req.headers[name] as string;
    if (!HEADER_NAME_OK.test(name) || !HEADER_VALUE_OK.test(value)) {
      return refuse(`header ${name}`);
    }
    head += `${name}: ${value}\r\n`;
  }
  if (req.body === undefined) return `${head}\r\n`;
  return `${head}content-length: ${Buffer.byteLength(req.body)}\r\n\r\n${req.body}`;
}

/**
 * One keep-alive HTTP/1.1 connection that writes a request on its socket at once, in the call
 * that sends it. undici defers every write on an idle keep-alive socket to the event loop's next
 * check phase (GHSA-35p6-xmwp-9g52, so that a close or stray bytes already received are seen
 * first): on the way to the wire that is ~0.15 ms, plus whatever the poll phase runs before it,
 * and every call of a drain then waits for the drain's last one to be signed. Here the bytes go
 * to the kernel in the send itself; the race undici guards against (the server closing the idle
 * socket as we write) is kept rare by closing sockets well inside the server's idle timeout
 * (direct-transport.ts), and when it happens the call fails as connection lost, outcome unknown,
 * and is resolved by query like any other (DESIGN.md §3.6). Responses are parsed by http-parser-js.
 */
export class DirectConnection {
  readonly origin: Origin;
  readonly #socket: Socket;
  readonly #settings: ConnectionSettings;
  readonly #parser = new HTTPParser(HTTPParser.RESPONSE);
  /** Resolves once connected (never rejects: a failed connect closes the connection). */
  readonly ready: Promise<boolean>;
  #connected = false;
  #closed = false;
  #current: Exchange | undefined;
  #timer: NodeJS.Timeout | undefined;
  #unlisten: (() => void) | undefined;
  // The answer being read.
  #status = 0;
  #headersSeen = false;
  #keepAlive = true;
  #traceId: string | undefined;
  #contentType: string | undefined;
  #chunks: Buffer[] = [];
  /** The server's own idle limit (Keep-Alive: timeout=N), ms; undefined until it says one. */
  serverIdleMs: number | undefined;
  /** When the connection last became idle (ms, performance clock). */
  idleSinceMs = 0;
  /** Why the connection closed (a failed connect's reason, for the requests that waited on it). */
  failure: Error | undefined;
  /** Told when the connection is closed for good, whatever the reason. */
  onClose: ((conn: DirectConnection) => void) | undefined;
  /** Told when an answer is complete and the connection can take another request. */
  onIdle: ((conn: DirectConnection) => void) | undefined;

  constructor(origin: Origin, settings: ConnectionSettings) {
    this.origin = origin;
    this.#settings = settings;
    const socket = origin.tls
      ? tlsConnect({
          host: origin.hostname,
          port: origin.port,
          servername: isIP(origin.hostname) === 0 ? origin.hostname : undefined,
          ALPNProtocols: ['http/1.1'],
          ...(settings.ca === undefined ? {} : { ca: [...rootCertificates, settings.ca] }),
        })
      : netConnect({ host: origin.hostname, port: origin.port });
    this.#socket = socket;
    socket.setNoDelay(true);
    this.#parser[HTTPParser.kOnHeadersComplete] = (info) => this.#onHeaders(info);
    this.#parser[HTTPParser.kOnBody] = (chunk, offset, length) => {
      this.#chunks.push(chunk.subarray(offset, offset + length));
    };
    this.#parser[HTTPParser.kOnMessageComplete] = () => this.#onComplete();
    this.ready = new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => {
        this.#fail(new Error(`no connection within ${settings.connectTimeoutMs} ms`));
      }, settings.connectTimeoutMs);
      socket.once(origin.tls ? 'secureConnect' : 'connect', () => {
        clearTimeout(timer);
        this.#connected = true;
        resolve(true);
      });
      socket.once('close', () => {
        clearTimeout(timer);
        resolve(false);
      });
    });
    socket.on('data', (chunk: Buffer) => this.#onData(chunk));
    socket.on('end', () => this.#onEnd());
    socket.on('error', (err: Error) => this.#fail(err));
    socket.on('close', () => this.#fail(new Error('socket closed')));
  }

  get closed(): boolean {
    return this.#closed;
  }

  get busy(): boolean {
    return this.#current !== undefined;
  }

  /**
   * Writes the request now (the connection must be connected and idle): it is written when this
   * returns. Its answer, or the error, settles the exchange.
   */
  write(ex: Exchange): void {
    const { req } = ex;
    this.#current = ex;
    this.#resetAnswer();
    this.#socket.ref();
    const signal = req.signal;
    if (signal !== undefined) {
      const onAbort = (): void => this.#abort(signal);
      signal.addEventListener('abort', onAbort, { once: true });
      this.#unlisten = () => signal.removeEventListener('abort', onAbort);
    }
    this.#socket.write(ex.text);
    this.#arm('headers');
    if (writtenChannel.hasSubscribers) {
      writtenChannel.publish({ endpoint: req.endpoint, path: ex.path } satisfies WrittenMessage);
    }
    req.onWritten?.();
  }

  /** Marks the connection idle from now, and lets the process exit while it waits. */
  park(): void {
    this.idleSinceMs = performance.now();
    this.#socket.unref();
  }

  /** Closes the connection; an exchange in progress fails as connection lost. */
  close(): void {
    this.#fail(new Error('connection closed by the client'));
  }

  #resetAnswer(): void {
    this.#status = 0;
    this.#headersSeen = false;
    this.#keepAlive = true;
    this.#traceId = undefined;
    this.#contentType = undefined;
    this.#chunks = [];
  }

  #arm(phase: 'headers' | 'body'): void {
    clearTimeout(this.#timer);
    const ms = phase === 'headers' ? this.#settings.headersTimeoutMs : this.#settings.bodyTimeoutMs;
    this.#timer = setTimeout(() => {
      const ex = this.#current;
      if (ex === undefined) return;
      this.#settle(new RequestTimeoutError(ex.req.endpoint, phase, undefined, this.#traceId));
      this.#destroy();
    }, ms);
  }

  #onData(chunk: Buffer): void {
    if (this.#current === undefined) {
      // Bytes nobody asked for: this socket can no longer be trusted to frame an answer.
      this.#destroy();
      return;
    }
    const parsed = this.#parser.execute(chunk);
    if (parsed instanceof Error) this.#fail(parsed);
  }

  #onHeaders(info: { statusCode: number; headers: string[]; shouldKeepAlive: boolean }): number {
    if (this.#current === undefined) {
      // An answer after the one asked for: the stream no longer frames answers to our requests.
      this.#destroy();
      return 1;
    }
    const status = info.statusCode;
    // 1xx answers come before the real one; 204 and 304 have no body to wait for.
    if (status < 200) return 1;
    this.#status = status;
    this.#headersSeen = true;
    this.#keepAlive = info.shouldKeepAlive;
    const h = info.headers;
    for (let i = 0; i + 1 < h.length; i += 2) {
      const name = (h[i] as string).toLowerCase();
      const value = h[i + 1] as string;
      if (name === 'x-trace-id') this.#traceId ??= value;
      else if (name === 'content-type') this.#contentType ??= value;
      else if (name === 'keep-alive') {
        const m = /timeout=(\d+)/i.exec(value);
        if (m !== null) this.serverIdleMs = Number(m[1]) * 1000;
      }
    }
    this.#arm('body');
    return status === 204 || status === 304 ? 1 : 0;
  }

  #onComplete(): void {
    const ex = this.#current;
    if (ex === undefined || !this.#headersSeen) return;
    clearTimeout(this.#timer);
    this.#current = undefined;
    this.#unlisten?.();
    this.#unlisten = undefined;
    const all =
      this.#chunks.length === 1 ? (this.#chunks[0] as Buffer) : Buffer.concat(this.#chunks);
    this.#chunks = [];
    const binary = ex.req.binary === true;
    if (this.#keepAlive) {
      // The parser makes itself ready for the next answer once this returns; the connection is
      // back in its pool before the caller hears the answer (and, out of the parser's call, the
      // next request may be written from there).
      queueMicrotask(() => {
        if (!this.#closed && this.#current === undefined) this.onIdle?.(this);
      });
    }
    ex.resolve({
      status: this.#status,
      body: binary ? '' : all.toString('utf8'),
      bytes: binary ? new Uint8Array(all.buffer, all.byteOffset, all.byteLength) : undefined,
      traceId: this.#traceId,
      contentType: this.#contentType,
    });
    if (!this.#keepAlive) this.#destroy();
  }

  /** The server closed its side: an answer read to the end of the stream is complete. */
  #onEnd(): void {
    if (this.#current !== undefined && this.#headersSeen) {
      const err = this.#parser.finish();
      if (err instanceof Error) this.#fail(err);
    }
    this.#fail(new Error('server closed the connection'));
  }

  #abort(signal: AbortSignal): void {
    const ex = this.#current;
    if (ex === undefined) return;
    const reason: unknown = signal.reason;
    this.#settle(new RequestAbortedError(ex.req.endpoint, reason, 'unknown'));
    this.#destroy();
  }

  /** Ends the connection with `cause`, failing the exchange in progress by its phase. */
  #fail(cause: Error): void {
    if (!this.#closed) this.failure ??= cause;
    const ex = this.#current;
    if (ex !== undefined) {
      const endpoint = ex.req.endpoint;
      this.#settle(
        !this.#connected
          ? new ConnectError(endpoint, cause)
          : this.#headersSeen
            ? new BodyBrokenError(endpoint, cause, this.#traceId)
            : new ConnectionLostError(endpoint, cause),
      );
    }
    this.#destroy();
  }

  #settle(err: TransportError): void {
    const ex = this.#current;
    if (ex === undefined) return;
    this.#current = undefined;
    clearTimeout(this.#timer);
    this.#unlisten?.();
    this.#unlisten = undefined;
    ex.reject(err);
  }

  #destroy(): void {
    clearTimeout(this.#timer);
    if (!this.#socket.destroyed) this.#socket.destroy();
    if (this.#closed) return;
    this.#closed = true;
    this.onClose?.(this);
  }
}
