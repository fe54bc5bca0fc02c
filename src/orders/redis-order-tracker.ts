import { setTimeout as sleep } from 'node:timers/promises';
import type { ChainableCommander, Redis } from 'ioredis';
import { InvalidInputError, dec } from '../core/index.js';
import { checkPrefix } from '../bus/connection.js';
import {
  ORDER_STATES,
  type Fill,
  type OrderState,
  type Position,
  type TrackedOrder,
} from './types.js';
import {
  checkOrder,
  checkPair,
  decodeFill,
  decodeOrder,
  decodePosition,
  encodeFill,
  encodeOrder,
  encodePosition,
  parseUserrefField,
  peekTxid,
  userrefField,
} from './codec.js';
import { TrackerError, trackerError } from './errors.js';
import type { Fence, OrderTracker } from './order-tracker.js';
import { applyFill, deriveFill, emptyPosition } from './position.js';
import {
  ChangeListeners,
  DEFAULT_FILLS_LIMIT,
  DEFAULT_HISTORY_LIMIT,
  checkAtMs,
  checkFence,
  checkLimit,
  checkRangeLimit,
  checkSameOrder,
  compareOrders,
  isTerminal,
  keepExecution,
  settledEntry,
  settledPair,
} from './tracker-rules.js';

/**
 * Redis layout (every key starts with `${prefix}:`):
 *
 *   orders:${pair}            hash   userref (decimal text) → JSON TrackedOrder, live records only
 *   orders-done:${pair}       list   JSON TrackedOrder of terminal records, newest first
 *                                    (LPUSH + LTRIM to historyLimit)
 *   orders-done-refs:${pair}  zset   userrefs of those terminal records, scored by updatedAtMs and
 *                                    capped like the history: a late view of a finished order is
 *                                    recognised and dropped instead of bringing the order back
 *   fills:${pair}             list   JSON Fill, newest first (LPUSH + LTRIM to fillsLimit)
 *   position:${pair}          string JSON Position
 *   tracked-pairs             set    pairs with a live record or a position
 *
 * Every write also PUBLISHes the pair's id on `${prefix}:orders:changes` (changesChannel), in its
 * transaction: readers in any process (the runner's fills and PnL) read on a message instead of
 * polling.
 *
 * Writes are optimistic transactions: WATCH the keys the write depends on (and the fence key),
 * read them, compute in JS with decimal.js, then MULTI/EXEC; EXEC answering null means another
 * writer got in between, so the whole step is read and computed again. WATCH belongs to a
 * connection, so transactions run on a duplicate of the caller's client, one at a time (a promise
 * chain): the duplicate is opened on the first write and closed by close(). Reads use the
 * caller's client.
 *
 * The duplicate never re-sends a command after a reconnect (maxRetriesPerRequest 0 fails what was
 * in flight instead): a MULTI/EXEC re-sent on a fresh connection would run without its WATCH. For
 * the same reason a transaction whose connection closed after its WATCH starts over.
 */

export interface RedisOrderTrackerOptions {
  /** The caller's ioredis client; the tracker never closes it. */
  readonly redis: Redis;
  /** Every key starts with `${prefix}:`. */
  readonly prefix: string;
  /** Terminal records kept per pair, default 2000. */
  readonly historyLimit?: number;
  /** Fills kept per pair, default 10000. */
  readonly fillsLimit?: number;
}

/** Transaction attempts before giving up with TRACKER_UNAVAILABLE. */
const MAX_ATTEMPTS = 10;

/** What one transaction attempt decided: its result, and the writes to commit (none: read-only). */
interface Plan<T> {
  readonly result: T;
  readonly write?: (multi: ChainableCommander) => void;
  /** The pairs the write changes, told to onChange() listeners once it is committed. */
  readonly changed?: readonly string[];
}

/** What a transaction reads under its watch, and the key each command reads (for errors). */
interface Reads {
  readonly keys: readonly string[];
  readonly build: (pipeline: ChainableCommander) => void;
}

interface TxConnection {
  readonly redis: Redis;
  /** How many times its socket closed: a change between WATCH and EXEC means the WATCH is gone. */
  closes: number;
}

/**
 * The executor's orders, fills and positions in Redis (DESIGN.md §3.6). One record per order,
 * keyed by (pair, userref); terminal records move to a capped history. Fills are derived from the
 * growth of an order's volumeExecuted between the stored record and a new view of it, in the same
 * transaction that stores the view and updates the position, so a fill is counted once however
 * often, and by however many executors, the same view is applied.
 */
export class RedisOrderTracker implements OrderTracker {
  readonly #redis: Redis;
  readonly #prefix: string;
  readonly #historyLimit: number;
  readonly #fillsLimit: number;
  #tx: TxConnection | undefined;
  /** Transactions share one connection, so they run one after the other. */
  #chain: Promise<unknown> = Promise.resolve();
  #closing: Promise<void> | undefined;
  readonly #changes = new ChangeListeners();

  constructor(options: RedisOrderTrackerOptions) {
    this.#redis = options.redis;
    this.#prefix = checkPrefix(options.prefix, 'prefix');
    this.#historyLimit = checkLimit(options.historyLimit, DEFAULT_HISTORY_LIMIT, 'historyLimit');
    this.#fillsLimit = checkLimit(options.fillsLimit, DEFAULT_FILLS_LIMIT, 'fillsLimit');
  }

  get prefix(): string {
    return this.#prefix;
  }

  onChange(listener: (pair: string) => void): () => void {
    return this.#changes.listen(listener);
  }

  /** Pub/sub channel told the pair id of every write (orders, fills, position). */
  get changesChannel(): string {
    return `${this.#prefix}:orders:changes`;
  }

  liveKey(pair: string): string {
    return `${this.#prefix}:orders:${pair}`;
  }

  historyKey(pair: string): string {
    return `${this.#prefix}:orders-done:${pair}`;
  }

  doneRefsKey(pair: string): string {
    return `${this.#prefix}:orders-done-refs:${pair}`;
  }

  fillsKey(pair: string): string {
    return `${this.#prefix}:fills:${pair}`;
  }

  positionKey(pair: string): string {
    return `${this.#prefix}:position:${pair}`;
  }

  get pairsKey(): string {
    return `${this.#prefix}:tracked-pairs`;
  }

  // ---- reads (caller's connection) ----

  /** The pair's live (non-terminal) records, sorted by slot (bids, asks, foreign) then userref. */
  async live(pair: string): Promise<TrackedOrder[]> {
    checkPair(pair, 'pair');
    const key = this.liveKey(pair);
    let raw: Record<string, string>;
    try {
      raw = await this.#redis.hgetall(key);
    } catch (err) {
      throw trackerError(err, key, `reading ${key}`);
    }
    return Object.entries(raw)
      .map(([field, json]) =>
        decodeOrder(json, { key, field }, pair, parseUserrefField(field, key)),
      )
      .filter((order) => !isTerminal(order))
      .sort(compareOrders);
  }

  /** The live record of (pair, userref); undefined when there is none or it is terminal. */
  async get(pair: string, userref: number): Promise<TrackedOrder | undefined> {
    checkPair(pair, 'pair');
    if (!Number.isSafeInteger(userref)) {
      throw new InvalidInputError('userref', `must be an integer, got ${userref}`);
    }
    const key = this.liveKey(pair);
    const field = userrefField(userref);
    let json: string | null;
    try {
      json = await this.#redis.hget(key, field);
    } catch (err) {
      throw trackerError(err, key, `reading ${key}`);
    }
    if (json === null) return undefined;
    const order = decodeOrder(json, { key, field }, pair, userref);
    return isTerminal(order) ? undefined : order;
  }

  /** The live record of the pair with this txid. */
  async byTxid(pair: string, txid: string): Promise<TrackedOrder | undefined> {
    if (typeof txid !== 'string' || txid.length === 0) {
      throw new InvalidInputError('txid', 'must be a non-empty string');
    }
    return (await this.live(pair)).find((order) => order.txid === txid);
  }

  /** The pair's position; emptyPosition(pair) before its first fill. */
  async position(pair: string): Promise<Position> {
    checkPair(pair, 'pair');
    const key = this.positionKey(pair);
    let json: string | null;
    try {
      json = await this.#redis.get(key);
    } catch (err) {
      throw trackerError(err, key, `reading ${key}`);
    }
    return json === null ? emptyPosition(pair) : decodePosition(json, { key }, pair);
  }

  /** The pair's fills, newest first; all that are kept (fillsLimit) unless `limit` is given. */
  async fills(pair: string, limit?: number): Promise<Fill[]> {
    checkPair(pair, 'pair');
    const key = this.fillsKey(pair);
    const entries = await this.#range(key, limit);
    return entries.map((json, i) => decodeFill(json, { key, field: String(i) }, pair));
  }

  /**
   * How many fills the pair has had in all, and its newest `limit` fills (newest first), read
   * together: a reader that remembers the total knows which of them it has not seen.
   */
  async recentFills(pair: string, limit: number): Promise<{ total: number; fills: Fill[] }> {
    checkPair(pair, 'pair');
    checkRangeLimit(limit);
    const key = this.fillsKey(pair);
    const positionKey = this.positionKey(pair);
    let replies: [Error | null, unknown][] | null;
    try {
      const multi = this.#redis.multi().get(positionKey);
      // LRANGE 0 -1 would be every fill: a limit of 0 reads none.
      if (limit > 0) multi.lrange(key, 0, limit - 1);
      replies = await multi.exec();
    } catch (err) {
      throw trackerError(err, key, `reading ${key}`);
    }
    const [[positionErr, positionJson] = [null, null], [listErr, entries] = [null, []]] =
      replies ?? [];
    if (positionErr !== null || listErr !== null) {
      throw trackerError(positionErr ?? listErr, key, `reading ${key}`);
    }
    const position =
      typeof positionJson === 'string'
        ? decodePosition(positionJson, { key: positionKey }, pair)
        : emptyPosition(pair);
    return {
      total: position.fills,
      fills: (entries as string[]).map((json, i) =>
        decodeFill(json, { key, field: String(i) }, pair),
      ),
    };
  }

  /** The pair's terminal records, newest first; all that are kept unless `limit` is given. */
  async history(pair: string, limit?: number): Promise<TrackedOrder[]> {
    checkPair(pair, 'pair');
    const key = this.historyKey(pair);
    const entries = await this.#range(key, limit);
    return entries.map((json, i) => decodeOrder(json, { key, field: String(i) }, pair));
  }

  /** Live records by state; every state is present, terminal states are always 0. */
  async countsByState(pair: string): Promise<Record<OrderState, number>> {
    const counts = Object.fromEntries(ORDER_STATES.map((s) => [s, 0])) as Record<
      OrderState,
      number
    >;
    for (const order of await this.live(pair)) counts[order.state] += 1;
    return counts;
  }

  /** Pairs with a live record or a position, sorted. */
  async pairs(): Promise<string[]> {
    try {
      return (await this.#redis.smembers(this.pairsKey)).sort();
    } catch (err) {
      throw trackerError(err, this.pairsKey, `reading ${this.pairsKey}`);
    }
  }

  async #range(key: string, limit: number | undefined): Promise<string[]> {
    checkRangeLimit(limit);
    if (limit === 0) return [];
    try {
      return await this.#redis.lrange(key, 0, limit === undefined ? -1 : limit - 1);
    } catch (err) {
      throw trackerError(err, key, `reading ${key}`);
    }
  }

  // ---- writes (transactions on the tracker's own connection) ----

  /**
   * Upserts records by (pair, userref), all in one transaction. A record in a terminal state
   * leaves the live hash and is pushed onto its pair's history (capped at historyLimit). Records
   * of one call apply in order, so `[open, filled]` for one userref ends in the history.
   *
   * put never derives fills (applyView does) and never moves an order's execution backwards: when
   * the stored live record of the same order (equal txids, or one not known yet) has executed
   * more than the record given, its volumeExecuted, cost and fee are kept, so that a record built
   * from an older copy cannot make the next view count the same volume again. A stored record
   * that does not decode is overwritten (put is how a record gets repaired).
   */
  async put(orders: TrackedOrder | readonly TrackedOrder[], fence?: Fence): Promise<void> {
    const list: readonly unknown[] = Array.isArray(orders) ? orders : [orders];
    const checked = list.map((order, i) =>
      checkOrder(order, Array.isArray(orders) ? `orders[${i}]` : 'order'),
    );
    checkFence(fence);
    if (checked.length === 0) return;

    const pairs = [...new Set(checked.map((o) => o.pair))];
    const watched = pairs.flatMap((p) => [this.liveKey(p), this.positionKey(p)]);
    const mainKey = this.liveKey(pairs[0] as string);
    const reads: Reads = {
      keys: watched,
      build: (p) => {
        for (const pair of pairs) p.hgetall(this.liveKey(pair)).exists(this.positionKey(pair));
      },
    };
    await this.#transact(watched, fence, mainKey, `writing ${mainKey}`, reads, (replies) => {
      const writes: Array<(multi: ChainableCommander) => void> = [];
      pairs.forEach((p, i) => {
        const key = this.liveKey(p);
        const stored = new Map(Object.entries(replies[2 * i] as Record<string, string>));
        const hasPosition = (replies[2 * i + 1] as number) > 0;
        let terminal = 0;
        for (const given of checked.filter((o) => o.pair === p)) {
          const field = userrefField(given.userref);
          const record = keepExecution(given, storedRecord(given, stored.get(field), key, field));
          const json = encodeOrder(record);
          if (isTerminal(record)) {
            stored.delete(field);
            terminal += 1;
            writes.push((m) => this.#retire(m, record, json));
          } else {
            stored.set(field, json);
            writes.push((m) => m.hset(key, field, json));
          }
        }
        writes.push((m) => {
          if (terminal > 0) this.#trimHistory(m, p);
          this.#trackPair(m, p, stored.size > 0 || hasPosition);
          m.publish(this.changesChannel, p);
        });
      });
      return {
        result: undefined,
        changed: pairs,
        write: (m) => {
          for (const write of writes) write(m);
        },
      };
    });
  }

  /**
   * Applies a new view of one order (OpenOrders / QueryOrders: volumeExecuted, cost, fee, state).
   * When the stored live record of (pair, userref) executed less, the difference is a fill: it is
   * appended to the pair's fills, the pair's position is updated and the view is stored, all in
   * one transaction, and the fill is returned. Applying the same view again finds nothing more
   * executed and records nothing (idempotent); so does a second executor applying it at the same
   * time (its transaction retries and then sees the first one's write).
   *
   * With no stored live record the view is stored and no fill is recorded: what executed before
   * was never seen, so it cannot be told apart from what was already counted. Views that would
   * move the books backwards are dropped (nothing written, undefined returned): a view that
   * executed less than the stored record (an older snapshot), and a view of an order that already
   * went terminal (its userref is in the recent history). A view with a null txid keeps the
   * stored record's txid. A view whose txid differs from the stored record's is a different order
   * and is refused with InvalidInputError.
   */
  async applyView(view: TrackedOrder, atMs: number, fence?: Fence): Promise<Fill | undefined> {
    const given = checkOrder(view, 'view');
    checkAtMs(atMs);
    checkFence(fence);
    const { pair } = given;
    const key = this.liveKey(pair);
    const positionKey = this.positionKey(pair);
    const doneKey = this.doneRefsKey(pair);
    const field = userrefField(given.userref);
    const watched = [key, positionKey, doneKey];

    const reads: Reads = {
      keys: [key, key, positionKey, doneKey],
      build: (p) => p.hget(key, field).hlen(key).get(positionKey).zscore(doneKey, field),
    };
    return this.#transact(watched, fence, key, `applying a view to ${key}`, reads, (replies) => {
      const storedJson = replies[0] as string | null;
      const liveCount = replies[1] as number;
      const positionJson = replies[2] as string | null;
      const done = replies[3] !== null;

      const none: Plan<Fill | undefined> = { result: undefined };
      let record = given;
      let fill: Fill | undefined;
      if (storedJson === null) {
        if (done) return none;
      } else {
        const stored = decodeOrder(storedJson, { key, field }, pair, given.userref);
        checkSameOrder(stored, given);
        if (given.txid === null) record = { ...given, txid: stored.txid };
        if (dec(record.volumeExecuted).lt(dec(stored.volumeExecuted))) return none;
        fill = deriveFill(stored, record, atMs);
        if (fill === undefined && encodeOrder(record) === storedJson) return none;
      }

      const json = encodeOrder(record);
      const terminal = isTerminal(record);
      const position =
        fill === undefined
          ? undefined
          : applyFill(
              positionJson === null
                ? emptyPosition(pair)
                : decodePosition(positionJson, { key: positionKey }, pair),
              fill,
            );
      const liveAfter = liveCount + (storedJson === null ? 0 : -1) + (terminal ? 0 : 1);
      const hasPosition = positionJson !== null || position !== undefined;
      return {
        result: fill,
        changed: [pair],
        write: (m) => {
          if (fill !== undefined && position !== undefined) {
            const fillsKey = this.fillsKey(pair);
            m.lpush(fillsKey, encodeFill(fill));
            m.ltrim(fillsKey, 0, this.#fillsLimit - 1);
            m.set(positionKey, encodePosition(position));
          }
          if (terminal) {
            this.#retire(m, record, json);
            this.#trimHistory(m, pair);
          } else {
            m.hset(key, field, json);
          }
          this.#trackPair(m, pair, liveAfter > 0 || hasPosition);
          m.publish(this.changesChannel, pair);
        },
      };
    });
  }

  /**
   * The final exchange views (ClosedOrders) of orders already retired to one pair's history:
   * executions between our last view and their cancel show only here. For each view whose order
   * executed more than its history entry says, the difference is recorded as a fill and the entry
   * updated (its state too, when the view is final: an order retired as gone may turn out filled);
   * views that add nothing write nothing. One transaction for all of them, which reads the history
   * once: a full sync settles every order closed since the last one, and reading and decoding the
   * whole history per order made each sync a burst of CPU and garbage. Only the newest
   * `historyLimit` entries are searched; a view settles the newest entry with its txid, which must
   * hold its userref.
   * Returns the fills, in the order of `views`.
   */
  async settle(
    views: readonly TrackedOrder[],
    atMs: number | ((view: TrackedOrder) => number),
    fence?: Fence,
  ): Promise<Fill[]> {
    const given = views.map((v, i) => checkOrder(v, `views[${i}]`));
    const timeOf = typeof atMs === 'number' ? () => atMs : atMs;
    checkFence(fence);
    const pair = settledPair(given);
    if (pair === undefined) return [];
    const key = this.historyKey(pair);
    const positionKey = this.positionKey(pair);
    const reads: Reads = {
      keys: [key, positionKey],
      build: (p) => p.lrange(key, 0, -1).get(positionKey),
    };
    return this.#transact([key, positionKey], fence, key, `settling ${key}`, reads, (replies) => {
      const entries = replies[0] as string[];
      const positionJson = replies[1] as string | null;
      const wanted = new Set(given.map((v) => v.txid));
      const indexOf = new Map<string, number>();
      entries.forEach((json, i) => {
        const txid = peekTxid(json);
        if (txid !== undefined && wanted.has(txid) && !indexOf.has(txid)) indexOf.set(txid, i);
      });
      let position: Position | undefined;
      const fills: Fill[] = [];
      // Entries settled by an earlier view of this call: a later view of the same order counts
      // only what it executed beyond that one.
      const updates = new Map<number, TrackedOrder>();
      for (const view of given) {
        const index = view.txid === null ? undefined : indexOf.get(view.txid);
        if (index === undefined) continue;
        const stored =
          updates.get(index) ?? decodeOrder(entries[index] as string, { key }, pair, undefined);
        if (stored.userref !== view.userref) continue;
        if (!dec(view.volumeExecuted).gt(dec(stored.volumeExecuted))) continue;
        const fill = deriveFill(stored, { ...view, state: stored.state }, timeOf(view));
        if (fill === undefined) continue;
        position = applyFill(
          position ??
            (positionJson === null
              ? emptyPosition(pair)
              : decodePosition(positionJson, { key: positionKey }, pair)),
          fill,
        );
        fills.push(fill);
        updates.set(index, settledEntry(stored, view, timeOf(view)));
      }
      if (position === undefined) return { result: [] };
      const settled = position;
      return {
        result: fills,
        changed: [pair],
        write: (m) => {
          const fillsKey = this.fillsKey(pair);
          for (const fill of fills) m.lpush(fillsKey, encodeFill(fill));
          m.ltrim(fillsKey, 0, this.#fillsLimit - 1);
          m.set(positionKey, encodePosition(settled));
          for (const [index, entry] of updates) m.lset(key, index, encodeOrder(entry));
          this.#trackPair(m, pair, true);
          m.publish(this.changesChannel, pair);
        },
      };
    });
  }

  /** Closes the tracker's transaction connection (not the caller's client). Safe to call twice. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      await this.#chain;
      const tx = this.#tx;
      this.#tx = undefined;
      if (tx === undefined || tx.redis.status === 'end') return;
      try {
        await tx.redis.quit();
      } catch {
        tx.redis.disconnect();
      }
    })();
    return this.#closing;
  }

  /** Takes a terminal record out of the live hash and onto the history and the done-refs. */
  #retire(m: ChainableCommander, record: TrackedOrder, json: string): void {
    m.hdel(this.liveKey(record.pair), userrefField(record.userref));
    m.lpush(this.historyKey(record.pair), json);
    m.zadd(this.doneRefsKey(record.pair), record.updatedAtMs, userrefField(record.userref));
  }

  #trimHistory(m: ChainableCommander, pair: string): void {
    m.ltrim(this.historyKey(pair), 0, this.#historyLimit - 1);
    m.zremrangebyrank(this.doneRefsKey(pair), 0, -(this.#historyLimit + 1));
  }

  #trackPair(m: ChainableCommander, pair: string, tracked: boolean): void {
    if (tracked) m.sadd(this.pairsKey, pair);
    else m.srem(this.pairsKey, pair);
  }

  #connection(): TxConnection {
    if (this.#tx !== undefined) return this.#tx;
    const redis = this.#redis.duplicate({ maxRetriesPerRequest: 0, enableOfflineQueue: true });
    const tx: TxConnection = { redis, closes: 0 };
    // Failures reach the caller through the rejected commands; the event would only be logged.
    redis.on('error', () => undefined);
    redis.on('close', () => {
      tx.closes += 1;
    });
    this.#tx = tx;
    return tx;
  }

  /** Runs `fn` after every transaction queued before it, whatever their outcome. */
  #serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.#chain.then(fn);
    this.#chain = run.catch(() => undefined);
    return run;
  }

  /**
   * One optimistic transaction: WATCH `watched` (and the fence key), check the fence, let `step`
   * read and decide, then MULTI/EXEC its writes. Starts over when EXEC answers null or the
   * connection closed since the WATCH; gives up after MAX_ATTEMPTS with TRACKER_UNAVAILABLE.
   */
  #transact<T>(
    watched: readonly string[],
    fence: Fence | undefined,
    mainKey: string,
    doing: string,
    reads: Reads,
    plan: (replies: unknown[]) => Plan<T>,
  ): Promise<T> {
    return this.#serial(async () => {
      if (this.#closing !== undefined) throw new Error('the order tracker is closed');
      const keys = fence === undefined ? [...watched] : [...watched, fence.key];
      for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
        const tx = this.#connection();
        const conn = tx.redis;
        let watching = false;
        try {
          const closes = tx.closes;
          watching = true;
          // One round trip: the connection runs WATCH, the fence read and the reads in order, so
          // all of them are read under the watch.
          const pipeline = conn.pipeline().watch(...keys);
          if (fence !== undefined) pipeline.get(fence.key);
          reads.build(pipeline);
          const replies = await this.#execReads(pipeline, [
            keys[0] ?? mainKey,
            ...(fence === undefined ? [] : [fence.key]),
            ...reads.keys,
          ]);
          const held = fence === undefined ? undefined : replies[1];
          if (fence !== undefined && held !== fence.token) {
            throw new TrackerError(
              'TRACKER_FENCED',
              fence.key,
              undefined,
              `${doing}: fence ${fence.key} ${held === null ? 'is not set' : "holds another writer's token"}; nothing was written`,
            );
          }
          const planned = plan(replies.slice(fence === undefined ? 1 : 2));
          if (planned.write === undefined) {
            watching = false;
            await conn.unwatch();
            return planned.result;
          }
          // Checked in the same tick as the MULTI is written: no close can fall in between.
          if (tx.closes !== closes || conn.status !== 'ready') continue;
          const multi = conn.multi();
          planned.write(multi);
          watching = false;
          const results = await multi.exec();
          if (results === null) {
            await sleep(Math.random() * 2 * attempt);
            continue;
          }
          const failed = results.find(([error]) => error !== null)?.[0];
          if (failed !== undefined && failed !== null) throw failed;
          for (const pair of planned.changed ?? []) this.#changes.tell(pair);
          return planned.result;
        } catch (err) {
          if (watching) await conn.unwatch().catch(() => undefined);
          throw trackerError(err, mainKey, doing);
        }
      }
      throw new TrackerError(
        'TRACKER_UNAVAILABLE',
        mainKey,
        undefined,
        `${doing}: other writers kept changing ${keys.join(', ')} through ${MAX_ATTEMPTS} attempts`,
      );
    });
  }

  /** Runs a read pipeline; `keys[i]` names the key of command i in errors. */
  async #execReads(pipeline: ChainableCommander, keys: readonly string[]): Promise<unknown[]> {
    const replies = await pipeline.exec();
    if (replies === null) {
      throw new TrackerError('TRACKER_UNAVAILABLE', keys[0] ?? '', undefined, 'no reply');
    }
    return replies.map(([error, result], i) => {
      const key = keys[Math.min(i, keys.length - 1)] ?? '';
      if (error !== null) throw trackerError(error, key, `reading ${key}`);
      return result;
    });
  }
}

/** The stored live entry of `given`'s userref, decoded; one that does not decode is replaced. */
function storedRecord(
  given: TrackedOrder,
  storedJson: string | undefined,
  key: string,
  field: string,
): TrackedOrder | undefined {
  if (storedJson === undefined) return undefined;
  try {
    return decodeOrder(storedJson, { key, field }, given.pair, given.userref);
  } catch (err) {
    if (err instanceof TrackerError && err.code === 'TRACKER_CORRUPT') return undefined;
    throw err;
  }
}
