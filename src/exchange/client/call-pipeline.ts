import { performance } from 'node:perf_hooks';
import { MakerdError, type Clock } from '../../core/index.js';
import type { Endpoint, Family } from '../endpoints/define.js';
import {
  InvalidNonceError,
  MissingCredentialsError,
  RateLimitExceededError,
  ThrottledError,
  TransportError,
  HttpStatusError,
  type ExchangeWarning,
} from '../errors/index.js';
import type { RestLimiter, Priority } from '../limits/rest-limiter.js';
import type { NonceSource } from '../nonce/nonce-source.js';
import type { PairRulesBook } from '../pair-rules.js';
import { parseJsonBigInts } from '../parse/json.js';
import { parseJsonBody, unwrapEnvelope, type Unwrapped } from '../parse/envelope.js';
import { unwrapCustody, unwrapFutures, unwrapOtc, unwrapPay } from '../parse/family-bodies.js';
import type { Credentials } from '../signing/credentials.js';
import type { RequestSigner } from '../signing/signers.js';
import { encodeForm, encodeJson } from '../transport/encode.js';
import type { HttpResponse, Transport } from '../transport/types.js';
import type { KeyGuard } from './key-guard.js';
import type { KeyTurns, TurnClass } from './key-turns.js';
import {
  responseChannel,
  signedChannel,
  type ResponseMessage,
  type SignedMessage,
} from './diagnostics.js';

/** What every call returns: the result, the exchange's warnings, and the trace id to quote. */
export interface ApiResponse<T> {
  readonly result: T;
  readonly warnings: readonly ExchangeWarning[];
  readonly traceId: string | undefined;
}

export interface CallOptions {
  readonly signal?: AbortSignal;
  /** 'high' is for dead-man heartbeats: they go before every other private call. */
  readonly priority?: Priority;
  /** Parameters the spec names without a name or shape (the version parameter, say). */
  readonly extraParams?: Readonly<Record<string, string | number | boolean>>;
  /** Fail with BudgetWaitTooLongError rather than wait longer for REST budget. */
  readonly maxBudgetWaitMs?: number;
}

export interface RetryPolicy {
  /** Extra attempts for reads after the first; order entry and other writes get none. */
  readonly retries: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
}

export interface FamilyAuth {
  readonly credentials: Credentials | undefined;
  readonly signer: RequestSigner;
  readonly nonces: NonceSource;
  /**
   * The key's turns when it has no nonce window (one signed call on the wire at a time, so its
   * nonces arrive in order); undefined when a window lets calls overlap.
   */
  readonly turns: KeyTurns | undefined;
}

export interface PipelineParts {
  readonly urls: Readonly<Record<Family, string>>;
  readonly auth: Readonly<Record<Exclude<Family, 'public'>, FamilyAuth>>;
  readonly transport: Transport;
  readonly limiter: RestLimiter | undefined;
  /** The pairs' order rules that order entry's checks hold orders to (none: left to the exchange). */
  readonly pairRules: PairRulesBook | undefined;
  readonly keyGuard: KeyGuard;
  readonly retry: RetryPolicy;
  readonly clock: Clock;
  readonly pathOverrides: Readonly<Record<string, string>>;
  readonly random: () => number;
}

interface Prepared {
  readonly url: string;
  readonly method: 'GET' | 'POST';
  readonly headers: Record<string, string>;
  readonly body: string | undefined;
}

/**
 * One call from request object to typed result. Order of work matters: budget first, then the
 * key's turn, then the nonce, then signing and sending at once (DESIGN.md §3.3: a nonce drawn
 * early is overtaken).
 */
export class CallPipeline {
  readonly #p: PipelineParts;

  constructor(parts: PipelineParts) {
    this.#p = parts;
  }

  async call<Req, Res>(
    ep: Endpoint<Req, Res>,
    req: Req,
    opts: CallOptions = {},
  ): Promise<ApiResponse<Res>> {
    // Thrown inside this async function, a failed check rejects the returned promise like any
    // other failure: `Promise.allSettled` over several orders sees each outcome.
    ep.check?.(req, this.#p.pairRules);
    const attempts = ep.kind === 'read' ? 1 + this.#p.retry.retries : 1;
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.#once(ep, req, opts);
      } catch (err) {
        if (attempt >= attempts || !retryableRead(ep.family, err) || opts.signal?.aborted === true)
          throw err;
        await this.#p.clock.sleep(this.#backoff(attempt), opts.signal);
      }
    }
  }

  async #once<Req, Res>(
    ep: Endpoint<Req, Res>,
    req: Req,
    opts: CallOptions,
  ): Promise<ApiResponse<Res>> {
    const started = performance.now();
    let traceId: string | undefined;
    try {
      if (ep.family === 'private') {
        this.#p.keyGuard.check();
        // Cost-0 order entry still waits out a throttle the exchange announced.
        if (this.#p.limiter !== undefined) {
          await this.#p.limiter.acquire(ep.restCost, {
            priority: opts.priority ?? 'normal',
            label: ep.name,
            ...(opts.signal === undefined ? {} : { signal: opts.signal }),
            ...(opts.maxBudgetWaitMs === undefined ? {} : { maxWaitMs: opts.maxBudgetWaitMs }),
          });
        }
      }
      const res = await this.#exchange(ep, req, opts);
      traceId = res.traceId;
      const unwrapped = this.#unwrap(ep, res);
      const result = ep.decode(unwrapped.result, res.traceId);
      if (ep.family === 'private') {
        this.#p.keyGuard.accepted();
        this.#p.limiter?.onAccepted();
      }
      publishResponse(ep, started, traceId, undefined);
      return { result, warnings: unwrapped.warnings, traceId: res.traceId };
    } catch (err) {
      if (ep.family === 'private') this.#observeFailure(err);
      publishResponse(ep, started, traceId ?? (err as { traceId?: string }).traceId, codeOf(err));
      throw err;
    }
  }

  /**
   * The request signed and sent, its answer read. A signed call of a key without a nonce window
   * waits for the key's turn before it draws its nonce and keeps it until the exchange is over,
   * answered or failed, so its nonce cannot be overtaken on the way.
   */
  async #exchange<Req, Res>(
    ep: Endpoint<Req, Res>,
    req: Req,
    opts: CallOptions,
  ): Promise<HttpResponse> {
    const turns = ep.family === 'public' ? undefined : this.#p.auth[ep.family].turns;
    const release = await turns?.take(turnClass(ep, opts), opts.signal);
    try {
      const prepared = await this.#prepare(ep, req, opts);
      return await this.#p.transport.send({
        ...prepared,
        endpoint: ep.name,
        signal: opts.signal,
        binary: ep.binary,
      });
    } finally {
      release?.();
    }
  }

  async #prepare<Req, Res>(ep: Endpoint<Req, Res>, req: Req, opts: CallOptions): Promise<Prepared> {
    if (ep.family === 'public') {
      const path = this.#p.pathOverrides[ep.name] ?? ep.path(req);
      const query = encodeForm(paramsOf(req as Params, ep.pathParams, opts.extraParams));
      return {
        url: `${this.#p.urls.public}${path}${query === '' ? '' : `?${query}`}`,
        method: 'GET',
        headers: {},
        body: undefined,
      };
    }
    const auth = this.#p.auth[ep.family];
    const credentials = auth.credentials;
    if (credentials === undefined) throw new MissingCredentialsError(ep.family, ep.name);
    const nonceNumber = await auth.nonces.next();
    const nonce = String(nonceNumber);
    const prepared = this.#signed(ep, req, opts.extraParams, auth, credentials, nonceNumber, nonce);
    signedChannel.publish({ endpoint: ep.name, family: ep.family, nonce } satisfies SignedMessage);
    return prepared;
  }

  /** A signed call's request, for the nonce given. */
  #signed<Req, Res>(
    ep: Endpoint<Req, Res>,
    req: Req,
    extraParams: CallOptions['extraParams'],
    auth: FamilyAuth,
    credentials: Credentials,
    nonceNumber: number,
    nonce: string,
  ): Prepared {
    const path = this.#p.pathOverrides[ep.name] ?? ep.path(req);
    const params = paramsOf(req as Params, ep.pathParams, extraParams);
    let query = '';
    let body = '';
    const headers: Record<string, string> = {};
    if (ep.family === 'private') {
      const otp = credentials.otp();
      const withAuth: Record<string, unknown> = {
        nonce: ep.nonceAs === 'string' ? nonce : nonceNumber,
        ...params,
      };
      if (otp !== undefined) withAuth.otp = otp;
      if (ep.encoding === 'json') {
        body = encodeJson(withAuth);
        headers['content-type'] = 'application/json';
      } else {
        body = encodeForm(withAuth);
        headers['content-type'] = 'application/x-www-form-urlencoded';
      }
    } else {
      query = encodeForm(params);
    }
    Object.assign(
      headers,
      auth.signer.sign({ method: ep.method, path, query, body, nonce }, credentials),
    );
    return {
      url: `${this.#p.urls[ep.family]}${path}${query === '' ? '' : `?${query}`}`,
      method: ep.method,
      headers,
      body: ep.method === 'POST' && body !== '' ? body : undefined,
    };
  }

  #unwrap<Req, Res>(ep: Endpoint<Req, Res>, res: HttpResponse): Unwrapped {
    if (ep.envelope === 'futures') return unwrapFutures(res.status, res.body, ep.name, res.traceId);
    if (ep.envelope === 'custody') return unwrapCustody(res.status, res.body, ep.name, res.traceId);
    if (res.status !== 200) {
      const text = res.bytes === undefined ? res.body : Buffer.from(res.bytes).toString('utf8');
      throw new HttpStatusError(ep.name, res.status, res.traceId, text);
    }
    if (ep.binary && res.bytes !== undefined) {
      // A binary endpoint answers errors with the JSON envelope instead of the archive.
      if (res.contentType?.includes('json') === true) {
        unwrapEnvelope(
          parseJsonBody(Buffer.from(res.bytes).toString('utf8'), ep.name, res.traceId),
          ep.name,
          res.traceId,
        );
      }
      return { result: res.bytes, warnings: [] };
    }
    const body = parseJsonBody(
      res.body,
      ep.name,
      res.traceId,
      ep.bigInts ? parseJsonBigInts : JSON.parse,
    );
    if (ep.envelope === 'pay') return unwrapPay(body, ep.name, res.traceId);
    if (ep.envelope === 'otc') return unwrapOtc(body, ep.name, res.traceId);
    return unwrapEnvelope(body, ep.name, res.traceId);
  }

  #observeFailure(err: unknown): void {
    this.#p.keyGuard.observe(err);
    const limiter = this.#p.limiter;
    if (limiter === undefined) return;
    if (err instanceof ThrottledError) {
      limiter.blockUntil(err.retryAtMs ?? this.#p.clock.now() + 5_000);
    } else if (err instanceof RateLimitExceededError) {
      limiter.onRateLimited();
    }
  }

  /** Full jitter: spreads retries of many clients instead of synchronising them. */
  #backoff(attempt: number): number {
    const cap = Math.min(this.#p.retry.maxDelayMs, this.#p.retry.baseDelayMs * 2 ** (attempt - 1));
    return Math.floor(this.#p.random() * cap);
  }
}

/** Where a signed call waits in its key's line: heartbeats and CancelAll, order entry, the rest. */
function turnClass(
  ep: { readonly kind: Endpoint<unknown, unknown>['kind'] },
  opts: CallOptions,
): TurnClass {
  if (opts.priority === 'high') return 'high';
  return ep.kind === 'order-entry' ? 'order-entry' : 'other';
}

/**
 * Which read failures are worth another attempt. Public reads: transport failures and 5xx.
 * Private reads also: throttling and rate limits (the limiter then waits) and a nonce that
 * arrived out of order (the retry draws a fresh one).
 */
function retryableRead(family: Family, err: unknown): boolean {
  if (err instanceof TransportError) return err.retryable;
  if (family === 'public') return false;
  return (
    err instanceof ThrottledError ||
    err instanceof RateLimitExceededError ||
    err instanceof InvalidNonceError
  );
}

type Params = Readonly<Record<string, unknown>> | undefined;

function paramsOf(
  req: Params,
  pathParams: readonly string[],
  extra: Readonly<Record<string, unknown>> | undefined,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (req !== undefined) {
    for (const key of Object.keys(req)) if (!pathParams.includes(key)) out[key] = req[key];
  }
  if (extra !== undefined) Object.assign(out, extra);
  return out;
}

function codeOf(err: unknown): string {
  return err instanceof MakerdError ? err.code : 'UNEXPECTED';
}

function publishResponse(
  ep: { name: string; family: Family },
  started: number,
  traceId: string | undefined,
  errorCode: string | undefined,
): void {
  if (!responseChannel.hasSubscribers) return;
  responseChannel.publish({
    endpoint: ep.name,
    family: ep.family,
    durationMs: performance.now() - started,
    traceId,
    errorCode,
  } satisfies ResponseMessage);
}
