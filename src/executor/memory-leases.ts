import { randomUUID } from 'node:crypto';
import { NO_ROUND_TRIP, type Clock, type RoundTrip } from '../core/index.js';
import { PairLease, type Lease, type Leases } from './lease.js';

/**
 * The leases of one process (the replay): PairLease's contract (test/stores) over a map with
 * expiry times on the injected clock. A process that ended is never seen here, so there is no
 * beacon. `holder(key)` is the fence check of MemoryOrderTracker.
 */
export class MemoryLeases implements Leases {
  readonly #prefix: string;
  readonly #clock: Clock;
  readonly #held = new Map<string, { token: string; untilMs: number }>();
  /** Each lease call answers after one round trip, as its Redis command or script does. */
  readonly trip: RoundTrip;

  constructor(prefix: string, clock: Clock, roundTrip: RoundTrip = NO_ROUND_TRIP) {
    this.#prefix = prefix;
    this.#clock = clock;
    this.trip = roundTrip;
  }

  lease(pair: string, owner: string, ttlMs: number): Lease {
    return new MemoryLease(this, PairLease.keyFor(this.#prefix, pair), owner, ttlMs, this.#clock);
  }

  async taken(pair: string): Promise<boolean> {
    await this.trip(1);
    return this.holder(PairLease.keyFor(this.#prefix, pair)) !== undefined;
  }

  /** The token under `key` while it has not expired. */
  holder(key: string): string | undefined {
    const entry = this.#held.get(key);
    if (entry === undefined) return undefined;
    if (this.#clock.now() < entry.untilMs) return entry.token;
    this.#held.delete(key);
    return undefined;
  }

  /** SET NX PX: true when the key was free. */
  setIfFree(key: string, token: string, ttlMs: number): boolean {
    if (this.holder(key) !== undefined) return false;
    this.#held.set(key, { token, untilMs: this.#clock.now() + ttlMs });
    return true;
  }

  /** The RENEW script: extends only the holder's own key. */
  extend(key: string, token: string, ttlMs: number): boolean {
    if (this.holder(key) !== token) return false;
    this.#held.set(key, { token, untilMs: this.#clock.now() + ttlMs });
    return true;
  }

  /** The RELEASE script: deletes only the holder's own key. */
  drop(key: string, token: string): void {
    if (this.holder(key) === token) this.#held.delete(key);
  }
}

class MemoryLease implements Lease {
  readonly key: string;
  readonly token: string;
  readonly tookOverFrom = undefined;
  readonly #leases: MemoryLeases;
  readonly #ttlMs: number;
  readonly #clock: Clock;
  #validUntilMs = 0;

  constructor(leases: MemoryLeases, key: string, owner: string, ttlMs: number, clock: Clock) {
    this.#leases = leases;
    this.key = key;
    this.token = `${owner}#${randomUUID()}`;
    this.#ttlMs = ttlMs;
    this.#clock = clock;
  }

  get fence(): { key: string; token: string } {
    return { key: this.key, token: this.token };
  }

  held(): boolean {
    return this.#clock.now() < this.#validUntilMs;
  }

  async tryAcquire(): Promise<boolean> {
    await this.#leases.trip(1);
    const ok = this.#leases.setIfFree(this.key, this.token, this.#ttlMs);
    if (ok) this.#validUntilMs = this.#clock.now() + (this.#ttlMs * 2) / 3;
    return ok;
  }

  async renew(): Promise<boolean> {
    await this.#leases.trip(1);
    const ok = this.#leases.extend(this.key, this.token, this.#ttlMs);
    this.#validUntilMs = ok ? this.#clock.now() + (this.#ttlMs * 2) / 3 : 0;
    return ok;
  }

  async release(): Promise<void> {
    this.#validUntilMs = 0;
    await this.#leases.trip(1);
    this.#leases.drop(this.key, this.token);
  }

  async owner(): Promise<string | undefined> {
    await this.#leases.trip(1);
    return this.#leases.holder(this.key)?.split('#')[0];
  }
}
