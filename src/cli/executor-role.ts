import { Redis } from 'ioredis';
import type { Registry } from 'prom-client';
import { ControlFlags, IntentBus } from '../bus/index.js';
import { systemClock, type Clock } from '../core/index.js';
import type { SpotClient } from '../exchange/index.js';
import { Executor, ExecutorMetrics, ratecountKeyFor } from '../executor/index.js';
import { loadPairs } from '../market/index.js';
import type { Logger } from '../obs/index.js';
import type { BotSettings } from './bot-config.js';
import { openExchangeClient } from './exchange-client.js';

export interface ExecutorRoleParts {
  readonly settings: BotSettings;
  readonly log: Logger;
  readonly registry: Registry;
  readonly clock?: Clock;
  readonly env?: NodeJS.ProcessEnv;
  readonly configDir?: string;
  /** Lease owner label (default host:pid). */
  readonly owner?: string;
}

export interface ExecutorRole {
  readonly executor: Executor;
  readonly client: SpotClient;
  readonly bus: IntentBus;
  stop(): Promise<void>;
}

/** Wires the executor role: client, pairs, bus, halt flag, the executor and its leases. */
export async function startExecutorRole(parts: ExecutorRoleParts): Promise<ExecutorRole> {
  const { settings, log } = parts;
  const clock = parts.clock ?? systemClock;
  const redis = new Redis(settings.redis.url, { maxRetriesPerRequest: null, lazyConnect: true });
  const opened: { close(): Promise<unknown> | void }[] = [{ close: () => redis.quit() }];
  const closeAll = async (): Promise<void> => {
    for (const part of opened.reverse()) await part.close();
  };
  try {
    await redis.connect();
    const { client, apiKey } = openExchangeClient(
      settings,
      redis,
      clock,
      parts.env,
      parts.configDir,
    );
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
    const executor = new Executor({
      client,
      bus,
      redis,
      workerRedis: redis,
      pairs,
      instance: settings.instance,
      config: settings.executor,
      ratecountKey: ratecountKeyFor(apiKey),
      flags,
      metrics: new ExecutorMetrics(parts.registry),
      clock,
      log: log.child({ component: 'executor' }),
      ...(parts.owner === undefined ? {} : { owner: parts.owner }),
    });
    await executor.start();
    opened.push({ close: () => executor.stop() });
    return { executor, client, bus, stop: closeAll };
  } catch (err) {
    await closeAll();
    throw err;
  }
}
