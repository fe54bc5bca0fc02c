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

// ARGV: now, decay per sec, points, limit, op (read | reserve | add | fill). Reply: { ok, level }.
const SCRIPT = `
local now, decay, points, limit = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local op = ARGV[5]
local count = tonumber(redis.call('HGET', KEYS[1], 'count') or '0') or 0
local at = tonumber(redis.call('HGET', KEYS[1], 'at') or '0') or 0
local level = count
if now > at then level = math.max(0, count - decay * (now - at) / 1000) end
local function store(v)
  redis.call('HSET', KEYS[1], 'count', string.format('%.6f', v), 'at', string.format('%d', math.max(at, now)))
  redis.call('PEXPIRE', KEYS[1], 86400000)
  return v
end
if op == 'reserve' then
  if level + points > limit + ${FIT_EPSILON} then return { 0, string.format('%.6f', level) } end
  return { 1, string.format('%.6f', store(level + points)) }
elseif op == 'add' then
  -- A refund (negative points) of points that decayed meanwhile stops at zero, as the exchange's.
  return { 1, string.format('%.6f', store(math.max(0, level + points))) }
elseif op == 'fill' then
  return { 1, string.format('%.6f', store(math.max(level, limit))) }
end
return { 1, string.format('%.6f', level) }
`;

export class RatecountStore {
  readonly #redis: Redis;
  readonly #base: string;
  readonly limits: MatchingEngineLimits;

  /** `base` is ratecountKeyFor(apiKey), or another non-secret name (tests). */
  constructor(redis: Redis, base: string, limits: MatchingEngineLimits) {
    this.#redis = redis;
    this.#base = base;
    this.limits = limits;
  }

  key(pair: string): string {
    return `${this.#base}:${pair}`;
  }

  level(pair: string, nowMs: number): Promise<RatecountReading> {
    return this.#run(pair, nowMs, 0, this.limits.max, 'read');
  }

  /** Takes `points` if the level stays within `limit` (max − headroom); else says how long to wait. */
  reserve(pair: string, points: number, limit: number, nowMs: number): Promise<RatecountReading> {
    return this.#run(pair, nowMs, points, limit, 'reserve');
  }

  /** Adds points whatever the level: those the exchange charges anyway (batch cancels, CancelAll). */
  add(pair: string, points: number, nowMs: number): Promise<RatecountReading> {
    return this.#run(pair, nowMs, points, this.limits.max, 'add');
  }

  /** The exchange said the ratecount is over: assume it is at least full. */
  fill(pair: string, nowMs: number): Promise<RatecountReading> {
    return this.#run(pair, nowMs, 0, this.limits.max, 'fill');
  }

  /** Gives back points reserved for a call that was refused before the engine or never sent. */
  refund(pair: string, points: number, nowMs: number): Promise<RatecountReading> {
    return this.#run(pair, nowMs, -points, this.limits.max, 'add');
  }

  async #run(
    pair: string,
    nowMs: number,
    points: number,
    limit: number,
    op: 'read' | 'reserve' | 'add' | 'fill',
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
      );
    } catch (err) {
      throw new ExecutorError('EXECUTOR_REDIS', `ratecount script on ${key} failed`, err);
    }
    if (!Array.isArray(reply) || reply.length !== 2) {
      throw new ExecutorError('EXECUTOR_REDIS', `ratecount script on ${key} answered oddly`);
    }
    const ok = reply[0] === 1;
    const level = Number(reply[1]);
    return {
      ok,
      level,
      waitMs: ok ? 0 : msUntilFits(level, this.limits.decayPerSec, points, limit),
    };
  }
}
