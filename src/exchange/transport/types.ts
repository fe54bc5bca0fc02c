/** What the client asks of its transport (http-transport), and the transport's settings. */

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

/**
 * Sends one request and returns the answer's status and body; every failure is a TransportError
 * that says whether the exchange may have seen the request.
 */
export interface Transport {
  send(req: HttpRequest): Promise<HttpResponse>;
  close(): Promise<void>;
}

export const DEFAULT_USER_AGENT = 'makerd/0.1.0';

/** The options with their defaults filled in: the one place the defaults are written. */
export function transportSettings(options: TransportOptions): Required<TransportOptions> {
  return {
    userAgent: options.userAgent ?? DEFAULT_USER_AGENT,
    connectTimeoutMs: options.connectTimeoutMs ?? 5_000,
    headersTimeoutMs: options.headersTimeoutMs ?? 10_000,
    bodyTimeoutMs: options.bodyTimeoutMs ?? 10_000,
    keepAliveTimeoutMs: options.keepAliveTimeoutMs ?? 4_000,
    connectionsPerOrigin: options.connectionsPerOrigin ?? 8,
  };
}
