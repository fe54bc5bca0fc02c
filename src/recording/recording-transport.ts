import { errorMessage, type Clock } from '../core/index.js';
import type { HttpRequest, HttpResponse, Transport } from '../exchange/index.js';
import { RECORDED_ENDPOINTS, type RecordedEndpoint, type RecordedRow } from './format.js';

/** Where recorded answers go (a RecordingWriter's `write`). */
export type RowSink = (row: RecordedRow) => void;

/** Rows kept while no sink is attached (the pair rules asked for before the plan exists). */
const EARLY_ROWS_KEPT = 100;

const KEY_WIDE = new Set<RecordedEndpoint>(['SystemStatus', 'OpenOrders', 'AssetPairs']);

/**
 * Decorates a transport so the market-data answers it carries (RECORDED_ENDPOINTS) reach a sink
 * with their ask and receive times; every other call (order entry, balances) passes untouched.
 * Only the answer's body is kept: request headers, signatures and private bodies never leave here.
 * Pair names in requests are ids or altnames; rows carry the altname, learnt from the AssetPairs
 * answers that pass through (a name not seen there is kept as asked).
 */
export class RecordingTransport implements Transport {
  readonly #inner: Transport;
  readonly #clock: Clock;
  readonly #altnames = new Map<string, string>();
  #sink: RowSink | undefined;
  #early: RecordedRow[] | undefined = [];

  constructor(inner: Transport, clock: Clock, sink?: RowSink) {
    this.#inner = inner;
    this.#clock = clock;
    if (sink !== undefined) this.attach(sink);
  }

  /** Starts handing rows to `sink`, those answered before it first. */
  attach(sink: RowSink): void {
    this.#sink = sink;
    const early = this.#early ?? [];
    this.#early = undefined;
    for (const row of early) sink(row);
  }

  /** Records nothing more (a shutdown's aborted polls are not gaps of the market). */
  detach(): void {
    this.#sink = undefined;
    this.#early = undefined;
  }

  async send(req: HttpRequest): Promise<HttpResponse> {
    const endpoint = recordedEndpoint(req.endpoint);
    if (endpoint === undefined) return this.#inner.send(req);
    const askedMs = this.#clock.now();
    let res: HttpResponse;
    try {
      res = await this.#inner.send(req);
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      const why = typeof code === 'string' ? `${code}: ${errorMessage(err)}` : errorMessage(err);
      this.#hand({ askedMs, receivedMs: this.#clock.now(), endpoint, pair: undefined }, req, {
        error: why,
      });
      throw err;
    }
    const receivedMs = this.#clock.now();
    const answer = bodyOrError(res);
    if (endpoint === 'AssetPairs' && answer.body !== undefined) this.#learn(answer.body);
    this.#hand({ askedMs, receivedMs, endpoint, pair: undefined }, req, answer);
    return res;
  }

  close(): Promise<void> {
    return this.#inner.close();
  }

  #hand(
    row: RecordedRow,
    req: HttpRequest,
    answer: { readonly body?: string; readonly error?: string },
  ): void {
    if (this.#sink === undefined && this.#early === undefined) return;
    const asked = KEY_WIDE.has(row.endpoint) ? undefined : pairOf(req);
    const full: RecordedRow = {
      ...row,
      pair: asked === undefined ? undefined : (this.#altnames.get(asked.toUpperCase()) ?? asked),
      ...answer,
    };
    if (this.#sink !== undefined) this.#sink(full);
    else if (this.#early !== undefined && this.#early.length < EARLY_ROWS_KEPT) {
      this.#early.push(full);
    }
  }

  /** Every name of every pair in an AssetPairs answer, to its altname. */
  #learn(body: string): void {
    const result = (JSON.parse(body) as { result?: unknown }).result;
    if (typeof result !== 'object' || result === null) return;
    for (const [id, info] of Object.entries(result as Record<string, unknown>)) {
      const { altname, wsname } = (info ?? {}) as { altname?: unknown; wsname?: unknown };
      if (typeof altname !== 'string') continue;
      for (const name of [id, altname, wsname]) {
        if (typeof name === 'string') this.#altnames.set(name.toUpperCase(), altname);
      }
    }
  }
}

function recordedEndpoint(name: string): RecordedEndpoint | undefined {
  return RECORDED_ENDPOINTS.includes(name as RecordedEndpoint)
    ? (name as RecordedEndpoint)
    : undefined;
}

/**
 * The answer as a row holds it: a 200 whose body is JSON, else why not. The body is spliced into
 * the line as it is, so anything that is not JSON would break the file.
 */
function bodyOrError(res: HttpResponse): { readonly body?: string; readonly error?: string } {
  if (res.status !== 200) return { error: `HTTP ${res.status}` };
  try {
    JSON.parse(res.body);
  } catch {
    return { error: `HTTP 200 with a body that is not JSON (${res.body.length} chars)` };
  }
  return { body: res.body };
}

/** The `pair` a request names: query string for GET, form or JSON body for POST. */
export function pairOf(req: HttpRequest): string | undefined {
  let pair: unknown;
  if (req.method === 'GET' || req.body === undefined) {
    pair = new URL(req.url).searchParams.get('pair');
  } else if (req.headers['content-type']?.includes('json') === true) {
    try {
      pair = (JSON.parse(req.body) as { pair?: unknown }).pair;
    } catch {
      pair = undefined;
    }
  } else {
    pair = new URLSearchParams(req.body).get('pair');
  }
  return typeof pair === 'string' && pair !== '' && !pair.includes(',') ? pair : undefined;
}
