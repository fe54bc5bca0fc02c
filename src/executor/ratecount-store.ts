import { createHash, randomUUID } from 'node:crypto';
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

// ARGV: now, decay per sec, points, limit, op (read | reserve | add | fill | claim), writer.
// Every write stores its writer; the reply's third element says whether another writer wrote
// last (a claim takes the pair over silently: the lease changed hands).
const SCRIPT = `
local now, decay, points, limit = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local op, writer = ARGV[5], ARGV[6]
local count = tonumber(redis.call('HGET', KEYS[1], 'count') or '0') or 0
local at = tonumber(redis.call('HGET', KEYS[1], 'at') or '0') or 0
local by = redis.call('HGET', KEYS[1], 'by')
local foreign = 0
if op ~= 'read' and op ~= 'claim' and by and by ~= writer then foreign = 1 end
local level = count
if now > at then level = math.max(0, count - decay * (now - at) / 1000) end
local t = math.max(at, now)
local function store(v)
  redis.call('HSET', KEYS[1], 'count', string.format('%.6f', v), 'at', string.format('%d', t), 'by', writer)
  redis.call('PEXPIRE', KEYS[1], 86400000)
  return v
end
if op == 'reserve' then
  if level + points > limit + ${FIT_EPSILON} then return { 0, string.format('%.6f', level), foreign } end
  return { 1, string.format('%.6f', store(level + points)), foreign }
elseif op == 'add' then
  return { 1, string.format('%.6f', store(level + points)), foreign }
elseif op == 'fill' then
  return { 1, string.format('%.6f', store(math.max(level, limit))), foreign }
elseif op == 'claim' then
  return { 1, string.format('%.6f', store(level)), 0 }
end
return { 1, string.format('%.6f', level), 0 }
`;

/** Sends a script now, or when the connection's hold ends (issueAfterHold). */
export type Issue = (send: () => Promise<unknown>) => Promise<unknown>;

/**
 * How long a pair is planned with a reserve in Redis after another writer's points were seen:
 * two bots on one key quoting one pair share its ratecount, and only Redis sees both.
 */
const SHARED_HOLD_MS = 10 * 60_000;

export class RatecountStore {
  readonly #redis: Redis;
  readonly #base: string;
  readonly limits: MatchingEngineLimits;
  /**
   * Each pair's level as this process last knew it, and when (ms): see estimate(). Set by add(),
   * fill() and refund() at once (their replies confirm it), and by the newest reply; a reply to an
   * older command while a newer one is on its way is not used, so an add is never forgotten.
   */
  readonly #last = new Map<string, { readonly level: number; readonly atMs: number }>();
  /** Per pair: how many scripts were sent, and the number of the newest. */
  readonly #issued = new Map<string, number>();
  /** Per pair: until when another writer's points keep its decisions in Redis (epoch ms). */
  readonly #sharedUntil = new Map<string, number>();
  /** This store's mark on what it writes, so a write by anyone else is noticed. */
  readonly #writer = randomUUID();

  /** `base` is ratecountKeyFor(apiKey), or another non-secret name (tests). */
  constructor(redis: Redis, base: string, limits: MatchingEngineLimits) {
    this.#redis = redis;
    this.#base = base;
    this.limits = limits;
  }

  key(pair: string): string {
    return `${this.#base}:${pair}`;
  }

  /**
   * The pair's level at `nowMs` as this process knows it, decayed; undefined before any reading.
   * The pair's lease holder is its only writer, so for it this is the level: a drain that plans
   * from it charges its calls with add() and sends them without waiting for Redis (while sole()).
   * claim() drops it when the lease is taken.
   */
  estimate(pair: string, nowMs: number): number | undefined {
    const last = this.#last.get(pair);
    if (last === undefined) return undefined;
    // Whole milliseconds, as the script counts them: a fraction more of decay here than there
    // would plan a call at its due time that the reserve then refuses.
    const elapsed = Math.max(0, Math.floor(nowMs) - last.atMs);
    return Math.max(0, last.level - (this.limits.decayPerSec * elapsed) / 1000);
  }

  /**
   * The pair's lease was taken: what this process knew of its level is dropped (another process
   * may have spent points since) and the level is read, with this store as its writer from now on.
   */
  claim(pair: string, nowMs: number): Promise<number> {
    this.#last.delete(pair);
    return this.#run(pair, nowMs, 0, this.limits.max, 'claim').then((r) => r.level);
  }

  /**
   * Whether this process is the only one spending the pair's points (no write by another seen
   * for SHARED_HOLD_MS), so a plan may be decided from estimate() without asking Redis.
   */
  sole(pair: string, nowMs: number): boolean {
    return nowMs >= (this.#sharedUntil.get(pair) ?? 0);
  }

  level(pair: string, nowMs: number): Promise<number> {
    return this.#run(pair, nowMs, 0, this.limits.max, 'read').then((r) => r.level);
  }

  /** Takes `points` if the level stays within `limit` (max − headroom); else says how long to wait. */
  reserve(pair: string, points: number, limit: number, nowMs: number): Promise<RatecountReading> {
    return this.#run(pair, nowMs, points, limit, 'reserve');
  }

  /**
   * Adds points whatever the level: calls planned from a known level (the lease holder's), and
   * those the exchange charges anyway (batch cancels, CancelAll). Like fill() and refund(), it
   * counts at once in the level this process knows, and Redis follows; `issue` may send the script
   * when the connection's hold ends (issueAfterHold).
   */
  add(pair: string, points: number, nowMs: number, issue?: Issue): Promise<RatecountReading> {
    return this.#run(pair, nowMs, points, this.limits.max, 'add', issue);
  }

  /** The exchange said the ratecount is over: assume it is at least full. */
  fill(pair: string, nowMs: number): Promise<RatecountReading> {
    return this.#run(pair, nowMs, 0, this.limits.max, 'fill');
  }

  /** Gives back points reserved for a call that was never sent. */
  refund(pair: string, points: number, nowMs: number): Promise<RatecountReading> {
    return this.#run(pair, nowMs, -points, this.limits.max, 'add');
  }

  /** The level at `nowMs`; the script keeps `at` from going backwards, and so does this. */
  #know(pair: string, level: number, nowMs: number): void {
    const atMs = Math.max(this.#last.get(pair)?.atMs ?? 0, Math.floor(nowMs));
    this.#last.set(pair, { level, atMs });
  }

  async #run(
    pair: string,
    nowMs: number,
    points: number,
    limit: number,
    op: 'read' | 'reserve' | 'add' | 'fill' | 'claim',
    issue: Issue = (send) => send(),
  ): Promise<RatecountReading> {
    const key = this.key(pair);
    // Numbered when asked for: a script sent later by `issue` still runs in that order, since the
    // hold it waits for queues every command sent on the connection meanwhile behind it.
    const seq = (this.#issued.get(pair) ?? 0) + 1;
    this.#issued.set(pair, seq);
    const known = op === 'add' || op === 'fill' ? this.estimate(pair, nowMs) : undefined;
    if (known !== undefined) {
      this.#know(pair, op === 'fill' ? Math.max(known, limit) : Math.max(0, known + points), nowMs);
    }
    let reply: unknown;
    try {
      reply = await issue(() =>
        this.#redis.eval(
          SCRIPT,
          1,
          key,
          String(Math.floor(nowMs)),
          String(this.limits.decayPerSec),
          String(points),
          String(limit),
          op,
          this.#writer,
        ),
      );
    } catch (err) {
      throw new ExecutorError('EXECUTOR_REDIS', `ratecount script on ${key} failed`, err);
    }
    if (!Array.isArray(reply) || reply.length !== 3) {
      throw new ExecutorError('EXECUTOR_REDIS', `ratecount script on ${key} answered oddly`);
    }
    const ok = reply[0] === 1;
    const level = Number(reply[1]);
    if (reply[2] === 1) this.#sharedUntil.set(pair, Math.floor(nowMs) + SHARED_HOLD_MS);
    // Replies come back in the order Redis ran the scripts (one connection), so the last one
    // seen is the newest state.
    if (this.#issued.get(pair) === seq) this.#know(pair, level, nowMs);
    return {
      ok,
      level,
      waitMs: ok ? 0 : msUntilFits(level, this.limits.decayPerSec, points, limit),
    };
  }
}
