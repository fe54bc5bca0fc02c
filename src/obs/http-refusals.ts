import { Counter, type Registry } from 'prom-client';
import { systemClock, silentLog, type Clock, type Log } from '../core/index.js';

/**
 * Why a request was refused: no or a wrong token; the read token used to act; an address locked
 * out after wrong tokens; a Host that is not this machine's (DNS rebinding); a browser's request
 * from another site; a console action without the session's CSRF value or a JSON body.
 */
export type RefusalReason = 'token' | 'read_token' | 'throttled' | 'host' | 'cross_site' | 'csrf';

/**
 * Wrong tokens an address may send within WINDOW_MS before it is locked out for LOCK_MS: every
 * request of it that needs a token then gets 429 with Retry-After, the right token included (a
 * lock that let the right token through would still answer a guesser). A scraper or a page with a
 * stale token is refused within seconds anyway; the lock only keeps a guesser or a broken client
 * from costing a log line and a comparison per request.
 */
export const WRONG_TOKENS_ALLOWED = 10;
const WRONG_TOKEN_WINDOW_MS = 60_000;
export const LOCK_MS = 60_000;
/** At most one log line per address this often; the next one counts what was not logged. */
const LOG_EVERY_MS = 60_000;
/** Addresses remembered; past it the oldest is forgotten, so a flood of them cannot grow memory. */
const MAX_ADDRESSES = 10_000;

interface AddressRecord {
  wrong: number;
  windowStartMs: number;
  lockedUntilMs: number;
  loggedAtMs: number;
  unlogged: number;
}

/**
 * The HTTP endpoint's refused requests: counted (makerd_http_refused_total by reason), logged at a
 * bounded rate per address, and wrong tokens throttled per address.
 */
export class HttpRefusals {
  readonly #clock: Clock;
  readonly #log: Log;
  readonly #counter: Counter<'reason'>;
  readonly #addresses = new Map<string, AddressRecord>();

  constructor(options: { registry?: Registry; clock?: Clock; log?: Log } = {}) {
    this.#clock = options.clock ?? systemClock;
    this.#log = options.log ?? silentLog;
    this.#counter = new Counter({
      name: 'makerd_http_refused_total',
      help: 'HTTP requests refused, by reason (token, read_token, throttled, host, cross_site, csrf)',
      labelNames: ['reason'],
      registers: options.registry === undefined ? [] : [options.registry],
    });
  }

  /** Seconds until `remote` may try a token again; undefined when it is not locked out. */
  lockedFor(remote: string): number | undefined {
    const until = this.#addresses.get(remote)?.lockedUntilMs ?? 0;
    const left = until - this.#clock.now();
    return left > 0 ? Math.ceil(left / 1000) : undefined;
  }

  /** Counts and (at a bounded rate) logs a refusal; a wrong token also counts towards the lock. */
  refused(remote: string, reason: RefusalReason, status: number): void {
    this.#counter.inc({ reason });
    const now = this.#clock.now();
    const record = this.#record(remote, now);
    if (reason === 'token') {
      if (now - record.windowStartMs >= WRONG_TOKEN_WINDOW_MS) {
        record.windowStartMs = now;
        record.wrong = 0;
      }
      record.wrong += 1;
      if (record.wrong >= WRONG_TOKENS_ALLOWED) {
        record.lockedUntilMs = now + LOCK_MS;
        record.wrong = 0;
      }
    }
    if (now - record.loggedAtMs < LOG_EVERY_MS) {
      record.unlogged += 1;
      return;
    }
    this.#log.warn(
      {
        remote,
        reason,
        status,
        ...(record.unlogged > 0 ? { notLogged: record.unlogged } : {}),
        ...(record.lockedUntilMs > now
          ? { lockedForS: Math.ceil((record.lockedUntilMs - now) / 1000) }
          : {}),
      },
      'request refused',
    );
    record.loggedAtMs = now;
    record.unlogged = 0;
  }

  #record(remote: string, now: number): AddressRecord {
    let record = this.#addresses.get(remote);
    if (record === undefined) {
      if (this.#addresses.size >= MAX_ADDRESSES) {
        const oldest = this.#addresses.keys().next().value;
        if (oldest !== undefined) this.#addresses.delete(oldest);
      }
      record = {
        wrong: 0,
        windowStartMs: now,
        lockedUntilMs: 0,
        loggedAtMs: -Infinity,
        unlogged: 0,
      };
      this.#addresses.set(remote, record);
    }
    return record;
  }
}
