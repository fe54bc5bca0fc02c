import { Redis, type RedisOptions } from 'ioredis';
import { InvalidInputError, scavengeIfFilling } from '../core/index.js';

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

const held = new WeakSet<object>();

/**
 * Holds the connection's writes until the requests this turn of the event loop makes are written,
 * then sends them in one write. On the way to the wire each Redis command written at once cost a
 * system call that also runs Redis's side of the loopback (a quarter of a millisecond here);
 * held, the commands a tick or a drain issues leave together after its requests to the exchange.
 * undici writes a request on an idle keep-alive socket in the check phase (setImmediate) that
 * follows: the hold ends one check phase later. A command whose reply is awaited waits that much
 * longer; order on the connection is kept.
 *
 * The end of the hold is the end of the burst of work a tick or a drain is: the young generation
 * is collected there if it is filling (core/idle-scavenge.ts), rather than in the next tick.
 */
export function holdWritesForTurn(redis: Redis): void {
  if (redis.status !== 'ready') return;
  const stream = redis.stream;
  if (held.has(stream)) return;
  held.add(stream);
  stream.cork();
  setImmediate(() =>
    setImmediate(() => {
      held.delete(stream);
      stream.uncork();
      scavengeIfFilling();
    }),
  );
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
