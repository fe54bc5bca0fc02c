import { Redis, type RedisOptions } from 'ioredis';
import { InvalidInputError, asError, scavengeIfFilling } from '../core/index.js';

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

/** Connections whose writes are held, with what is to be issued when the hold ends, in order. */
const held = new WeakMap<Redis, (() => void)[]>();

/**
 * Holds the connection's writes until the requests this turn of the event loop makes are written,
 * then sends them in one write. On the way to the wire each Redis command written at once cost a
 * system call that also runs Redis's side of the loopback (a quarter of a millisecond here);
 * held, the commands a tick or a drain issues leave together after its requests to the exchange.
 * undici writes a request on an idle keep-alive socket in the check phase (setImmediate) that
 * follows: the hold ends one check phase later.
 *
 * While held, the connection's commands are not even built: each is queued as it is sent and
 * sent, in the same order, when the hold ends (ioredis builds a command's bytes as it sends it),
 * with the work given to issueAfterHold in its place in that order. A command whose reply is
 * awaited waits that much longer; the order on the connection is the order of the calls.
 *
 * The end of the hold is the end of the burst of work a tick or a drain is: the young generation
 * is collected there if it is filling (core/idle-scavenge.ts), rather than in the next tick.
 */
export function holdWritesForTurn(redis: Redis): void {
  if (redis.status !== 'ready' || held.has(redis)) return;
  const queued: (() => void)[] = [];
  held.set(redis, queued);
  // An own sendCommand over ioredis's, removed when the hold ends (ioredis sets one of its own
  // only in monitor mode, which no connection of ours uses).
  const own = Object.getOwnPropertyDescriptor(redis, 'sendCommand');
  const send = redis.sendCommand.bind(redis);
  redis.sendCommand = (...args: Parameters<Redis['sendCommand']>) => {
    const [command] = args;
    queued.push(() => {
      try {
        void send(...args);
      } catch (err) {
        // Its caller holds the command's promise: it learns of the failure there.
        command.reject(asError(err));
      }
    });
    return command.promise;
  };
  const stream = redis.stream;
  stream.cork();
  setImmediate(() =>
    setImmediate(() => {
      held.delete(redis);
      if (own === undefined) Reflect.deleteProperty(redis, 'sendCommand');
      else Object.defineProperty(redis, 'sendCommand', own);
      // Each entry settles its own promise whatever happens; the socket is uncorked regardless.
      try {
        for (const issue of queued) issue();
      } finally {
        stream.uncork();
      }
      scavengeIfFilling();
    }),
  );
}

/**
 * Runs `issue` (work that sends commands on `redis`) when the connection's hold ends, in its place
 * among the commands sent meanwhile; at once when no hold is on. Its commands leave at the same
 * moment either way, so work done only to build them (scripts' arguments, records encoded and
 * checked) is taken off the way to the wire.
 */
export function issueAfterHold<T>(redis: Redis, issue: () => Promise<T>): Promise<T> {
  const queued = held.get(redis);
  if (queued === undefined) return issue();
  return new Promise<T>((resolve, reject) => {
    queued.push(() => {
      try {
        issue().then(resolve, reject);
      } catch (err) {
        reject(asError(err));
      }
    });
  });
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
