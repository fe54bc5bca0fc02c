import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { errorMessage, type Log } from '../core/index.js';
import type { RestLimiter } from '../exchange/index.js';

/** Every tier's counter has leaked empty this long after its last call (starter: 15 / 0.33 s). */
const KEEP_MS = 120_000;

/** The Redis key of an API key's REST counter level; the API key itself is hashed, never stored. */
export function restLevelKeyFor(apiKey: string): string {
  return `makerd:rest-level:${createHash('sha256').update(apiKey, 'utf8').digest('hex').slice(0, 16)}`;
}

/**
 * Adds a call to the key's level: KEYS[1] the level key; ARGV cost, the caller's own model after
 * the call, now (ms), decay per second, expiry (ms). The stored level, decayed to now, plus the
 * cost, and never below the caller's model; returned. A value that is not the JSON this writes
 * counts as 0 (the caller's model then stands).
 */
const ADD = `
local level, at = 0, 0
local raw = redis.call('GET', KEYS[1])
if raw then
  local ok, v = pcall(cjson.decode, raw)
  if ok and type(v) == 'table' and tonumber(v.level) and tonumber(v.atMs) then
    level, at = tonumber(v.level), tonumber(v.atMs)
  end
end
local now = tonumber(ARGV[3])
level = math.max(0, level - tonumber(ARGV[4]) * math.max(0, now - at) / 1000) + tonumber(ARGV[1])
level = math.ceil(math.max(level, tonumber(ARGV[2])) * 1000) / 1000
at = math.max(at, now)
redis.call('SET', KEYS[1], string.format('{"level":%.3f,"atMs":%d}', level, at), 'PX', ARGV[5])
return tostring(level)
`;

/**
 * Keeps the key's REST counter in Redis, shared by every process on the key (issue #32 item 3):
 * the exchange counts the key's calls whoever sends them and does not reset when makerd is killed.
 * The level is read before the first private call; each counted call adds its cost to it in one
 * script, sent before the call (the script is on the Redis socket first, so a kill -9 loses no
 * point the exchange counted), and the answer raises this process's model to the key's level,
 * so the calls of another process on the key (`makerd halt --config`, split roles) are counted
 * from the next call on. A write once a second of this process's own model lost the last
 * second's calls (5 of 12 kill -9 restarts under load refused) and each process overwrote the
 * others'. An idle bot sends nothing: the stored level, decayed, is still right.
 */
export async function carryRestLevel(
  redis: Redis,
  /** restLevelKeyFor(apiKey), or a name of the process's own (an exchange of its own). */
  key: string,
  limiter: RestLimiter,
  log: Log | undefined,
): Promise<{ close(): void }> {
  const stored = parse(await redis.get(key));
  if (stored !== undefined) limiter.seed(stored.level, stored.atMs);
  let failing = false;
  const stop = limiter.onRaised((cost, level, atMs) => {
    const now = Math.floor(atMs);
    const args = [String(cost), String(level), String(now), String(limiter.decayPerSec)];
    redis.eval(ADD, 1, key, ...args, String(KEEP_MS)).then(
      (reply) => {
        failing = false;
        const shared = Number(reply);
        if (Number.isFinite(shared)) limiter.seed(shared, now);
      },
      (err: unknown) => {
        if (!failing)
          log?.warn({ err: errorMessage(err) }, 'writing the REST counter level failed');
        failing = true;
      },
    );
  });
  return { close: stop };
}

function parse(raw: string | null): { level: number; atMs: number } | undefined {
  if (raw === null) return undefined;
  try {
    const v = JSON.parse(raw) as { level?: unknown; atMs?: unknown };
    const level = Number(v.level);
    const atMs = Number(v.atMs);
    return Number.isFinite(level) && Number.isFinite(atMs) ? { level, atMs } : undefined;
  } catch {
    return undefined;
  }
}
