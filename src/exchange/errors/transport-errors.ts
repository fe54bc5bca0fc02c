import { MakerdError } from '../../core/index.js';

/**
 * Failures below the envelope. `outcome` is what an order-entry caller must know: `not-sent`
 * means the exchange cannot have acted on the request; `unknown` means it may have (DESIGN.md
 * §3.6: resolve by query, never guess).
 */
export type RequestOutcome = 'not-sent' | 'unknown' | 'rejected';

export class TransportError extends MakerdError {
  readonly endpoint: string;
  readonly traceId: string | undefined;
  readonly outcome: RequestOutcome;

  constructor(
    code: string,
    message: string,
    context: {
      endpoint: string;
      traceId?: string | undefined;
      outcome: RequestOutcome;
      cause?: unknown;
      retryable?: boolean;
    },
  ) {
    super(code, `${message} (${context.endpoint}, trace ${context.traceId ?? 'none'})`, {
      cause: context.cause,
      retryable: context.retryable ?? true,
    });
    this.endpoint = context.endpoint;
    this.traceId = context.traceId;
    this.outcome = context.outcome;
  }
}

/** The connection could not be made: nothing reached the exchange. */
export class ConnectError extends TransportError {
  constructor(endpoint: string, cause: unknown) {
    super('TRANSPORT_CONNECT', `cannot connect: ${describe(cause)}`, {
      endpoint,
      outcome: 'not-sent',
      cause,
    });
  }
}

/** Sent, but no complete response in time: the exchange may or may not have acted. */
export class RequestTimeoutError extends TransportError {
  readonly phase: 'headers' | 'body';
  constructor(endpoint: string, phase: 'headers' | 'body', cause: unknown, traceId?: string) {
    super('TRANSPORT_TIMEOUT', `no ${phase} within the timeout`, {
      endpoint,
      traceId,
      outcome: 'unknown',
      cause,
    });
    this.phase = phase;
  }
}

/** The connection broke after the request may have been written. */
export class ConnectionLostError extends TransportError {
  constructor(endpoint: string, cause: unknown) {
    super('TRANSPORT_CONNECTION_LOST', `connection lost: ${describe(cause)}`, {
      endpoint,
      outcome: 'unknown',
      cause,
    });
  }
}

/** The answer's headers came, its body broke off: the exchange saw the request. */
export class BodyBrokenError extends TransportError {
  constructor(endpoint: string, cause: unknown, traceId: string | undefined) {
    super('TRANSPORT_BODY', 'response body broken', {
      endpoint,
      traceId,
      outcome: 'unknown',
      cause,
    });
  }
}

/**
 * The caller's signal ended the request: `not-sent` when it fired before the request was
 * written, `unknown` after.
 */
export class RequestAbortedError extends TransportError {
  constructor(endpoint: string, cause: unknown, outcome: 'not-sent' | 'unknown') {
    super(
      'TRANSPORT_ABORTED',
      outcome === 'unknown'
        ? 'request aborted by the caller'
        : 'request aborted before it was sent',
      { endpoint, outcome, cause, retryable: false },
    );
  }
}

/**
 * A status other than 200. The spec says such a status means the request had a problem reaching
 * the service; 5xx are retryable for idempotent calls. `body` is the start of what came back.
 */
export class HttpStatusError extends TransportError {
  readonly status: number;
  readonly body: string;
  constructor(endpoint: string, status: number, traceId: string | undefined, body: string) {
    super('TRANSPORT_HTTP_STATUS', `HTTP ${status}`, {
      endpoint,
      traceId,
      // A 5xx from a gateway says nothing about whether the engine saw the request.
      outcome: status >= 500 ? 'unknown' : 'rejected',
      retryable: status >= 500 || status === 429,
    });
    this.status = status;
    this.body = body.slice(0, 1024);
  }
}

/** A 200 whose body is not what the spec promises: never a crash or a silent `undefined`. */
export class ResponseParseError extends MakerdError {
  readonly endpoint: string;
  readonly traceId: string | undefined;
  readonly path: string;
  constructor(endpoint: string, traceId: string | undefined, path: string, reason: string) {
    super(
      'RESPONSE_MALFORMED',
      `malformed response at ${path}: ${reason} (${endpoint}, trace ${traceId ?? 'none'})`,
      {
        retryable: false,
      },
    );
    this.endpoint = endpoint;
    this.traceId = traceId;
    this.path = path;
  }
}

function describe(cause: unknown): string {
  if (cause instanceof Error) {
    const code = (cause as { code?: unknown }).code;
    return typeof code === 'string' ? `${code} ${cause.message}` : cause.message;
  }
  return String(cause);
}
