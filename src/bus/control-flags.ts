import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import {
  InvalidInputError,
  errorMessage,
  sleepToNext,
  systemClock,
  type Clock,
} from '../core/index.js';
import {
  checkPrefix,
  closeRedis,
  dropSubscriber,
  openRedis,
  type BusConnection,
  type OpenedRedis,
} from './connection.js';
import { BusError, busError } from './errors.js';

import { NOT_READ, ROLES, type ControlFlags, type HaltState, type Role } from './flags.js';

export interface ControlFlagsOptions {
  /** A caller's ioredis client (left open by close()), or options / a URL for one of our own. */
  readonly connection: BusConnection;
  /** Default `makerd`. */
  readonly prefix?: string;
  /** Stamps the state epoch (default the system clock). */
  readonly clock?: Clock;
  /**
   * Called when a read finds that Redis lost makerd's state since the last read (restarted
   * empty, or flushed): `haltRestored` says whether the halt flag this process knew was set again.
   */
  readonly onStateLost?: (info: { haltRestored: boolean }) => void;
  /**
   * Whether watch() also subscribes to changesChannel (default true). A replay's flag changes are
   * its own, and a subscriber's messages and close come on the wall clock, which its manual clock
   * does not wait for.
   */
  readonly subscribe?: boolean;
}

/** What the epoch key holds: who created makerd's state in this Redis, and when. */
interface Epoch {
  readonly raw: string;
  readonly sinceMs: number;
}

/**
 * Roles beat this often, each beat living BEAT_TTL_MS: a role two beats late is taken for dead
 * (the supervisor then stops the dead-man heartbeats).
 */
export const BEAT_EVERY_MS = 5_000;
export const BEAT_TTL_MS = 15_000;

/** The changes channel's message for a confirmed CancelAll: this prefix, then its time in ms. */
const CANCELLED_ALL = 'cancelled-all:';

/**
 * The halt flag every role obeys, and the liveness beats the supervisor checks. The flag is one
 * Redis key so that any process (supervisor, `makerd halt`, another machine) can set it; hot paths
 * read a cached copy through current(), kept fresh by watch(), instead of awaiting Redis. halt()
 * and resume() also PUBLISH on changesChannel, so a watcher reads the flag as soon as it changes
 * and its poll is only the fallback (a flag set by hand in redis-cli, a message lost).
 *
 * Fail closed: before the first read, and when the key holds something unreadable, the state is
 * halted. A halt set by hand with garbage still stops trading; an operator clears it with resume().
 */
export class RedisControlFlags implements ControlFlags {
  readonly #conn: OpenedRedis;
  readonly #prefix: string;
  #state: HaltState = NOT_READ;
  /** Orders cache updates: a read that started before a halt() must not undo its update. */
  #issued = 0;
  #applied = 0;
  #watch: { controller: AbortController; loop: Promise<void>; sub: Redis | undefined } | undefined;
  #closing: Promise<void> | undefined;
  readonly #clock: Clock;
  readonly #onStateLost: ControlFlagsOptions['onStateLost'];
  readonly #subscribes: boolean;
  /** The state epoch the last read saw; undefined before the first. */
  #epoch: Epoch | undefined;
  /** The recovery from a lost epoch under way (read()), which other reads wait for. */
  #recovering: Promise<HaltState> | undefined;
  readonly #cancelledAllListeners: ((atMs: number) => void)[] = [];

  constructor(options: ControlFlagsOptions) {
    this.#prefix = checkPrefix(options.prefix ?? 'makerd', 'prefix');
    this.#conn = openRedis(options.connection);
    this.#clock = options.clock ?? systemClock;
    this.#onStateLost = options.onStateLost;
    this.#subscribes = options.subscribe ?? true;
  }

  get prefix(): string {
    return this.#prefix;
  }

  get haltKey(): string {
    return `${this.#prefix}:control:halt`;
  }

  /** Pub/sub channel told of every halt, resume and restored halt: watchers read on a message. */
  get changesChannel(): string {
    return `${this.#prefix}:control:changes`;
  }

  /**
   * Created once with makerd's state in this Redis; its disappearance (or replacement) between
   * two reads means Redis lost everything else too: the halt flag, leases, the tracker's orders,
   * fills and positions, the ratecount model.
   */
  get epochKey(): string {
    return `${this.#prefix}:control:epoch`;
  }

  /** Since when this Redis holds makerd's state (the epoch's creation), as the last read saw. */
  get stateSinceMs(): number | undefined {
    return this.#epoch?.sinceMs;
  }

  aliveKey(role: Role): string {
    return `${this.#prefix}:alive:${role}`;
  }

  /**
   * Sets the flag. Returns false, and keeps the first halt's reason and time, when already
   * halted: the first cause is the one an operator needs to see.
   */
  async halt(reason: string, by: string, nowMs: number): Promise<boolean> {
    nonEmpty(reason, 'reason');
    nonEmpty(by, 'by');
    checkTime(nowMs, 'nowMs');
    const ticket = ++this.#issued;
    const value = JSON.stringify({ reason, by, sinceMs: nowMs });
    let set: string | null;
    try {
      set = await this.#conn.redis.set(this.haltKey, value, 'NX');
    } catch (err) {
      throw busError(err, this.haltKey, 'setting the halt flag');
    }
    if (set !== 'OK') {
      // Someone else halted first: learn their reason rather than cache ours.
      await this.read();
      return false;
    }
    this.#apply(ticket, { halted: true, reason, by, sinceMs: nowMs });
    await this.#publish('halt');
    return true;
  }

  /**
   * Clears the flag; returns the halt it cleared (`halted: false`: there was none). GET and DEL go
   * in one transaction, so the halt reported is the one removed whoever else acts meanwhile.
   */
  async resume(): Promise<HaltState> {
    const ticket = ++this.#issued;
    let got: [Error | null, unknown] | undefined;
    try {
      const replies = await this.#conn.redis.multi().get(this.haltKey).del(this.haltKey).exec();
      got = replies?.[0];
    } catch (err) {
      throw busError(err, this.haltKey, 'clearing the halt flag');
    }
    this.#apply(ticket, { halted: false });
    const raw = got?.[1];
    // A key of another type fails GET (WRONGTYPE) and is deleted all the same.
    const cleared: HaltState =
      got?.[0] !== null && got?.[0] !== undefined
        ? { halted: true, reason: errorMessage(got[0]), by: 'makerd' }
        : typeof raw === 'string'
          ? clearedHalt(raw, this.haltKey)
          : { halted: false };
    if (cleared.halted) await this.#publish('resume');
    return cleared;
  }

  async cancelledAll(atMs: number): Promise<void> {
    checkTime(atMs, 'atMs');
    await this.#publish(`${CANCELLED_ALL}${atMs}`);
  }

  onCancelledAll(listener: (atMs: number) => void): void {
    this.#cancelledAllListeners.push(listener);
  }

  /**
   * Tells watchers the flag changed. Best effort: the flag itself is written, and a watcher that
   * misses the message reads it at its next poll.
   */
  async #publish(what: string): Promise<void> {
    await this.#conn.redis.publish(this.changesChannel, what).catch(() => undefined);
  }

  /**
   * Reads the flag from Redis (and refreshes current()). Rejects only when Redis fails. When the
   * state epoch changed since the last read, Redis lost makerd's state: a halt this process knew
   * of is set again (fail closed: a lost flag must not resume trading) and onStateLost is told.
   */
  async read(): Promise<HaltState> {
    const ticket = ++this.#issued;
    let raw: string | null;
    let epochRaw: string | null;
    let state: HaltState;
    try {
      // Two GETs in one round trip; not MGET, which reads a key of another type as nil where GET
      // fails (WRONGTYPE) and the flag must then read as halted.
      const replies = await this.#conn.redis.pipeline().get(this.haltKey).get(this.epochKey).exec();
      const [halt, epoch] = replies ?? [];
      if (halt?.[0]) throw halt[0];
      raw = (halt?.[1] as string | null | undefined) ?? null;
      epochRaw = (epoch?.[1] as string | null | undefined) ?? null;
      state = raw === null ? { halted: false } : parseHalt(raw, this.haltKey);
    } catch (err) {
      const error = busError(err, this.haltKey, 'reading the halt flag');
      if (error.code !== 'BUS_CORRUPT') throw error;
      state = { halted: true, reason: error.message, by: 'makerd' };
      epochRaw = this.#epoch?.raw ?? null;
    }
    if (epochRaw === null || epochRaw !== this.#epoch?.raw) {
      // Two reads in flight can both find the epoch gone; the second may even read the halt the
      // first just set again, and would report it lost. One recovers; the other reads again.
      if (this.#recovering !== undefined) {
        await this.#recovering.catch(() => undefined);
        return this.read();
      }
      const recovering = this.#recover(state, epochRaw);
      this.#recovering = recovering;
      try {
        state = await recovering;
      } finally {
        this.#recovering = undefined;
      }
    }
    this.#apply(ticket, state);
    return state;
  }

  /** A new epoch, and a halt this process knew set again if Redis lost it; the state then. */
  async #recover(state: HaltState, epochRaw: string | null): Promise<HaltState> {
    const lost = this.#epoch !== undefined;
    const known = this.#state;
    let haltRestored = false;
    let now = state;
    if (lost && !state.halted && known.halted && known !== NOT_READ) {
      await this.#restoreHalt(known);
      now = known;
      haltRestored = true;
    }
    this.#epoch = await this.#ensureEpoch(epochRaw);
    if (lost) this.#onStateLost?.({ haltRestored });
    return now;
  }

  async #restoreHalt(known: HaltState): Promise<void> {
    const value = JSON.stringify({ reason: known.reason, by: known.by, sinceMs: known.sinceMs });
    try {
      await this.#conn.redis.set(this.haltKey, value, 'NX');
    } catch (err) {
      throw busError(err, this.haltKey, 'restoring the halt flag');
    }
    await this.#publish('halt');
  }

  /** The epoch in Redis, created now when there is none. */
  async #ensureEpoch(found: string | null): Promise<Epoch> {
    let raw = found;
    try {
      if (raw === null) {
        const mine = JSON.stringify({ sinceMs: Math.floor(this.#clock.now()), id: randomUUID() });
        const set = await this.#conn.redis.set(this.epochKey, mine, 'NX');
        raw = set === 'OK' ? mine : await this.#conn.redis.get(this.epochKey);
      }
    } catch (err) {
      throw busError(err, this.epochKey, 'creating the state epoch');
    }
    return { raw: raw ?? '', sinceMs: epochSince(raw) };
  }

  /** The last state seen, without I/O; halted until the first read. */
  current(): HaltState {
    return this.#state;
  }

  /**
   * Keeps current() fresh until unwatch(): reads the flag on every message on changesChannel (a
   * subscription, unless the options say not, on a connection of its own, re-made and followed by a read after each reconnect,
   * since messages sent meanwhile are lost) and polls it every `intervalMs` of `clock` as the
   * fallback. Resolves after the first poll, so current() is meaningful once it has been awaited.
   * A failed read keeps the last state and goes to `onError`; the supervisor's dead-man switch
   * covers a Redis that stays away.
   */
  async watch(
    intervalMs: number,
    clock: Clock = systemClock,
    onError: (err: unknown) => void = () => undefined,
  ): Promise<void> {
    if (!Number.isFinite(intervalMs) || intervalMs <= 0) {
      throw new InvalidInputError('intervalMs', `must be a positive number, got ${intervalMs}`);
    }
    if (this.#watch !== undefined) throw new Error('ControlFlags.watch() is already running');
    const controller = new AbortController();
    const sub = this.#subscribes ? this.#subscribe(onError) : undefined;
    let firstDone!: () => void;
    const first = new Promise<void>((resolve) => (firstDone = resolve));
    const loop = (async () => {
      while (!controller.signal.aborted) {
        try {
          await this.read();
        } catch (err) {
          onError(err);
        }
        firstDone();
        try {
          await sleepToNext(clock, intervalMs, controller.signal);
        } catch {
          return;
        }
      }
    })();
    this.#watch = { controller, loop, sub };
    await first;
  }

  /**
   * The subscriber: SUBSCRIBE at every (re)connect, then a read for what changed while it was
   * away. Its own connection errors are left to the polls, which report Redis trouble.
   */
  #subscribe(onError: (err: unknown) => void): Redis {
    const sub = this.#conn.redis.duplicate({
      lazyConnect: true,
      autoResubscribe: false,
      maxRetriesPerRequest: null,
      // Names it in CLIENT LIST, beside the subscribers of other prefixes.
      connectionName: `${this.#prefix}:control-watch`,
    });
    const readNow = (): void => void this.read().catch(onError);
    sub.on('error', () => undefined);
    sub.on('message', (channel: string, message: string) => {
      if (channel !== this.changesChannel) return;
      if (!message.startsWith(CANCELLED_ALL)) {
        readNow();
        return;
      }
      const atMs = Number(message.slice(CANCELLED_ALL.length));
      for (const listener of this.#cancelledAllListeners) listener(atMs);
    });
    sub.on('ready', () => {
      sub.subscribe(this.changesChannel).then(readNow, () => undefined);
    });
    sub.connect().catch(() => undefined);
    return sub;
  }

  /** Stops polling and the subscription; resolves once the loop has ended, no timer left behind. */
  async unwatch(): Promise<void> {
    const watch = this.#watch;
    if (watch === undefined) return;
    this.#watch = undefined;
    watch.controller.abort(new Error('unwatch'));
    await watch.loop;
    if (watch.sub !== undefined) await dropSubscriber(watch.sub);
  }

  /** Proves `role` is alive for `ttlMs`; the key vanishes if no beat follows. */
  async beat(role: Role, nowMs: number, ttlMs: number): Promise<void> {
    const key = this.aliveKey(checkRole(role));
    if (!Number.isSafeInteger(nowMs) || nowMs < 0) {
      throw new InvalidInputError('nowMs', `must be a non-negative integer, got ${nowMs}`);
    }
    checkTtl(ttlMs);
    try {
      await this.#conn.redis.set(key, String(nowMs), 'PX', ttlMs);
    } catch (err) {
      throw busError(err, key, `beating for ${role}`);
    }
  }

  /** The time of `role`'s last beat still within its ttl, or undefined. */
  async alive(role: Role): Promise<number | undefined> {
    const key = this.aliveKey(checkRole(role));
    let raw: string | null;
    try {
      raw = await this.#conn.redis.get(key);
    } catch (err) {
      throw busError(err, key, `reading the beat of ${role}`);
    }
    if (raw === null) return undefined;
    if (!/^\d{1,16}$/.test(raw) || !Number.isSafeInteger(Number(raw))) {
      throw new BusError(
        'BUS_CORRUPT',
        key,
        undefined,
        `Redis key ${key} holds ${raw.slice(0, 40)}`,
      );
    }
    return Number(raw);
  }

  statusKey(role: string): string {
    return `${this.#prefix}:status:${role}`;
  }

  /**
   * Publishes a role's status for `makerd status` and the admin endpoint in other processes; it
   * vanishes after `ttlMs` unless reported again, so a dead role's last words are not shown as now.
   */
  async report(role: string, status: object, ttlMs: number): Promise<void> {
    nonEmpty(role, 'role');
    checkTtl(ttlMs);
    const key = this.statusKey(role);
    try {
      await this.#conn.redis.set(key, JSON.stringify(status), 'PX', ttlMs);
    } catch (err) {
      throw busError(err, key, `reporting the status of ${role}`);
    }
  }

  /** A role's last status report still within its ttl, or undefined. */
  async reported(role: string): Promise<Record<string, unknown> | undefined> {
    nonEmpty(role, 'role');
    const key = this.statusKey(role);
    let raw: string | null;
    try {
      raw = await this.#conn.redis.get(key);
    } catch (err) {
      throw busError(err, key, `reading the status of ${role}`);
    }
    if (raw === null) return undefined;
    try {
      const value: unknown = JSON.parse(raw);
      if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
        return value as Record<string, unknown>;
      }
    } catch {
      // Reported below as corrupt.
    }
    throw new BusError('BUS_CORRUPT', key, undefined, `Redis key ${key} holds ${raw.slice(0, 40)}`);
  }

  /** Stops watching and closes the connection if we opened it. Safe to call twice. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      await this.unwatch();
      await closeRedis(this.#conn);
    })();
    return this.#closing;
  }

  #apply(ticket: number, state: HaltState): void {
    if (ticket < this.#applied) return;
    this.#applied = ticket;
    this.#state = state;
  }
}

/** The epoch's creation time; NaN when someone wrote something else there. */
function epochSince(raw: string | null): number {
  try {
    return Number((JSON.parse(raw ?? '{}') as { sinceMs?: unknown }).sinceMs);
  } catch {
    return NaN;
  }
}

/** The halt a resume removed; one that did not parse, as read() would have shown it. */
function clearedHalt(raw: string, key: string): HaltState {
  try {
    return parseHalt(raw, key);
  } catch (err) {
    return { halted: true, reason: errorMessage(err), by: 'makerd' };
  }
}

function parseHalt(raw: string, key: string): HaltState {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    value = undefined;
  }
  const v = value as { reason?: unknown; by?: unknown; sinceMs?: unknown } | undefined;
  if (
    typeof v !== 'object' ||
    v === null ||
    typeof v.reason !== 'string' ||
    typeof v.by !== 'string' ||
    !Number.isSafeInteger(v.sinceMs)
  ) {
    throw new BusError(
      'BUS_CORRUPT',
      key,
      undefined,
      `halt flag at Redis key ${key} is unreadable: ${raw.slice(0, 40)}`,
    );
  }
  return { halted: true, reason: v.reason, by: v.by, sinceMs: v.sinceMs as number };
}

export function checkTime(ms: number, field: string): void {
  if (!Number.isSafeInteger(ms) || ms < 0) {
    throw new InvalidInputError(field, `must be a non-negative integer, got ${ms}`);
  }
}

export function nonEmpty(value: string, field: string): void {
  if (typeof value !== 'string' || value.length === 0) {
    throw new InvalidInputError(field, 'must be a non-empty string');
  }
}

export function checkRole(role: Role): Role {
  if (!ROLES.includes(role)) {
    throw new InvalidInputError('role', `must be runner or executor, got ${JSON.stringify(role)}`);
  }
  return role;
}

export function checkTtl(ttlMs: number): void {
  if (!Number.isSafeInteger(ttlMs) || ttlMs <= 0) {
    throw new InvalidInputError('ttlMs', `must be a positive integer, got ${ttlMs}`);
  }
}
