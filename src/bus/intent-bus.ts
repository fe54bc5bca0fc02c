import { Queue, Worker, type JobsOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import { asError, systemClock, type Clock, type OrderIntent } from '../core/index.js';
import {
  checkPrefix,
  closeRedis,
  openRedis,
  type BusConnection,
  type OpenedRedis,
} from './connection.js';
import { busError, BusError } from './errors.js';
import {
  checkPair,
  checkPublishInput,
  compareSlots,
  decodeEntry,
  encodeBody,
  type UnpublishedIntent,
} from './intent-codec.js';
import { DROP_ENTRY, PUBLISH, RESTORE, TAKE_SLOTS } from './scripts.js';
import type { ConsumeOptions, IntentBus, PairConsumer, PublishResult, SlotPick } from './bus.js';
import { loadOrdersView, storeOrdersView, type StoredOrdersView } from './orders-view.js';

export const INTENT_JOB_NAME = 'intents';

/**
 * How often a pair's worker looks for stalled jobs (at most; half the lock when that is shorter).
 * A job whose lock ran out (its process died, or Redis hung past the lock while the step waited
 * on it) holds the pair's next job back until found: BullMQ marks it at one check and fails it at
 * the next, so within about two of these once Redis answers again.
 */
const STALLED_CHECK_MS = 1_000;

/** A job only says which register to drain; the intents themselves stay in the register. */
export interface IntentJobData {
  readonly pair: string;
  readonly publishedAtMs: number;
}

export type IntentQueue = Queue<IntentJobData, unknown, typeof INTENT_JOB_NAME>;

export interface IntentBusOptions {
  /** A caller's ioredis client (left open by close()), or options / a URL for one of our own. */
  readonly connection: BusConnection;
  /** Every key of the bus, BullMQ's included, starts with `${prefix}:`. Default `makerd`. */
  readonly prefix?: string;
  /** Base of the per-pair queue names (`intents.XXBTZUSD`). Default `intents`. */
  readonly queueName?: string;
  /** Stamps publishedAtMs on jobs. */
  readonly clock?: Clock;
}

/**
 * The runner → executor contract. Intents live in a per-pair register (the latest one per slot);
 * a BullMQ job in the pair's own queue tells an executor to drain it. One queue per pair lets an
 * executor consume exactly the pairs it holds the lease of (src/executor), so pairs can be split
 * across processes. Jobs are deduplicated by pair with keepLastIfActive: a waiting job absorbs
 * further publishes (it reads the register when it runs); while a job is active BullMQ keeps
 * exactly one follow-up, so nothing published meanwhile is stranded. Every deployment takes this
 * path, one process or many (DESIGN.md §3.11).
 */
export class RedisIntentBus implements IntentBus {
  readonly #conn: OpenedRedis;
  readonly #queues = new Map<string, IntentQueue>();
  readonly #prefix: string;
  readonly #queueName: string;
  readonly #clock: Clock;
  #closing: Promise<void> | undefined;

  constructor(options: IntentBusOptions) {
    this.#prefix = checkPrefix(options.prefix ?? 'makerd', 'prefix');
    this.#queueName = checkPrefix(options.queueName ?? 'intents', 'queueName');
    this.#clock = options.clock ?? systemClock;
    this.#conn = openRedis(options.connection);
  }

  /** The pair's BullMQ queue (created on first use, on the bus's connection). */
  queueFor(pair: string): IntentQueue {
    checkPair(pair, 'pair');
    let queue = this.#queues.get(pair);
    if (queue === undefined) {
      queue = new Queue(this.queueNameFor(pair), {
        connection: this.#conn.redis,
        prefix: this.bullPrefix,
      });
      this.#queues.set(pair, queue);
    }
    return queue;
  }

  /** The name a Worker for `pair` consumes (with `prefix: bullPrefix`). */
  queueNameFor(pair: string): string {
    checkPair(pair, 'pair');
    // BullMQ joins key parts with ':', so a pair id must not bring its own.
    return `${this.#queueName}.${encodeURIComponent(pair)}`;
  }

  get queueName(): string {
    return this.#queueName;
  }

  get prefix(): string {
    return this.#prefix;
  }

  /** The bus's connection (the orders view beside the register uses it too). */
  get redis(): Redis {
    return this.#conn.redis;
  }

  /** The BullMQ `prefix` option a Worker on this bus's queue must use. */
  get bullPrefix(): string {
    return `${this.#prefix}:bull`;
  }

  registerKey(pair: string): string {
    return `${this.#prefix}:intents:${pair}`;
  }

  get #generationsKey(): string {
    return `${this.#prefix}:generations`;
  }

  get #pairsKey(): string {
    return `${this.#prefix}:intent-pairs`;
  }

  /**
   * Stores the intents as the latest for their slots and makes sure a job will drain each pair.
   * All input is checked before anything is written. If the job cannot be added after the
   * register was written (Redis lost in between), this rejects with BUS_UNAVAILABLE and the
   * intents wait in the register: the next publish or enqueue() for the pair adds the job.
   */
  async publish(intents: readonly UnpublishedIntent[]): Promise<PublishResult> {
    const checked = checkPublishInput(intents);
    const groups = new Map<string, number[]>();
    checked.forEach((intent, i) => {
      const group = groups.get(intent.pair);
      if (group === undefined) groups.set(intent.pair, [i]);
      else group.push(i);
    });

    const generations = new Array<number>(checked.length).fill(0);
    const byPair: Record<string, { published: number; coalesced: number }> = {};
    await Promise.all(
      [...groups].map(async ([pair, indexes]) => {
        const key = this.registerKey(pair);
        // A checked intent is already what encodeBody would build: it is written as it is.
        const args = indexes.flatMap((i) => {
          const intent = checked[i] as UnpublishedIntent;
          return [intent.slot, JSON.stringify(intent)];
        });
        // One round trip: the script is written first and the job's add after it on the same
        // connection, which Redis runs in order, so no job can run before the register holds
        // these intents. Should the script fail, the job finds the register as it was.
        const [reply] = await Promise.all([
          this.#eval(PUBLISH, [key, this.#generationsKey, this.#pairsKey], [pair, ...args], key),
          this.enqueue(pair),
        ]);
        const counts = parseCounts(reply, indexes.length + 1, key);
        indexes.forEach((i, j) => (generations[i] = counts[j + 1] as number));
        byPair[pair] = { published: indexes.length, coalesced: counts[0] as number };
      }),
    );

    return {
      published: checked.map((intent, i) => ({ ...intent, generation: generations[i] as number })),
      coalesced: Object.values(byPair).reduce((sum, p) => sum + p.coalesced, 0),
      byPair,
    };
  }

  /**
   * Makes sure a job will run for `pair`: publish() calls it, and the executor for its own wake-ups
   * (budget due, unknown outcomes to resolve, syncs). Also for recovery: after a crash between
   * register write and job add, pairsWithPending() lists pairs to enqueue().
   */
  async enqueue(pair: string): Promise<void> {
    const queue = this.queueFor(pair);
    const jobOptions: JobsOptions = {
      deduplication: { id: pair, keepLastIfActive: true },
      removeOnComplete: { count: 100 },
      removeOnFail: { count: 1000 },
    };
    try {
      await queue.add(INTENT_JOB_NAME, { pair, publishedAtMs: this.#clock.now() }, jobOptions);
    } catch (err) {
      throw busError(err, `${this.bullPrefix}:${queue.name}`, `adding the job for ${pair}`);
    }
  }

  /**
   * Removes the picked entries, each only if the register still holds that generation (a newer
   * publish for the slot stays for the next job), and returns the removed ones. The executor
   * peeks with pending(), plans, and takes only what it sends or drops: what waits for budget
   * never leaves Redis.
   */
  async takeSlots(pair: string, picks: readonly SlotPick[]): Promise<OrderIntent[]> {
    checkPair(pair, 'pair');
    if (picks.length === 0) return [];
    const key = this.registerKey(pair);
    const args = picks.flatMap((p) => [p.slot, String(p.generation)]);
    const reply = await this.#eval(TAKE_SLOTS, [key, this.#pairsKey], [pair, ...args], key);
    return this.#decode(reply, key, pair);
  }

  /**
   * Puts taken intents back (the executor found their orders gone and will act on them after a
   * query), each only while its slot is empty and no newer generation was published. Returns the
   * slots put back; a job drains them.
   */
  async restore(pair: string, intents: readonly OrderIntent[]): Promise<string[]> {
    checkPair(pair, 'pair');
    if (intents.length === 0) return [];
    const key = this.registerKey(pair);
    const args = intents.flatMap((i) => {
      const { generation, ...rest } = i;
      return [i.slot, `{"generation":${generation},${encodeBody(rest).slice(1)}`];
    });
    const reply = await this.#eval(
      RESTORE,
      [key, this.#generationsKey, this.#pairsKey],
      [pair, ...args],
      key,
    );
    const slots = Array.isArray(reply)
      ? reply.filter((s): s is string => typeof s === 'string')
      : [];
    if (slots.length > 0) await this.enqueue(pair);
    return slots;
  }

  /**
   * The pair's pending intents, left in place (the executor's peek, tests). An entry that does not
   * decode is removed, then reported (BUS_CORRUPT): left in place it would fail every later read
   * for the pair, while a dropped intent is re-derived by the runner from live orders.
   */
  async pending(pair: string): Promise<OrderIntent[]> {
    checkPair(pair, 'pair');
    const key = this.registerKey(pair);
    let reply: unknown;
    try {
      reply = await this.#conn.redis.call('HGETALL', key);
    } catch (err) {
      throw busError(err, key, `reading ${key}`);
    }
    try {
      return this.#decode(reply, key, pair);
    } catch (err) {
      if (!(err instanceof BusError) || err.field === undefined || !Array.isArray(reply)) throw err;
      const at = reply.indexOf(err.field);
      await this.#eval(
        DROP_ENTRY,
        [key, this.#pairsKey],
        [pair, err.field, String(reply[at + 1])],
        key,
      );
      throw err;
    }
  }

  /** How many intents of the pair wait for the executor (the queue depth metric). */
  async pendingCount(pair: string): Promise<number> {
    checkPair(pair, 'pair');
    const key = this.registerKey(pair);
    try {
      return await this.#conn.redis.hlen(key);
    } catch (err) {
      throw busError(err, key, `counting ${key}`);
    }
  }

  /** Pairs whose register holds at least one intent, sorted. */
  async pairsWithPending(): Promise<string[]> {
    try {
      return (await this.#conn.redis.smembers(this.#pairsKey)).sort();
    } catch (err) {
      throw busError(err, this.#pairsKey, `reading ${this.#pairsKey}`);
    }
  }

  async writeOrdersView(view: StoredOrdersView, pairs: readonly string[]): Promise<void> {
    await storeOrdersView(this.#conn.redis, this.#prefix, view);
    await Promise.all(pairs.map((pair) => this.enqueue(pair)));
  }

  readOrdersView(): Promise<StoredOrdersView | undefined> {
    return loadOrdersView(this.#conn.redis, this.#prefix);
  }

  /**
   * A BullMQ Worker on the pair's queue (DESIGN.md §3.6): a stalled job is failed, never re-run.
   * The job of a process that died stays active until its lock runs out and a stalled check fails
   * it; until then the pair's next job waits (deduplication keeps one). The Worker duplicates the
   * bus's connection to block.
   *
   * `close(true)` does not wait for the step under way, yet closes gracefully behind it: BullMQ's
   * own force close leaves the job it holds (the step's, or one it fetched while closing) active
   * and locked, and the pair's next job waited out the whole lock (5 s after a Redis stall that
   * cost the lease). The step ends on its own either way; so its job completes.
   */
  consume(pair: string, step: () => Promise<unknown>, options: ConsumeOptions): PairConsumer {
    const worker = new Worker<IntentJobData>(this.queueNameFor(pair), step, {
      connection: this.#conn.redis,
      prefix: this.bullPrefix,
      autorun: false,
      concurrency: 1,
      maxStalledCount: 0,
      lockDuration: options.lockDurationMs,
      stalledInterval: Math.min(STALLED_CHECK_MS, options.lockDurationMs / 2),
      // Seconds (BullMQ's unit here) an idle worker blocks before polling again; a job wakes it.
      drainDelay: 5,
    });
    worker.on('error', (err) => options.onError(err, 'consumer'));
    worker.on('failed', (_job, err) => options.onError(err, 'step'));
    void worker.run();
    return {
      close: (force) => {
        const closed = worker.close();
        if (!force) return closed;
        closed.catch((err: unknown) => options.onError(asError(err), 'consumer'));
        return Promise.resolve();
      },
    };
  }

  pause(pair: string): Promise<void> {
    return this.queueFor(pair).pause();
  }

  resume(pair: string): Promise<void> {
    return this.queueFor(pair).resume();
  }

  /** Closes the queue, and the Redis connection if the bus opened it. Safe to call twice. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      try {
        await Promise.all([...this.#queues.values()].map((q) => q.close()));
      } finally {
        await closeRedis(this.#conn);
      }
    })();
    return this.#closing;
  }

  async #eval(script: string, keys: string[], args: string[], key: string): Promise<unknown> {
    const redis: Redis = this.#conn.redis;
    try {
      return await redis.eval(script, keys.length, ...keys, ...args);
    } catch (err) {
      throw busError(err, key, `script on ${key}`);
    }
  }

  #decode(reply: unknown, key: string, pair: string): OrderIntent[] {
    if (!Array.isArray(reply) || reply.length % 2 !== 0) {
      throw new BusError(
        'BUS_CORRUPT',
        key,
        undefined,
        `Redis answered ${typeof reply} for ${key}`,
      );
    }
    const out: OrderIntent[] = [];
    for (let i = 0; i < reply.length; i += 2) {
      const field: unknown = reply[i];
      const value: unknown = reply[i + 1];
      if (typeof field !== 'string' || typeof value !== 'string') {
        throw new BusError(
          'BUS_CORRUPT',
          key,
          undefined,
          `Redis key ${key} holds non-text entries`,
        );
      }
      out.push(decodeEntry(value, key, field, pair));
    }
    return out.sort(compareSlots);
  }
}

function parseCounts(reply: unknown, length: number, key: string): number[] {
  if (
    !Array.isArray(reply) ||
    reply.length !== length ||
    !reply.every((n): n is number => Number.isSafeInteger(n))
  ) {
    throw new BusError('BUS_CORRUPT', key, undefined, `publish script on ${key} answered oddly`);
  }
  return reply;
}
