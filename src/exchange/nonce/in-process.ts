import { InvalidInputError, asError, systemClock, type Clock } from '../../core/index.js';
import { MAX_NONCE, NonceError, clockMillis, type NonceSource } from './nonce-source.js';

export interface InProcessNonceSourceOptions {
  readonly clock?: Clock;
  /**
   * A nonce already spent with this key (for example the last one a previous run logged); every
   * nonce handed out is above it. Defaults to 0.
   */
  readonly floor?: number;
}

/**
 * Nonces for a key used by this process alone (library use, tests, the simulator). Its state dies
 * with the process, so a restart relies on the clock having moved past the last nonce; when several
 * processes share a key, use RedisNonceSource.
 */
export class InProcessNonceSource implements NonceSource {
  readonly #clock: Clock;
  #last: number;

  constructor(options: InProcessNonceSourceOptions = {}) {
    const floor = options.floor ?? 0;
    if (!Number.isSafeInteger(floor) || floor < 0 || floor >= MAX_NONCE) {
      throw new InvalidInputError(
        'floor',
        `must be an integer from 0 to ${MAX_NONCE - 1}, got ${String(floor)}`,
      );
    }
    this.#clock = options.clock ?? systemClock;
    this.#last = floor;
  }

  /**
   * Computed synchronously, before the returned promise exists, so concurrent callers get
   * distinct, increasing values in the order they called, and their promises settle in that order.
   */
  next(): Promise<number> {
    try {
      return Promise.resolve(this.#take());
    } catch (err) {
      return Promise.reject(asError(err));
    }
  }

  #take(): number {
    if (this.#last >= MAX_NONCE) {
      throw new NonceError('NONCE_EXHAUSTED', `last nonce ${this.#last} has no safe successor`);
    }
    this.#last = Math.max(clockMillis(this.#clock), this.#last + 1);
    return this.#last;
  }
}
