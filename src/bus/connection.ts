import { once } from 'node:events';
import { Redis, type RedisOptions } from 'ioredis';
import { InvalidInputError } from '../core/index.js';

/** A connection given by the caller (theirs to close), or options / a URL to open our own. */
export type BusConnection = Redis | RedisOptions | string;

export interface OpenedRedis {
  readonly redis: Redis;
  /** True when the bus opened the connection and so must close it. */
  readonly owned: boolean;
}

export function openRedis(connection: BusConnection): OpenedRedis {
  if (connection instanceof Redis) return { redis: connection, owned: false };
  if (typeof connection === 'string') return { redis: new Redis(connection), owned: true };
  return { redis: new Redis(connection), owned: true };
}

/** Quits a connection we opened; a dead one is disconnected instead of waiting for QUIT. */
export async function closeRedis(opened: OpenedRedis): Promise<void> {
  if (!opened.owned || opened.redis.status === 'end') return;
  try {
    await opened.redis.quit();
  } catch {
    opened.redis.disconnect();
  }
}

/**
 * Drops a subscriber connection, resolving once its socket is gone: until then ioredis holds a
 * timer (a connect under way, the socket's shutdown).
 */
export async function dropSubscriber(sub: Redis): Promise<void> {
  if (sub.status === 'end') return;
  const ended = once(sub, 'end');
  sub.disconnect();
  await ended;
}

/**
 * Key prefixes end up inside every key and BullMQ's own names; whitespace or an empty prefix would
 * make keys collide or be unreadable in redis-cli, and a `{` would change Cluster hash slots.
 */
export function checkPrefix(prefix: string, field: string): string {
  if (!/^[\x21-\x7a|~]{1,64}$/.test(prefix)) {
    throw new InvalidInputError(
      field,
      `must be 1..64 printable characters without spaces or braces, got ${JSON.stringify(prefix)}`,
    );
  }
  return prefix;
}
