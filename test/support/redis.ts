import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';

export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A prefix no other test (or run) shares, so tests never see each other's keys. */
export function freshPrefix(): string {
  return `makerd-test-${randomUUID().slice(0, 8)}`;
}

/** Deletes every key under `${prefix}:`. */
export async function deleteKeys(redis: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
    cursor = next;
    if (keys.length > 0) await redis.del(...keys);
  } while (cursor !== '0');
}
