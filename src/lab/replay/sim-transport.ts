import type { IncomingHttpHeaders } from 'node:http';
import type { Clock } from '../../core/index.js';
import {
  DEFAULT_USER_AGENT,
  RequestAbortedError,
  type HttpRequest,
  type HttpResponse,
  type Transport,
} from '../../exchange/index.js';
import { toJson } from '../../sim/http/json.js';
import type { SimAnswer, SimRequestInput } from '../../sim/http/server.js';

/**
 * Round trip per call when none is given: the executor's journal on loopback (bench/executor.ts,
 * "tick-to-wire ... to the order open at the engine") measures a few ms from the call handed to
 * the client to the order open; 5 ms is that figure rounded up.
 */
export const DEFAULT_LATENCY_MS = 5;

/** What the transport needs of the simulator: its server's socket-free entry. */
export interface SimHandler {
  handle(request: SimRequestInput): Promise<SimAnswer>;
}

/**
 * The client's transport in a backtest: each request goes to the simulator's server in-process
 * (the same door, limits and handlers the HTTP listener runs) once the whole round trip has passed
 * on the replay clock, and the answer comes back at once: the exchange sees the request as late as
 * the bot sees the answer (half a round trip later than on a real link, the cautious side), and
 * each call costs the replay one timer instead of two.
 */
export class SimTransport implements Transport {
  readonly #sim: SimHandler;
  readonly #clock: Clock;
  #latencyMs: number;
  #seq = 0;
  /** Requests sent, by endpoint (the summary's call counts). */
  readonly calls = new Map<string, number>();
  /**
   * Refusals of private calls naming a pair, by the pair as sent and the error string (a replay's
   * `EOrder:Rate limit exceeded` is a live one).
   */
  readonly refusals = new Map<string, Map<string, number>>();
  /** Told each request as sent (the report's order-entry counts). */
  onRequest: ((endpoint: string, body: string | undefined) => void) | undefined;

  constructor(sim: SimHandler, clock: Clock, latencyMs: number = DEFAULT_LATENCY_MS) {
    this.#sim = sim;
    this.#clock = clock;
    this.#latencyMs = latencyMs;
  }

  /**
   * The bot starts with no latency: its start awaits module loading (strategy plugins), which the
   * clock does not pace, so it runs before replay time moves at all.
   */
  set latencyMs(ms: number) {
    this.#latencyMs = ms;
  }

  async send(req: HttpRequest): Promise<HttpResponse> {
    if (req.signal?.aborted === true) {
      throw new RequestAbortedError(req.endpoint, req.signal.reason, 'not-sent');
    }
    this.calls.set(req.endpoint, (this.calls.get(req.endpoint) ?? 0) + 1);
    this.onRequest?.(req.endpoint, req.body);
    const url = new URL(req.url);
    const headers: IncomingHttpHeaders = { 'user-agent': DEFAULT_USER_AGENT };
    for (const [name, value] of Object.entries(req.headers)) headers[name.toLowerCase()] = value;
    if (this.#latencyMs > 0) await this.#clock.sleep(this.#latencyMs);
    const answer = await this.#sim.handle({
      method: req.method,
      target: `${url.pathname}${url.search}`,
      headers,
      rawBody: Buffer.from(req.body ?? '', 'utf8'),
      clientId: 'replay',
      traceId: `replay-${++this.#seq}`,
    });
    this.#noteRefusal(req, answer.body);
    const isRaw = typeof answer.body === 'string' || Buffer.isBuffer(answer.body);
    const text = isRaw ? String(answer.body) : toJson(answer.body);
    return {
      status: answer.status,
      body: req.binary === true ? '' : text,
      bytes: req.binary === true ? new Uint8Array(Buffer.from(text)) : undefined,
      traceId: answer.traceId,
      contentType: answer.contentType ?? (isRaw ? 'text/plain' : 'application/json'),
    };
  }

  #noteRefusal(req: HttpRequest, body: unknown): void {
    const errors = (body as { error?: unknown } | null)?.error;
    if (!Array.isArray(errors) || errors.length === 0 || req.body === undefined) return;
    if (!req.url.includes('/private/')) return;
    const pair = new URLSearchParams(req.body).get('pair');
    if (pair === null) return;
    let byError = this.refusals.get(pair);
    if (byError === undefined) this.refusals.set(pair, (byError = new Map<string, number>()));
    for (const e of errors) byError.set(String(e), (byError.get(String(e)) ?? 0) + 1);
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
