import { resolve } from 'node:path';
import { Redis, type RedisOptions } from 'ioredis';
import {
  MakerdError,
  errorMessage,
  systemClock,
  type Clock,
  type Log,
  type PairInfo,
} from '../core/index.js';
import {
  RedisNonceSource,
  SpotClient,
  nonceKeyFor,
  type CredentialsInput,
  type Transport,
} from '../exchange/index.js';
import type { PulledPairs, RedisControlFlags } from '../bus/index.js';
import { ratecountKeyFor } from '../executor/index.js';
import type { RedisOrderTracker } from '../orders/index.js';
import { Recorder } from '../recording/index.js';
import { loadPairs } from '../market/index.js';
import type { BotSettings } from './bot-config.js';
import { resolveCredentials } from './credentials.js';
import { RedisWatch } from './redis-watch.js';
import { carryRestLevel, restLevelKeyFor } from './rest-level.js';
import { recordTradedPairs } from './traded-pairs.js';
import { redisStores, sharedStores, type Stores } from './stores.js';

/**
 * The halt flag reaches every role through its pub/sub message; this poll is the fallback (a flag
 * set by hand, a lost message) and how a FLUSHALL is noticed (a restart is noticed on reconnect).
 */
const HALT_POLL_MS = 5_000;

export interface RoleBaseParts {
  readonly clock?: Clock;
  readonly env?: NodeJS.ProcessEnv;
  /** Relative paths in the config (the simulator's YAML) are read from here. */
  readonly configDir?: string;
  /**
   * A base shared by the roles of one process (`makerd run`): one client, so one REST limiter
   * and one nonce stream for the key. Its opener closes it; without one a role opens its own.
   */
  readonly base?: RoleBase;
  /** Told when Redis loses makerd's state while the process runs. */
  readonly log?: Log;
  /** The runner runs here: record what the key's client polls if the config's `record` says so. */
  readonly record?: boolean;
  /**
   * The exchange is this process's alone (the demo's fresh simulator): the key's REST counter
   * level and ratecount model live under the prefix, cleared with it, not beside those of every
   * other process on the key, which count calls to other exchanges (other demos, other runs).
   */
  readonly ownExchange?: boolean;
}

/**
 * What every role of the daemon stands on: the key's client, the pairs, and the shared stores
 * (tracker, ratecount model, bus, halt flag, leases, pulled pairs), each opened once per process.
 */
export interface RoleBase extends Omit<Stores, 'close'> {
  readonly clock: Clock;
  /** The stores' Redis; undefined in a replay, whose stores are in memory. */
  readonly redis: Redis | undefined;
  readonly client: SpotClient;
  /** For key-scoped Redis names only (hash it; never log it). */
  readonly apiKey: string;
  readonly pairs: PairInfo[];
  /** Records the client's market-data answers (`record:`); the runner role starts it. */
  readonly recorder?: Recorder;
  /** Registers a part to close (before what was opened earlier). */
  own(part: { close(): Promise<unknown> | void }): void;
  /** Closes everything owned, newest first. */
  close(): Promise<void>;
}

/**
 * The key's client, with nonces from Redis shared by every process on the key (DESIGN.md §3.3),
 * each taken as its request is signed. Without a nonce window the client sends the key's private
 * calls one at a time, so they arrive in nonce order; with one they overlap within it.
 */
export function keyClient(
  settings: BotSettings,
  redis: Redis,
  credentials: CredentialsInput,
  clock: Clock,
  transport?: Transport,
): SpotClient {
  return new SpotClient({
    ...(transport === undefined ? {} : { transport }),
    baseUrl: settings.exchange.url,
    credentials,
    tier: settings.exchange.tier,
    restHeadroom: settings.exchange.rest_headroom,
    nonceSource: new RedisNonceSource({ redis, key: nonceKeyFor(credentials.apiKey), clock }),
    nonceWindow: settings.exchange.nonce_window,
    clock,
  });
}

/**
 * Opens the parts shared by the roles, with nonces from Redis shared by every process on the key
 * (DESIGN.md §3.3). Anything wrong (Redis down, a pair the exchange does not list) fails here and
 * closes what was opened.
 */
export async function openRoleBase(
  settings: BotSettings,
  parts: RoleBaseParts,
): Promise<LiveRoleBase> {
  const clock = parts.clock ?? systemClock;
  const redis = await connectRedis(settings.redis.url);
  const opened: { close(): Promise<unknown> | void }[] = [{ close: () => redis.quit() }];
  const close = async (): Promise<void> => {
    for (const part of opened.splice(0).reverse()) await part.close();
  };
  try {
    const credentials = resolveCredentials(settings.exchange, parts.env, parts.configDir);
    const own = parts.ownExchange === true;
    const recorder =
      parts.record === true && settings.record !== undefined
        ? new Recorder({
            dir: resolve(parts.configDir ?? process.cwd(), settings.record.dir),
            clock,
            ...(parts.log === undefined ? {} : { log: parts.log }),
          })
        : undefined;
    if (recorder !== undefined) opened.push(recorder);
    const client = keyClient(settings, redis, credentials, clock, recorder?.transport);
    opened.push(client);
    if (client.limiter !== undefined) {
      opened.push(
        await carryRestLevel(
          redis,
          own ? `${settings.redis.prefix}:rest-level` : restLevelKeyFor(credentials.apiKey),
          client.limiter,
          parts.log,
        ),
      );
    }
    const pairs = await loadPairs(
      client,
      settings.pairs.map((p) => p.pair),
    );
    await recordTradedPairs(redis, settings.redis.prefix, pairs);
    const stores = redisStores({
      redis,
      prefix: settings.redis.prefix,
      ratecountKey: own
        ? `${settings.redis.prefix}:ratecount`
        : ratecountKeyFor(credentials.apiKey),
      tier: settings.exchange.tier,
      clock,
      ...(parts.log === undefined ? {} : { log: parts.log }),
    });
    opened.push(stores);
    await stores.flags.watch(HALT_POLL_MS, clock);
    const redisWatch = new RedisWatch({
      redis,
      clock,
      ...(parts.log === undefined ? {} : { log: parts.log.child({ component: 'redis' }) }),
    });
    redisWatch.start();
    opened.push(redisWatch);
    return {
      ...sharedStores(stores),
      flags: stores.flags,
      tracker: stores.tracker,
      pulled: stores.pulled,
      clock,
      redis,
      redisWatch,
      client,
      apiKey: credentials.apiKey,
      pairs,
      ...(recorder === undefined ? {} : { recorder }),
      own: (part) => opened.push(part),
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}

/** A Redis URL as makerd prints it: without its user and password, with its database. */
export function shownRedisUrl(url: string): string {
  const { protocol, host, pathname } = new URL(url);
  return `${protocol}//${host}${pathname === '/' ? '' : pathname}`;
}

/**
 * A connection to the bot's Redis, or one line naming `redis.url` and why not (exit 1: under a
 * restart policy the next start tries again), with nothing else started. `options`: a one-shot
 * command's (one attempt, no retries) instead of a role's (commands wait through an outage).
 */
export async function connectRedis(url: string, options: RedisOptions = {}): Promise<Redis> {
  const redis = new Redis(url, { maxRetriesPerRequest: null, ...options, lazyConnect: true });
  let reason: unknown;
  // ioredis reports the cause (ECONNREFUSED, ENOTFOUND...) as an event, then rejects connect()
  // with only "Connection is closed".
  const noted = (err: unknown): void => void (reason ??= err);
  redis.on('error', noted);
  try {
    await redis.connect();
    return redis;
  } catch (err) {
    redis.disconnect();
    throw new MakerdError(
      'NO_REDIS',
      `redis.url: cannot connect to ${shownRedisUrl(url)}: ${errorMessage(reason ?? err)}`,
      { cause: err },
    );
  } finally {
    redis.off('error', noted);
  }
}

/** A base opened on Redis (every process of `makerd run` and its roles), with its Redis stores. */
export interface LiveRoleBase extends RoleBase {
  readonly redis: Redis;
  readonly flags: RedisControlFlags;
  /** Whether Redis answers, and how long it has not (the log says so too). */
  readonly redisWatch: RedisWatch;
  readonly tracker: RedisOrderTracker;
  readonly pulled: PulledPairs;
}

/**
 * Whether the base is openRoleBase's: only it has a Redis, and its stores are the Redis ones (a
 * replay's base has none, whichever stores it runs on).
 */
export function isLive(base: RoleBase): base is LiveRoleBase {
  return base.redis !== undefined;
}

/** The given base (left open: its opener closes it), or one of the role's own (closed by release). */
export async function roleBaseFor(
  settings: BotSettings,
  parts: RoleBaseParts,
): Promise<{ readonly base: RoleBase; readonly release: () => Promise<void> }> {
  if (parts.base !== undefined) return { base: parts.base, release: () => Promise.resolve() };
  const base = await openRoleBase(settings, parts);
  return { base, release: () => base.close() };
}
