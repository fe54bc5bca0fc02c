import type { Redis } from 'ioredis';
import { errorMessage, systemClock } from '../core/index.js';
import { SpotClient } from '../exchange/index.js';
import { ratecountKeyFor } from '../executor/index.js';
import { resolvePairs } from '../market/index.js';
import type { BotSettings } from './bot-config.js';
import { resolveCredentials } from './credentials.js';
import { connectRedis, shownRedisUrl } from './role-base.js';
import { readStatus, type StatusReport } from './status-report.js';
import { redisStores, type RedisStores } from './stores.js';
import { readTradedPairs, tradedPairsKey, type PairName } from './traded-pairs.js';

/** How long the exchange may take to name the pairs before the roles' record in Redis is used. */
const EXCHANGE_WAIT_MS = 5_000;

/** Where the status was read from, printed first: a wrong Redis or prefix must be obvious. */
export interface StatusSource {
  readonly redis: { readonly url: string; readonly prefix: string; readonly from: string };
  readonly exchange: { readonly url: string; readonly reached: boolean; readonly error?: string };
}

/** The status of a deployment, or that nothing of makerd's is under its prefix. */
export type DeploymentStatus =
  | { readonly source: StatusSource; readonly found: false }
  | { readonly source: StatusSource; readonly found: true; readonly report: StatusReport };

/**
 * What the roles of the deployment a config names left in Redis (halt flag, roles, supervisor,
 * orders, positions, PnL), read from outside any of its processes. Only the pairs' names come
 * from the exchange (AssetPairs, public), and when it cannot be reached, from the roles' record in
 * Redis: the state is wanted most when the exchange is down.
 */
export async function readDeploymentStatus(
  settings: BotSettings,
  config: { readonly file: string; readonly dir: string },
  env: NodeJS.ProcessEnv = process.env,
): Promise<DeploymentStatus> {
  const ratecountKey = ratecountKeyFor(
    resolveCredentials(settings.exchange, env, config.dir).apiKey,
  );
  const { prefix } = settings.redis;
  const redis = await connectRedis(settings.redis.url);
  try {
    const stores = redisStores({
      redis,
      prefix,
      ratecountKey,
      tier: settings.exchange.tier,
      clock: systemClock,
    });
    try {
      const named = await exchangePairs(settings);
      const source: StatusSource = {
        redis: {
          url: shownRedisUrl(settings.redis.url),
          prefix,
          from: redisFrom(config.file, env),
        },
        exchange: {
          url: settings.exchange.url,
          reached: named.error === undefined,
          ...(named.error === undefined ? {} : { error: named.error }),
        },
      };
      // Nothing of makerd's there: say so rather than report an empty bot (and reading would
      // create the state epoch under a prefix nobody uses).
      if (!(await holdsState(redis, prefix, stores))) return { source, found: false };
      const pairs = named.pairs ?? (await recordedPairs(redis, prefix, stores));
      return {
        source,
        found: true,
        report: await readStatus({ stores, pairs, clock: systemClock }),
      };
    } finally {
      await stores.close();
    }
  } finally {
    redis.disconnect();
  }
}

/** The config's pairs as the exchange names them, or why it could not be asked. */
async function exchangePairs(
  settings: BotSettings,
): Promise<{ pairs: PairName[]; error?: undefined } | { pairs?: undefined; error: string }> {
  const client = new SpotClient({ baseUrl: settings.exchange.url });
  const names = settings.pairs.map((p) => p.pair);
  let answer: Awaited<ReturnType<SpotClient['assetPairs']>>;
  try {
    answer = await client.assetPairs({}, { signal: AbortSignal.timeout(EXCHANGE_WAIT_MS) });
  } catch (err) {
    return { error: errorMessage(err) };
  } finally {
    await client.close();
  }
  // A pair the exchange does not list is the config's error, not the exchange's: it throws.
  return { pairs: resolvePairs(answer.result, names) };
}

/** The pairs the roles recorded, else the tracker's (by id: their altnames are the exchange's). */
async function recordedPairs(
  redis: Redis,
  prefix: string,
  stores: RedisStores,
): Promise<PairName[]> {
  const recorded = await readTradedPairs(redis, prefix);
  if (recorded.length > 0) return recorded;
  return (await stores.tracker.pairs()).map((id) => ({ id, altname: id }));
}

async function holdsState(redis: Redis, prefix: string, stores: RedisStores): Promise<boolean> {
  // A halt or a pull set before any role ran is state too (`makerd halt` works with none up).
  const keys = [
    tradedPairsKey(prefix),
    stores.tracker.pairsKey,
    stores.flags.epochKey,
    stores.flags.haltKey,
    stores.pulled.key,
  ];
  return (await redis.exists(...keys)) > 0;
}

/**
 * Which setting chose the Redis: bot-config.ts's overrides, MAKERD_REDIS_URL before REDIS_URL,
 * else the config file (or its default).
 */
function redisFrom(file: string, env: NodeJS.ProcessEnv): string {
  for (const name of ['MAKERD_REDIS_URL', 'REDIS_URL']) {
    if (env[name] !== undefined && env[name] !== '') return `from ${name}`;
  }
  return `redis.url of ${file}; MAKERD_REDIS_URL and REDIS_URL unset`;
}
