import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { errorMessage, InvalidInputError, systemClock, type Clock } from '../../core/index.js';
import { MAX_NONCE, NonceError, clockMillis, type NonceSource } from './nonce-source.js';

const KEY_PREFIX = 'makerd:nonce:';

/**
 * The Redis key for an API key's nonce state. Only a hash prefix reaches Redis: the API key is a
 * credential (DESIGN.md §3.9), and Redis keys show up in MONITOR, slow logs and dumps. 64 bits of
 * SHA-256 keep the keys of one deployment apart without being usable to find the key.
 */
export function nonceKeyFor(apiKey: string): string {
  return KEY_PREFIX + createHash('sha256').update(apiKey, 'utf8').digest('hex').slice(0, 16);
}

/*
 * next = max(now_ms, last + 1), stored and returned in one script, which Redis runs atomically:
 * no other client's read or write can fall between the read of `last` and the write of `next`.
 *
 * Lua numbers are doubles. Every value that enters is checked to be a string of at most 16 digits
 * not above 2^53 - 1, where doubles count in exact steps of one. Values are stored and returned as
 * '%.0f' strings because Lua's own number-to-string conversion switches to exponent notation above
 * 14 digits; a string reply also lets the client check the digits it got.
 */
const SCRIPT = `
local max = ${MAX_NONCE}
local function safe(s)
  return type(s) == 'string' and #s <= 16 and string.match(s, '^%d+$') ~= nil and tonumber(s) <= max
end
if not safe(ARGV[1]) then
  return redis.error_reply('MAKERD_NONCE_CLOCK ' .. string.sub(tostring(ARGV[1]), 1, 40))
end
local nextv = tonumber(ARGV[1])
local stored = redis.pcall('GET', KEYS[1])
if type(stored) == 'table' then
  return redis.error_reply('MAKERD_NONCE_CORRUPT a ' .. redis.call('TYPE', KEYS[1]).ok .. ' value')
end
if stored then
  if not safe(stored) then
    return redis.error_reply('MAKERD_NONCE_CORRUPT "' .. string.sub(stored, 1, 40) .. '"')
  end
  local last = tonumber(stored)
  if last >= max then
    return redis.error_reply('MAKERD_NONCE_EXHAUSTED "' .. stored .. '"')
  end
  if last + 1 > nextv then
    nextv = last + 1
  end
end
local out = string.format('%.0f', nextv)
redis.call('SET', KEYS[1], out)
return out
`;

const SCRIPT_ERROR = /^MAKERD_NONCE_(CLOCK|CORRUPT|EXHAUSTED) (.*)$/s;
const REPLY = /^\d{1,16}$/;

export interface RedisNonceSourceOptions {
  /**
   * The connection to use; it stays the caller's (opened and quit by them). Pass one connection
   * per process, not a fresh one per request: see `next()` for the ordering that depends on it.
   */
  readonly redis: Redis;
  /** Where the last nonce lives: `nonceKeyFor(apiKey)`, or another non-secret name. */
  readonly key: string;
  readonly clock?: Clock;
}

/**
 * One nonce sequence per API key shared by every process that signs with the key (DESIGN.md
 * §3.3). The last nonce lives in Redis, so a restarted process continues above it even when its
 * clock is behind. Nonces stay monotonic only while Redis keeps the key: run Redis with
 * persistence and a no-eviction policy, and never give the key a TTL; if the state is lost anyway,
 * the source falls back to the clock, which is safe unless the clock is now behind the nonces
 * already used.
 */
export class RedisNonceSource implements NonceSource {
  readonly #redis: Redis;
  readonly #key: string;
  readonly #clock: Clock;

  constructor(options: RedisNonceSourceOptions) {
    if (options.key.length === 0) throw new InvalidInputError('key', 'must not be empty');
    this.#redis = options.redis;
    this.#key = options.key;
    this.#clock = options.clock ?? systemClock;
  }

  /**
   * Concurrent calls in one process settle in increasing nonce order, the order in which their
   * requests get signed. That holds because each call is exactly one command on one connection:
   * ioredis writes commands to the socket in call order, Redis runs them in that order and answers
   * in that order, and every call takes the same path from reply to settled promise.
   *
   * Two choices keep it so. One connection: a second one (or a pool) for the same key would let a
   * later call overtake an earlier one and sign a lower nonce after a higher one. Plain EVAL rather
   * than EVALSHA: after a NOSCRIPT answer (script cache flushed, failover) EVALSHA is re-sent as
   * EVAL, and calls made meanwhile run before the re-sent one yet may settle before it with a higher
   * nonce. Redis caches the compiled script by its hash either way; we measured EVAL of this 1 kB
   * script at the same cost per call as EVALSHA on loopback.
   */
  async next(): Promise<number> {
    const now = clockMillis(this.#clock);
    let reply: unknown;
    try {
      reply = await this.#redis.eval(SCRIPT, 1, this.#key, String(now));
    } catch (err) {
      throw scriptError(err, this.#key);
    }
    if (typeof reply !== 'string' || !REPLY.test(reply) || !Number.isSafeInteger(Number(reply))) {
      throw new NonceError(
        'NONCE_STATE_CORRUPT',
        `nonce script for ${this.#key} answered ${describe(reply)}, not an integer`,
      );
    }
    return Number(reply);
  }
}

function scriptError(err: unknown, key: string): NonceError {
  const message = errorMessage(err);
  const m = SCRIPT_ERROR.exec(message);
  switch (m?.[1]) {
    case 'CORRUPT':
      return new NonceError(
        'NONCE_STATE_CORRUPT',
        `nonce state at Redis key ${key} holds ${m[2] ?? '?'}, not an integer; set it to an ` +
          'integer no lower than the last nonce used with this API key',
        { cause: err },
      );
    case 'EXHAUSTED':
      return new NonceError(
        'NONCE_EXHAUSTED',
        `nonce state at Redis key ${key} holds ${m[2] ?? '?'}, which has no safe successor`,
        { cause: err },
      );
    case 'CLOCK':
      return new NonceError('NONCE_CLOCK_INVALID', `clock value ${m[2] ?? '?'} was refused`, {
        cause: err,
      });
    default:
      return new NonceError(
        'NONCE_STORE_UNAVAILABLE',
        `no nonce from Redis key ${key}: ${message}`,
        { cause: err },
      );
  }
}

function describe(value: unknown): string {
  const text = typeof value === 'string' ? JSON.stringify(value) : String(value);
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}
