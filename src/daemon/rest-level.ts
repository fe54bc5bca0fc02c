import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { errorMessage, every, type Clock, type Log } from '../core/index.js';
import { decayedLevel, type RestLimiter } from '../exchange/index.js';

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
 * checked once a second and read before the first private call; what the last second's calls
 * added is within the REST headroom. It is written only when calls added to it since the last
 * write: otherwise the stored level, decayed at `decayPerSec` as the reader decays it, is still
 * right, and an idle bot would rewrite the same figure each second.
 */
export async function carryRestLevel(
  redis: Redis,
  apiKey: string,
  limiter: RestLimiter,
  clock: Clock,
  log: Log | undefined,
  decayPerSec: number,
): Promise<{ close(): Promise<void> }> {
  const key = restLevelKeyFor(apiKey);
  const raw = await redis.get(key);
  let stored = parse(raw);
  if (stored !== undefined) limiter.seed(stored.level, stored.atMs);
  const write = async (): Promise<void> => {
    const atMs = Math.floor(clock.now());
    const level = Number(limiter.snapshot(atMs).level.toFixed(3));
    const predicted =
      stored === undefined ? -1 : decayedLevel(stored.level, stored.atMs, decayPerSec, atMs);
    // The stored figure is rounded to a thousandth.
    if (level <= predicted + 0.001) return;
    await redis.set(key, JSON.stringify({ level, atMs }), 'PX', KEEP_MS);
    stored = { level, atMs };
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
