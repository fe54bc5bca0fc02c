import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Clock } from '../core/index.js';
import type { ProcessBeacon } from './beacon.js';
import { ExecutorError } from './errors.js';

const RENEW = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
`;

const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
`;

/** A pair's lease as the executor holds it (DESIGN.md §3.7); the token fences tracker writes. */
export interface Lease {
  readonly key: string;
  readonly token: string;
  readonly fence: { key: string; token: string };
  /** Set when the lease was taken from a holder whose process had ended: its owner label. */
  readonly tookOverFrom: string | undefined;
  /** True while our last successful renewal leaves at least a third of the TTL. */
  held(): boolean;
  tryAcquire(): Promise<boolean>;
  /** Extends the lease; false (and no longer held) when someone else owns it now. */
  renew(): Promise<boolean>;
  release(): Promise<void>;
  /** Who holds the pair now (the owner label), or undefined. */
  owner(): Promise<string | undefined>;
}

/**
 * Where the pairs' leases live. Two implementations keep one contract (test/stores): RedisLeases,
 * shared by every process on the prefix, and MemoryLeases for one process (the replay).
 */
export interface Leases {
  lease(pair: string, owner: string, ttlMs: number, beacon?: ProcessBeacon): Lease;
  /** Whether anyone holds the pair's lease now. */
  taken(pair: string): Promise<boolean>;
}

/** The beacon id a lease's token names (`owner#uuid#beacon`), if its holder had one. */
export function beaconOf(token: string): string | undefined {
  return token.split('#')[2];
}

/** Leases in Redis under `prefix`. */
export class RedisLeases implements Leases {
  readonly #redis: Redis;
  readonly #prefix: string;
  readonly #clock: Clock;

  constructor(redis: Redis, prefix: string, clock: Clock) {
    this.#redis = redis;
    this.#prefix = prefix;
    this.#clock = clock;
  }

  lease(pair: string, owner: string, ttlMs: number, beacon?: ProcessBeacon): Lease {
    return new PairLease(this.#redis, this.#prefix, pair, owner, ttlMs, this.#clock, beacon);
  }

  async taken(pair: string): Promise<boolean> {
    const key = PairLease.keyFor(this.#prefix, pair);
    try {
      return (await this.#redis.exists(key)) > 0;
    } catch (err) {
      throw new ExecutorError('EXECUTOR_REDIS', `lease ${key}`, err);
    }
  }
}

/**
 * One executor works a pair at a time (DESIGN.md §3.7): whoever holds the pair's lease. The lease
 * is a Redis key with a random token and a TTL the owner keeps renewing; a standby takes it when
 * the owner stops. The token is also the fence for the tracker's writes, and the owner stops
 * sending as soon as its last renewal is older than the TTL minus a margin, before Redis could
 * hand the pair to someone else. With a beacon, the token names it (`owner#uuid#beacon`), and a
 * lease whose holder's beacon proves it ended is taken at once instead of waited out.
 */
export class PairLease implements Lease {
  readonly key: string;
  readonly token: string;
  readonly #redis: Redis;
  readonly #ttlMs: number;
  readonly #clock: Clock;
  readonly #beacon: ProcessBeacon | undefined;
  #validUntilMs = 0;
  /** Set when the lease was taken from a holder whose process had ended: its owner label. */
  tookOverFrom: string | undefined;

  /** The Redis key of a pair's lease: it exists while an executor works the pair. */
  static keyFor(prefix: string, pair: string): string {
    return `${prefix}:exec-lease:${pair}`;
  }

  constructor(
    redis: Redis,
    prefix: string,
    pair: string,
    owner: string,
    ttlMs: number,
    clock: Clock,
    beacon?: ProcessBeacon,
  ) {
    this.#redis = redis;
    this.key = PairLease.keyFor(prefix, pair);
    this.#beacon = beacon;
    this.token = `${owner}#${randomUUID()}${beacon === undefined ? '' : `#${beacon.id}`}`;
    this.#ttlMs = ttlMs;
    this.#clock = clock;
  }

  get fence(): { key: string; token: string } {
    return { key: this.key, token: this.token };
  }

  /** True while our last successful renewal leaves at least a third of the TTL. */
  held(): boolean {
    return this.#clock.now() < this.#validUntilMs;
  }

  async tryAcquire(): Promise<boolean> {
    if (await this.#set()) return true;
    const holder = await this.#call(() => this.#redis.get(this.key));
    const beaconId = holder === null ? undefined : beaconOf(holder);
    if (holder === null || beaconId === undefined || this.#beacon === undefined) return false;
    if (!(await this.#beacon.provesEnded(beaconId))) return false;
    // Deleted only if the ended holder still has it: a standby may have taken it meanwhile.
    await this.#call(() => this.#redis.eval(RELEASE, 1, this.key, holder));
    if (!(await this.#set())) return false;
    this.tookOverFrom = holder.split('#')[0];
    await this.#beacon.forget(beaconId);
    return true;
  }

  async #set(): Promise<boolean> {
    const started = this.#clock.now();
    const reply = await this.#call(() =>
      this.#redis.set(this.key, this.token, 'PX', this.#ttlMs, 'NX'),
    );
    if (reply === 'OK') this.#validUntilMs = started + (this.#ttlMs * 2) / 3;
    return reply === 'OK';
  }

  /** Extends the lease; false (and no longer held) when someone else owns it now. */
  async renew(): Promise<boolean> {
    const started = this.#clock.now();
    const reply = await this.#call(() =>
      this.#redis.eval(RENEW, 1, this.key, this.token, String(this.#ttlMs)),
    );
    if (reply === 1) this.#validUntilMs = started + (this.#ttlMs * 2) / 3;
    else this.#validUntilMs = 0;
    return reply === 1;
  }

  async release(): Promise<void> {
    this.#validUntilMs = 0;
    await this.#call(() => this.#redis.eval(RELEASE, 1, this.key, this.token));
  }

  /** Who holds the pair now (the owner label before '#'), or undefined. */
  async owner(): Promise<string | undefined> {
    const value = await this.#call(() => this.#redis.get(this.key));
    return value === null ? undefined : value.split('#')[0];
  }

  async #call<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      throw new ExecutorError('EXECUTOR_REDIS', `lease ${this.key}`, err);
    }
  }
}
