import type { Redis } from 'ioredis';

/**
 * Deletes every key under `${prefix}:` (a bot's whole namespace: intents, orders, positions,
 * flags). SCAN, not KEYS, so a large Redis is never blocked; UNLINK frees memory off the main
 * thread.
 */
export async function deleteKeysUnder(redis: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
    cursor = next;
    if (keys.length > 0) await redis.unlink(...keys);
  } while (cursor !== '0');
}
