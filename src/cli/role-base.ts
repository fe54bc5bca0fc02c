import { Redis } from 'ioredis';
import { ControlFlags, IntentBus } from '../bus/index.js';
import { silentLog, systemClock, type Clock, type Log, type PairInfo } from '../core/index.js';
import {
  NonceBlockSource,
  RedisNonceSource,
  SpotClient,
  nonceKeyFor,
  type CredentialsInput,
  type NonceSource,
} from '../exchange/index.js';
import { loadPairs } from '../market/index.js';
import type { BotSettings } from './bot-config.js';
import { resolveCredentials } from './credentials.js';

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
  /** Where the key's client reports what the operator must act on (nonce blocks given up). */
  readonly log?: Log;
}

/** What every role of the daemon stands on: Redis, the key's client, the pairs, halt flag, bus. */
export interface RoleBase {
  readonly clock: Clock;
  readonly redis: Redis;
  readonly client: SpotClient;
  /** For key-scoped Redis names only (hash it; never log it). */
  readonly apiKey: string;
  readonly pairs: PairInfo[];
  readonly flags: ControlFlags;
  readonly bus: IntentBus;
  /** Registers a part to close (before what was opened earlier). */
  own(part: { close(): Promise<unknown> | void }): void;
  /** Closes everything owned, newest first. */
  close(): Promise<void>;
}

/** The key's client, with nonces from Redis shared by every process on the key (DESIGN.md §3.3). */
export function keyClient(
  settings: BotSettings,
  redis: Redis,
  credentials: CredentialsInput,
  clock: Clock,
  log: Log = silentLog,
): SpotClient {
  return new SpotClient({
    baseUrl: settings.exchange.url,
    credentials,
    tier: settings.exchange.tier,
    restHeadroom: settings.exchange.rest_headroom,
    nonceSource: keyNonces(settings, redis, credentials.apiKey, clock, log),
    clock,
  });
}

/**
 * The key's nonces: taken at signing from the shared sequence, or, when the key has a nonce
 * window at the exchange, from blocks of it taken ahead, which keeps Redis off the way to the wire.
 */
function keyNonces(
  settings: BotSettings,
  redis: Redis,
  apiKey: string,
  clock: Clock,
  log: Log,
): NonceSource {
  const shared = new RedisNonceSource({ redis, key: nonceKeyFor(apiKey), clock });
  const window = settings.exchange.nonce_window;
  if (window === 0) return shared;
  return new NonceBlockSource({
    shared,
    window,
    clock,
    onGiveUp: (reason) => log.error({ nonce_window: window }, `nonce blocks given up: ${reason}`),
  });
}

/**
 * Opens the parts shared by the roles, with nonces from Redis shared by every process on the key
 * (DESIGN.md §3.3). Anything wrong (Redis down, a pair the exchange does not list) fails here and
 * closes what was opened.
 */
export async function openRoleBase(settings: BotSettings, parts: RoleBaseParts): Promise<RoleBase> {
  const clock = parts.clock ?? systemClock;
  const redis = new Redis(settings.redis.url, { maxRetriesPerRequest: null, lazyConnect: true });
  const opened: { close(): Promise<unknown> | void }[] = [{ close: () => redis.quit() }];
  const close = async (): Promise<void> => {
    for (const part of opened.splice(0).reverse()) await part.close();
  };
  try {
    await redis.connect();
    const credentials = resolveCredentials(settings.exchange, parts.env, parts.configDir);
    const client = keyClient(settings, redis, credentials, clock, parts.log);
    opened.push(client);
    const pairs = await loadPairs(
      client,
      settings.pairs.map((p) => p.pair),
    );
    const flags = new ControlFlags({ connection: redis, prefix: settings.redis.prefix });
    await flags.watch(1_000, clock);
    opened.push({ close: () => flags.unwatch() });
    const bus = new IntentBus({ connection: redis, prefix: settings.redis.prefix, clock });
    opened.push(bus);
    return {
      clock,
      redis,
      client,
      apiKey: credentials.apiKey,
      pairs,
      flags,
      bus,
      own: (part) => opened.push(part),
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
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
