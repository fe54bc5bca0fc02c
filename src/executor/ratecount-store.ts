import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { MatchingEngineLimits } from '../exchange/limits/index.js';
import { FIT_EPSILON, msUntilFits } from '../exchange/limits/index.js';
import { ExecutorError } from './errors.js';

/**
 * The (key, pair) ratecount mirror in Redis (DESIGN.md §3.4): the level the exchange's counter
 * has by our model, shared by every process that sends order entry or CancelAll with the key.
 * Stored as {count, at}; decay is applied when read, in one script, so a reserve by one process
 * and an add by another (the supervisor's CancelAll) can never both spend the same points.
 */

/** Base of the Redis keys for an API key's ratecounts; the key itself is hashed, never stored. */
export function ratecountKeyFor(apiKey: string): string {
  return `makerd:ratecount:${createHash('sha256').update(apiKey, 'utf8').digest('hex').slice(0, 16)}`;
}

export interface RatecountReading {
  /** Level after the operation (before it for a refused reserve). */
  readonly level: number;
  /** For reserve: whether the points were taken. */
  readonly ok: boolean;
  /** For a refused reserve: ms until the points fit under the limit. */
  readonly waitMs: number;
}

// ARGV: now, decay per sec, points, limit, op (read | reserve | add | fill), floor.
// Reply: { ok, level, seeded }. With no state in Redis the level starts at `floor` (seeded = 1).
const SCRIPT = `
local now, decay, points, limit = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local op, floor = ARGV[5], tonumber(ARGV[6])
local stored = redis.call('HGET', KEYS[1], 'count')
local count = tonumber(stored or ARGV[6]) or 0
local at = tonumber(redis.call('HGET', KEYS[1], 'at') or ARGV[1]) or 0
local seeded = 0
if not stored and floor > 0 then seeded = 1 end
local level = count
if now > at then level = math.max(0, count - decay * (now - at) / 1000) end
local function store(v)
  redis.call('HSET', KEYS[1], 'count', string.format('%.6f', v), 'at', string.format('%d', math.max(at, now)))
  redis.call('PEXPIRE', KEYS[1], 86400000)
  return v
end
if op == 'reserve' then
  if level + points > limit + ${FIT_EPSILON} then return { 0, string.format('%.6f', level), seeded } end
  return { 1, string.format('%.6f', store(level + points)), seeded }
elseif op == 'add' then
  -- A refund (negative points) of points that decayed meanwhile stops at zero, as the exchange's.
  return { 1, string.format('%.6f', store(math.max(0, level + points))), seeded }
elseif op == 'fill' then
  return { 1, string.format('%.6f', store(math.max(level, limit))), seeded }
end
return { 1, string.format('%.6f', level), seeded }
`;

/**
 * The (key, pair) ratecount model the executor spends and the supervisor's CancelAll adds to. Two
 * implementations keep one contract (test/stores): RedisRatecountStore, shared by every process on
 * the key, and MemoryRatecountStore for one process (the replay).
 */
export interface RatecountStore {
  readonly limits: MatchingEngineLimits;
  level(pair: string, nowMs: number): Promise<RatecountReading>;
  /** Takes `points` if the level stays within `limit` (max − headroom); else says how long to wait. */
  reserve(pair: string, points: number, limit: number, nowMs: number): Promise<RatecountReading>;
  /** Adds points whatever the level: those the exchange charges anyway (batch cancels, CancelAll). */
  add(pair: string, points: number, nowMs: number): Promise<RatecountReading>;
  /** The exchange said the ratecount is over: assume it is at least full. */
  fill(pair: string, nowMs: number): Promise<RatecountReading>;
  /** Gives back points reserved for a call that was refused before the engine or never sent. */
  refund(pair: string, points: number, nowMs: number): Promise<RatecountReading>;
}

export type RatecountOp = 'read' | 'reserve' | 'add' | 'fill';

/** The five operations as one primitive, `run`, which each store implements. */
export abstract class RatecountOps implements RatecountStore {
  abstract readonly limits: MatchingEngineLimits;

  protected abstract run(
    pair: string,
    nowMs: number,
    points: number,
    limit: number,
    op: RatecountOp,
  ): Promise<RatecountReading>;

  level(pair: string, nowMs: number): Promise<RatecountReading> {
    return this.run(pair, nowMs, 0, this.limits.max, 'read');
  }

  reserve(pair: string, points: number, limit: number, nowMs: number): Promise<RatecountReading> {
    return this.run(pair, nowMs, points, limit, 'reserve');
  }

  add(pair: string, points: number, nowMs: number): Promise<RatecountReading> {
    return this.run(pair, nowMs, points, this.limits.max, 'add');
  }

  fill(pair: string, nowMs: number): Promise<RatecountReading> {
    return this.run(pair, nowMs, 0, this.limits.max, 'fill');
  }

  refund(pair: string, points: number, nowMs: number): Promise<RatecountReading> {
    return this.run(pair, nowMs, -points, this.limits.max, 'add');
  }
}

/**
 * The mirror is shared through Redis; each store also keeps the last level it read or wrote per
 * pair. If Redis loses the key (restarted empty) while this process runs, the model goes on from
 * that level, decayed, instead of from zero: the exchange's counter did not restart, and a model
 * below it earns `EOrder:Rate limit exceeded` (issue #32 item 5).
 */
export class RedisRatecountStore extends RatecountOps {
  readonly #redis: Redis;
  readonly #base: string;
  readonly #onSeeded: ((pair: string, level: number) => void) | undefined;
  readonly #last = new Map<string, { level: number; atMs: number }>();
  readonly limits: MatchingEngineLimits;

  /**
   * `base` is ratecountKeyFor(apiKey), or another non-secret name (tests). `onSeeded` is told
   * when a pair's state was missing from Redis and the model restarted from this store's own.
   */
  constructor(
    redis: Redis,
    base: string,
    limits: MatchingEngineLimits,
    onSeeded?: (pair: string, level: number) => void,
  ) {
    super();
    this.#redis = redis;
    this.#base = base;
    this.limits = limits;
    this.#onSeeded = onSeeded;
  }

  key(pair: string): string {
    return `${this.#base}:${pair}`;
  }

  protected async run(
    pair: string,
    nowMs: number,
    points: number,
    limit: number,
    op: RatecountOp,
  ): Promise<RatecountReading> {
    const key = this.key(pair);
    let reply: unknown;
    try {
      reply = await this.#redis.eval(
        SCRIPT,
        1,
        key,
        String(Math.floor(nowMs)),
        String(this.limits.decayPerSec),
        String(points),
        String(limit),
        op,
        this.#floor(pair, nowMs).toFixed(6),
      );
    } catch (err) {
      throw new ExecutorError('EXECUTOR_REDIS', `ratecount script on ${key} failed`, err);
    }
    if (!Array.isArray(reply) || reply.length !== 3) {
      throw new ExecutorError('EXECUTOR_REDIS', `ratecount script on ${key} answered oddly`);
    }
    const ok = reply[0] === 1;
    const level = Number(reply[1]);
    if (reply[2] === 1) this.#onSeeded?.(pair, level);
    // The level is the stored time's, never earlier than the last (a charge dated back included).
    this.#last.set(pair, { level, atMs: Math.max(nowMs, this.#last.get(pair)?.atMs ?? nowMs) });
    return {
      ok,
      level,
      waitMs: ok ? 0 : msUntilFits(level, this.limits.decayPerSec, points, limit),
    };
  }

  /** This store's last level for the pair, decayed to `nowMs`; 0 when it has none. */
  #floor(pair: string, nowMs: number): number {
    const last = this.#last.get(pair);
    if (last === undefined) return 0;
    const elapsedMs = Math.max(0, nowMs - last.atMs);
    return Math.max(0, last.level - (this.limits.decayPerSec * elapsedMs) / 1000);
  }
}
