import { Redis } from 'ioredis';
import { errorMessage, InvalidInputError } from '../../core/index.js';

/** What a worker needs to know of a sweep before taking its jobs: where its files are. */
export interface SweepMeta {
  readonly id: string;
  /** The bot's config file; undefined: the package's config/paper.yaml. */
  readonly config?: string;
  /** The recording folder (every worker must read it at this path). */
  readonly data: string;
  /** The sweep's folder: each run's report goes under it. */
  readonly dir: string;
  /** host:pid of the process that runs the sweep. */
  readonly host: string;
  readonly startedMs: number;
}

/**
 * A connection to the sweep's Redis, as BullMQ wants it (no retry limit per request); one that
 * cannot connect is refused in one line naming redis.url.
 */
export async function connectSweepRedis(url: string): Promise<Redis> {
  const redis = new Redis(url, { maxRetriesPerRequest: null, lazyConnect: true });
  try {
    await redis.connect();
  } catch (err) {
    redis.disconnect();
    throw new InvalidInputError('redis.url', `cannot connect: ${errorMessage(err)}`);
  }
  return redis;
}

/**
 * The open sweeps under a Redis prefix. Each has a marker key (its meta as JSON) that the process
 * running the sweep keeps alive with a short expiry: workers leave a sweep whose marker is gone,
 * so a sweep that ends, is stopped or whose process dies lets its workers go within that time.
 * An index (a sorted set by start time) lets `makerd backtest worker` find them; a sweep whose
 * marker has expired is stale, and its queue is cleared by the next sweep that starts.
 */
export class SweepRegistry {
  readonly #redis: Redis;
  readonly #prefix: string;

  constructor(redis: Redis, prefix: string) {
    this.#redis = redis;
    this.#prefix = prefix;
  }

  /** The BullMQ `prefix` of sweep queues (beside the intent queues' `<prefix>:bull`). */
  get bullPrefix(): string {
    return `${this.#prefix}:bull`;
  }

  /** The sweep's BullMQ queue name (BullMQ joins key parts with ':', so none in it). */
  queueName(id: string): string {
    return `sweep.${id}`;
  }

  async open(meta: SweepMeta, ttlMs: number): Promise<void> {
    await this.#redis
      .multi()
      .set(this.#marker(meta.id), JSON.stringify(meta), 'PX', ttlMs)
      .zadd(this.#index, meta.startedMs, meta.id)
      .exec();
  }

  /** Keeps the marker alive; false when it is gone already. */
  async refresh(id: string, ttlMs: number): Promise<boolean> {
    return (await this.#redis.pexpire(this.#marker(id), ttlMs)) === 1;
  }

  async close(id: string): Promise<void> {
    await this.#redis.multi().del(this.#marker(id)).zrem(this.#index, id).exec();
  }

  async meta(id: string): Promise<SweepMeta | undefined> {
    const text = await this.#redis.get(this.#marker(id));
    return text === null ? undefined : (JSON.parse(text) as SweepMeta);
  }

  async isOpen(id: string): Promise<boolean> {
    return (await this.#redis.exists(this.#marker(id))) === 1;
  }

  /** The open sweeps, oldest first, and the ids of stale ones (marker expired). */
  async list(): Promise<{ open: SweepMeta[]; stale: string[] }> {
    const ids = await this.#redis.zrange(this.#index, 0, -1);
    const open: SweepMeta[] = [];
    const stale: string[] = [];
    for (const id of ids) {
      const meta = await this.meta(id);
      if (meta === undefined) stale.push(id);
      else open.push(meta);
    }
    return { open, stale };
  }

  /** Forgets a stale sweep (its queue cleared by the caller). */
  async forget(id: string): Promise<void> {
    await this.#redis.zrem(this.#index, id);
  }

  #marker(id: string): string {
    return `${this.#prefix}:sweep:${id}`;
  }

  get #index(): string {
    return `${this.#prefix}:sweeps`;
  }
}
