import type { Redis } from 'ioredis';
import { InvalidInputError, promised } from '../core/index.js';
import { busError } from './errors.js';

/** Why and by whom a pair was pulled. */
export interface PullState {
  readonly by: string;
  readonly reason: string;
  readonly sinceMs: number;
}

/** The pulled pairs as the runner and the operator commands use them (test/stores). */
export interface PullList {
  /** The pairs pulled as last read (or changed by this process). */
  current(): ReadonlyMap<string, PullState>;
  has(altname: string): boolean;
  read(): Promise<ReadonlyMap<string, PullState>>;
  /** Pulls a pair; false when it was already pulled (the first reason stays). */
  pull(altname: string, state: PullState): Promise<boolean>;
  /** Lets the runner quote the pair again; the pull it ended, undefined when there was none. */
  restore(altname: string): Promise<PullState | undefined>;
}

/** The pulled pairs of one process (the replay, where no operator pulls). */
export class MemoryPullList implements PullList {
  readonly #pulled = new Map<string, PullState>();

  current(): ReadonlyMap<string, PullState> {
    return this.#pulled;
  }

  has(altname: string): boolean {
    return this.#pulled.has(altname);
  }

  read(): Promise<ReadonlyMap<string, PullState>> {
    // A copy, as PulledPairs' read is: what a reader holds does not change under it.
    return Promise.resolve(new Map(this.#pulled));
  }

  pull(altname: string, state: PullState): Promise<boolean> {
    return promised(() => {
      if (altname === '') throw new InvalidInputError('pair', 'must be a non-empty string');
      if (this.#pulled.has(altname)) return false;
      this.#pulled.set(altname, { by: state.by, reason: state.reason, sinceMs: state.sinceMs });
      return true;
    });
  }

  restore(altname: string): Promise<PullState | undefined> {
    const was = this.#pulled.get(altname);
    this.#pulled.delete(altname);
    return Promise.resolve(was);
  }
}

/**
 * Pairs an operator pulled (the console's "pull"): the runner quotes nothing for them and cancels
 * what rests, through the normal intent path, until the pair is restored. One Redis hash (pair
 * altname -> JSON) so that any process can pull and every runner sees it; the runner reads a
 * cached copy refreshed by read(), so its ticks never wait on Redis. pull() and restore() PUBLISH
 * on changesChannel: a runner reads on the message, and polls only as the fallback.
 *
 * A field that does not parse counts as pulled: something meant to stop quoting must not be
 * ignored because it is garbled.
 */
export class PulledPairs implements PullList {
  readonly key: string;
  readonly #redis: Redis;
  #pulled: ReadonlyMap<string, PullState> = new Map();

  constructor(redis: Redis, prefix: string) {
    this.#redis = redis;
    this.key = `${prefix}:pulled`;
  }

  /** Pub/sub channel told of every pull and restore. */
  get changesChannel(): string {
    return `${this.key}:changes`;
  }

  /** The pairs pulled as last read (or changed by this process). */
  current(): ReadonlyMap<string, PullState> {
    return this.#pulled;
  }

  has(altname: string): boolean {
    return this.#pulled.has(altname);
  }

  async read(): Promise<ReadonlyMap<string, PullState>> {
    let raw: Record<string, string>;
    try {
      raw = await this.#redis.hgetall(this.key);
    } catch (err) {
      throw busError(err, this.key, 'reading the pulled pairs');
    }
    const pulled = new Map<string, PullState>();
    for (const [pair, value] of Object.entries(raw)) pulled.set(pair, parse(value));
    this.#pulled = pulled;
    return pulled;
  }

  /** Pulls a pair; false when it was already pulled (the first reason stays). */
  async pull(altname: string, state: PullState): Promise<boolean> {
    if (altname === '') throw new InvalidInputError('pair', 'must be a non-empty string');
    let set: number;
    try {
      set = await this.#redis.hsetnx(this.key, altname, JSON.stringify(state));
    } catch (err) {
      throw busError(err, this.key, `pulling ${altname}`);
    }
    if (set === 1) await this.#publish(altname);
    await this.read();
    return set === 1;
  }

  /**
   * Lets the runner quote the pair again; returns the pull it ended (undefined: none). HGET and
   * HDEL go in one transaction, so the pull reported is the one removed.
   */
  async restore(altname: string): Promise<PullState | undefined> {
    let raw: unknown;
    try {
      const replies = await this.#redis
        .multi()
        .hget(this.key, altname)
        .hdel(this.key, altname)
        .exec();
      const [got] = replies ?? [];
      if (got?.[0]) throw got[0];
      raw = got?.[1];
    } catch (err) {
      throw busError(err, this.key, `restoring ${altname}`);
    }
    if (typeof raw === 'string') await this.#publish(altname);
    await this.read();
    return typeof raw === 'string' ? parse(raw) : undefined;
  }

  /** Best effort: the hash is written, and a runner that misses the message polls it. */
  async #publish(altname: string): Promise<void> {
    await this.#redis.publish(this.changesChannel, altname).catch(() => undefined);
  }
}

function parse(value: string): PullState {
  try {
    const v = JSON.parse(value) as Partial<PullState>;
    if (typeof v.by === 'string' && typeof v.reason === 'string' && Number.isFinite(v.sinceMs)) {
      return { by: v.by, reason: v.reason, sinceMs: v.sinceMs as number };
    }
  } catch {
    // Below.
  }
  return { by: '?', reason: `unreadable pull entry: ${value.slice(0, 40)}`, sinceMs: 0 };
}
