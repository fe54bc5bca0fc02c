import { InvalidInputError, systemClock, type Clock } from '../../core/index.js';
import { clockMillis, type NonceSource } from './nonce-source.js';
import type { RedisNonceSource } from './redis.js';

/** Nonces per block unless told otherwise. */
const DEFAULT_SIZE = 16;
/** The smallest window blocks of the default size are used with: four blocks. */
export const MIN_BLOCK_WINDOW = 4 * DEFAULT_SIZE;

export interface NonceBlockSourceOptions {
  /** The key's shared sequence in Redis; blocks are taken from it and it serves every fallback. */
  readonly shared: RedisNonceSource;
  /**
   * The key's nonce window as set at the exchange, in nonce units (our nonces count
   * milliseconds): how far below the highest nonce seen a nonce not seen before is still accepted.
   */
  readonly window: number;
  /** Nonces per block (default 16); the window must be at least 4 blocks. */
  readonly size?: number;
  readonly clock?: Clock;
  /** Told once when blocks are given up (a refused nonce): the reason, for the log. */
  readonly onGiveUp?: (reason: string) => void;
}

/**
 * Nonces without a round trip on the way to the wire, for a key whose exchange setting allows a
 * nonce window (spec, Authentication 3). Blocks of consecutive nonces are taken from the key's
 * shared Redis sequence ahead of need, so no other process ever gets one of ours; ours then reach
 * the exchange below nonces other processes took later, which the window accepts as long as ours
 * are not older than it. A nonce is handed out only while it is less than half a window below the
 * clock; the next block is fetched in the background once the current one is half used or a
 * quarter of a window old, so signing waits for Redis only after a long idle spell.
 *
 * DESIGN.md §3.3 takes the nonce at signing: that is what a key without a window needs, and what
 * this source falls back to (the shared sequence, one round trip per nonce) when no block is fresh
 * or once the exchange refused one of ours (the window is not what the configuration says).
 */
export class NonceBlockSource implements NonceSource {
  readonly #shared: RedisNonceSource;
  readonly #window: number;
  readonly #size: number;
  readonly #clock: Clock;
  readonly #onGiveUp: ((reason: string) => void) | undefined;
  #next = 0;
  /** One past the last nonce of the current block. */
  #end = 0;
  #spare: number | undefined;
  #fetching: Promise<void> | undefined;
  #gaveUp = false;

  constructor(options: NonceBlockSourceOptions) {
    const size = options.size ?? DEFAULT_SIZE;
    if (!Number.isSafeInteger(size) || size < 1) {
      throw new InvalidInputError('size', `must be a positive integer, got ${size}`);
    }
    if (!Number.isSafeInteger(options.window) || options.window < 4 * size) {
      throw new InvalidInputError(
        'window',
        `must be an integer of at least ${4 * size} (4 blocks of ${size}), got ${options.window}`,
      );
    }
    this.#shared = options.shared;
    this.#window = options.window;
    this.#size = size;
    this.#clock = options.clock ?? systemClock;
    this.#onGiveUp = options.onGiveUp;
  }

  /**
   * From the block in hand when it is fresh: computed synchronously, so concurrent callers get
   * increasing values in call order. Otherwise one round trip, queued behind any fetch in flight.
   */
  next(): Promise<number> {
    if (this.#gaveUp) return this.#shared.next();
    const now = clockMillis(this.#clock);
    const n = this.#take(now);
    if (n !== undefined) return Promise.resolve(n);
    return this.#fetch().then(() => {
      const again = this.#gaveUp ? undefined : this.#take(clockMillis(this.#clock));
      return again ?? this.#shared.next();
    });
  }

  /** The exchange refused a nonce of this key: from now on every nonce is taken at signing. */
  rejected(): void {
    if (this.#gaveUp) return;
    this.#gaveUp = true;
    this.#onGiveUp?.(
      `the exchange refused a nonce while nonce blocks were in use (window ${this.#window}); ` +
        'check the nonce window set for the key at the exchange against exchange.nonce_window',
    );
  }

  #take(now: number): number | undefined {
    if (!this.#fresh(this.#next, now) || this.#next >= this.#end) {
      const spare = this.#spare;
      this.#spare = undefined;
      if (spare === undefined || !this.#fresh(spare, now)) return undefined;
      this.#next = spare;
      this.#end = spare + this.#size;
    }
    const n = this.#next++;
    const left = this.#end - this.#next;
    if (this.#spare === undefined && (left <= this.#size / 2 || now - n > this.#window / 4)) {
      void this.#fetch().catch(() => undefined);
    }
    return n;
  }

  #fresh(n: number, now: number): boolean {
    return now - n < this.#window / 2;
  }

  #fetch(): Promise<void> {
    this.#fetching ??= this.#shared
      .block(this.#size)
      .then((start) => {
        this.#spare = start;
      })
      .finally(() => {
        this.#fetching = undefined;
      });
    return this.#fetching;
  }
}
