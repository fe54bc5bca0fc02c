import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { errorMessage, every, type Clock, type Log } from '../core/index.js';
import type { RestLimiter } from '../exchange/index.js';

/** Every tier's counter has leaked empty this long after its last call (starter: 15 / 0.33 s). */
const KEEP_MS = 120_000;
const WRITE_EVERY_MS = 1_000;

/** The Redis key of an API key's REST counter level; the API key itself is hashed, never stored. */
export function restLevelKeyFor(apiKey: string): string {
  return `makerd:rest-level:${createHash('sha256').update(apiKey, 'utf8').digest('hex').slice(0, 16)}`;
}

/**
 * Carries the REST counter model across a restart (issue #32 item 3): the exchange's counter
 * does not reset when makerd is killed, and a restart that began at zero polled and reconciled
 * at once into `EAPI:Rate limit exceeded` (1-5 a restart on the starter tier). The level is
 * written once a second and read before the first private call; what the last second's calls
 * added is within the REST headroom.
 */
export async function carryRestLevel(
  redis: Redis,
  apiKey: string,
  limiter: RestLimiter,
  clock: Clock,
  log: Log | undefined,
): Promise<{ close(): Promise<void> }> {
  const key = restLevelKeyFor(apiKey);
  const raw = await redis.get(key);
  const left = parse(raw);
  if (left !== undefined) limiter.seed(left.level, left.atMs);
  const write = async (): Promise<void> => {
    const atMs = Math.floor(clock.now());
    const { level } = limiter.snapshot(atMs);
    await redis.set(key, JSON.stringify({ level: Number(level.toFixed(3)), atMs }), 'PX', KEEP_MS);
  };
  const stop = new AbortController();
  const loop = every(clock, WRITE_EVERY_MS, stop.signal, write, (err) =>
    log?.warn({ err: errorMessage(err) }, 'writing the REST counter level failed'),
  );
  return {
    async close() {
      stop.abort();
      await loop;
      await write().catch(() => undefined);
    },
  };
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
