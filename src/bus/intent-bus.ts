import { Queue, type JobsOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import { systemClock, type Clock, type OrderIntent } from '../core/index.js';
import {
  checkPrefix,
  closeRedis,
  holdWritesForTurn,
  issueAfterHold,
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
import { PUBLISH, RESTORE, TAKE, TAKE_SLOTS } from './scripts.js';

export const INTENT_JOB_NAME = 'intents';

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

export interface PublishResult {
  /** The input intents, in input order, with the generations the bus assigned. */
  readonly published: OrderIntent[];
  /** Pending intents replaced before the executor took them (never sent). */
  readonly coalesced: number;
  readonly byPair: Record<string, { published: number; coalesced: number }>;
}

export interface TakeResult {
  /** Still within their deadline, bids then asks by level. */
  readonly intents: OrderIntent[];
  /** Past their deadline at `nowMs`: the executor must not send them, only count them. */
  readonly expired: OrderIntent[];
}

/** Identifies the one slot entry the executor acted on; a newer generation is left in place. */
export interface SlotPick {
  readonly slot: string;
  readonly generation: number;
}

/**
 * Told, in this process, that a pair's register got these intents (as written, with their
 * generations): a listener can keep a copy of the register without reading it back.
 */
export type PublishListener = (pair: string, intents: readonly OrderIntent[]) => void;

/**
 * The runner → executor contract. Intents live in a per-pair register (the latest one per slot);
 * a BullMQ job in the pair's own queue tells an executor to drain it. One queue per pair lets an
 * executor consume exactly the pairs it holds the lease of (src/executor), so pairs can be split
 * across processes. Jobs are deduplicated by pair with keepLastIfActive: a waiting job absorbs
 * further publishes (it reads the register when it runs); while a job is active BullMQ keeps
 * exactly one follow-up, so nothing published meanwhile is stranded. An executor holding the pair
 * in the publishing process is woken directly instead (onPublished), and waits for ratecount
 * budget on its own timer.
 */
export class IntentBus {
  readonly #conn: OpenedRedis;
  readonly #queues = new Map<string, IntentQueue>();
  readonly #prefix: string;
  readonly #queueName: string;
  readonly #clock: Clock;
  readonly #listeners = new Map<string, Set<PublishListener>>();
  /** `pair|slot` → the generation this bus last wrote or read there: the next is one more. */
  readonly #generations = new Map<string, number>();
  /** Per pair with a listener: its generations read from Redis (#prime), settled either way. */
  readonly #primed = new Map<string, { readonly done: Promise<void>; read: boolean }>();
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
    // The register writes, and the commands of the drain a listener starts now, are issued and
    // leave together once the drain's requests are written.
    const redis = this.#conn.redis;
    holdWritesForTurn(redis);
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
        const replied = issueAfterHold(redis, () => {
          // A checked intent is already what encodeBody would build: it is written as it is.
          const args = indexes.flatMap((i) => {
            const intent = checked[i] as UnpublishedIntent;
            return [intent.slot, JSON.stringify(intent)];
          });
          return this.#eval(
            PUBLISH,
            [key, this.#generationsKey, this.#pairsKey],
            [pair, ...args],
            key,
          );
        });
        // A listener in this process is told now, with the generations the script will assign,
        // so what it sends on this connection runs right behind the write, without waiting a
        // round trip for the reply.
        const expected = this.#expected(
          pair,
          indexes.map((i) => checked[i] as UnpublishedIntent),
        );
        if (expected !== undefined) this.#notify(pair, expected);
        const counts = parseCounts(await replied, indexes.length + 1, key);
        const written = indexes.map((i, j) => {
          generations[i] = counts[j + 1] as number;
          return { ...(checked[i] as UnpublishedIntent), generation: counts[j + 1] as number };
        });
        for (const w of written) this.#generations.set(`${pair}|${w.slot}`, w.generation);
        byPair[pair] = { published: indexes.length, coalesced: counts[0] as number };
        if (expected !== undefined) {
          // Another publisher for the pair moved a generation: the listener gets the true ones.
          if (written.some((w, j) => w.generation !== expected[j]?.generation)) {
            this.#notify(pair, written);
          }
          return;
        }
        // An executor in this process that holds the pair drains now, and no job is needed: no
        // other executor works the pair meanwhile, and the next holder drains when it takes it.
        if (!this.#notify(pair, written)) await this.enqueue(pair);
      }),
    );

    return {
      published: checked.map((intent, i) => ({ ...intent, generation: generations[i] as number })),
      coalesced: Object.values(byPair).reduce((sum, p) => sum + p.coalesced, 0),
      byPair,
    };
  }

  /**
   * Makes sure a job will drain `pair`'s register; publish() calls it. Also for recovery: after a
   * crash between register write and job add, pairsWithPending() lists pairs to enqueue().
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
   * Removes and returns the pair's pending intents; the executor calls it inside its job. Entries
   * are removed even when one is corrupt (the call then throws BUS_CORRUPT): a corrupt entry left
   * in place would fail every later take for the pair, while a dropped batch is re-derived by the
   * runner from live orders on its next tick.
   */
  async take(pair: string, nowMs: number): Promise<TakeResult> {
    checkPair(pair, 'pair');
    const key = this.registerKey(pair);
    const reply = await this.#eval(TAKE, [key, this.#pairsKey], [pair], key);
    const all = this.#decode(reply, key, pair);
    // A deadline equal to now leaves no time to send, so it counts as passed.
    return {
      intents: all.filter((i) => i.deadlineMs > nowMs),
      expired: all.filter((i) => i.deadlineMs <= nowMs),
    };
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
   * slots put back, and wakes this process's listeners for the pair.
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
    if (slots.length > 0) {
      const back = new Set(slots);
      this.#notify(
        pair,
        intents.filter((i) => back.has(i.slot)),
      );
    }
    return slots;
  }

  /**
   * Calls `listener` with the intents whenever this bus instance writes some for `pair` (publish,
   * restore): right after the register write, or, for a publish to slots whose generations this
   * bus knows (it wrote them, or read them when the pair's first listener came), as soon as the
   * write is sent, with the generations it will get (commands the listener sends
   * on this bus's connection run after the write; it is called again with the true generations
   * should another publisher have moved them). While one is registered, publish adds no queue job
   * for the pair (the listener is the pair's executor, holding its lease in this process).
   * Returns the unsubscribe function.
   */
  onPublished(pair: string, listener: PublishListener): () => void {
    let set = this.#listeners.get(pair);
    if (set === undefined) {
      set = new Set();
      this.#listeners.set(pair, set);
    }
    // A first listener (again): what others published meanwhile is read afresh.
    if (set.size === 0) this.#prime(pair);
    set.add(listener);
    return () => {
      set.delete(listener);
    };
  }

  /**
   * Settles once the generations of `pair`, read when its first listener came, are known here
   * (or could not be read: publish then waits for its reply, as for a slot never seen).
   */
  primed(pair: string): Promise<void> {
    return this.#primed.get(pair)?.done ?? Promise.resolve();
  }

  /**
   * Reads the pair's last generations, so that its listener is told of the first publish to each
   * slot as it is sent too (#expected), not a round trip later: that wait was on the way to a
   * process's first orders (1.3-2.6 ms of the benchmark's first batch). A slot with none yet
   * starts at 0. A publisher elsewhere may move them on, as ever; publish then tells the true ones.
   */
  #prime(pair: string): void {
    const redis = this.#conn.redis;
    const match = `${pair.replace(/[*?[\]\\]/g, '\\$&')}|*`;
    const entry = { read: false, done: Promise.resolve() };
    entry.done = (async () => {
      const found = new Map<string, number>();
      let cursor = '0';
      do {
        const [next, flat] = await redis.hscan(this.#generationsKey, cursor, 'MATCH', match);
        for (let i = 0; i + 1 < flat.length; i += 2) {
          const n = Number(flat[i + 1]);
          // Anything else is the publish script's to report (BUS_CORRUPT).
          if (Number.isSafeInteger(n) && n >= 0) found.set(flat[i] as string, n);
        }
        cursor = next;
      } while (cursor !== '0');
      for (const [field, n] of found)
        this.#generations.set(field, Math.max(this.#generations.get(field) ?? 0, n));
      entry.read = true;
    })().catch(() => undefined);
    this.#primed.set(pair, entry);
  }

  /**
   * The intents with the generations the publish script will give them (one more than the last
   * this bus wrote or read for each slot), when the pair has a listener and each slot's last is
   * known; a publisher elsewhere can make this wrong, and publish() then tells the true ones.
   */
  #expected(pair: string, intents: readonly UnpublishedIntent[]): OrderIntent[] | undefined {
    if ((this.#listeners.get(pair)?.size ?? 0) === 0) return undefined;
    const out: OrderIntent[] = [];
    const read = this.#primed.get(pair)?.read === true;
    for (const intent of intents) {
      const last = this.#generations.get(`${pair}|${intent.slot}`) ?? (read ? 0 : undefined);
      if (last === undefined) return undefined;
      out.push({ ...intent, generation: last + 1 });
    }
    return out;
  }

  /** Whether anyone listened. */
  #notify(pair: string, intents: readonly OrderIntent[]): boolean {
    const listeners = this.#listeners.get(pair);
    for (const listener of listeners ?? []) listener(pair, intents);
    return listeners !== undefined && listeners.size > 0;
  }

  /** The pair's pending intents, left in place (the executor's peek, status pages, tests). */
  async pending(pair: string): Promise<OrderIntent[]> {
    checkPair(pair, 'pair');
    const key = this.registerKey(pair);
    let reply: unknown;
    try {
      reply = await this.#conn.redis.call('HGETALL', key);
    } catch (err) {
      throw busError(err, key, `reading ${key}`);
    }
    return this.#decode(reply, key, pair);
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
