import type { Redis } from 'ioredis';
import type { Clock } from '../core/index.js';
import { RedisNonceSource, SpotClient, nonceKeyFor } from '../exchange/index.js';
import type { BotSettings } from './bot-config.js';
import { resolveCredentials } from './credentials.js';

/**
 * The key's client as every role builds it: nonces from Redis, shared by every process on the
 * key (DESIGN.md §3.3). Returns the API key too, for key-scoped Redis names (never logged).
 */
export function openExchangeClient(
  settings: BotSettings,
  redis: Redis,
  clock: Clock,
  env?: NodeJS.ProcessEnv,
  configDir?: string,
): { client: SpotClient; apiKey: string } {
  const credentials = resolveCredentials(settings.exchange, env, configDir);
  const client = new SpotClient({
    baseUrl: settings.exchange.url,
    credentials,
    tier: settings.exchange.tier,
    restHeadroom: settings.exchange.rest_headroom,
    nonceSource: new RedisNonceSource({ redis, key: nonceKeyFor(credentials.apiKey), clock }),
    clock,
  });
  return { client, apiKey: credentials.apiKey };
}
