import type { Registry } from 'prom-client';
import type { Clock } from '../core/index.js';
import type { SpotClient } from '../exchange/index.js';
import type { Logger } from '../obs/index.js';
import { Supervisor, SupervisorMetrics, checkLossQuote, type StopReport } from '../safety/index.js';
import type { BotSettings } from './bot-config.js';
import { openRoleBase } from './role-base.js';
import { trackerRiskSource } from './risk-source.js';

export interface SupervisorRoleParts {
  readonly settings: BotSettings;
  readonly log: Logger;
  readonly registry: Registry;
  readonly clock?: Clock;
  readonly env?: NodeJS.ProcessEnv;
  readonly configDir?: string;
  /** A supervisor in a process of its own halts when stopped (its roles run on elsewhere). */
  readonly alone: boolean;
}

export interface SupervisorRole {
  readonly supervisor: Supervisor;
  readonly client: SpotClient;
  /** Stops the supervisor (cancel, disarm, as configured), then closes the connections. */
  stop(): Promise<StopReport>;
}

/** Wires the supervisor role: the key's client (heartbeats go first in its budget), the halt flag. */
export async function startSupervisorRole(parts: SupervisorRoleParts): Promise<SupervisorRole> {
  const { settings, log } = parts;
  const base = await openRoleBase(settings, parts);
  const { clock, client, flags, redis, pairs } = base;
  try {
    checkLossQuote(
      settings.supervisor.risk,
      pairs.map((p) => p.quote),
    );
    const supervisor = new Supervisor({
      client,
      flags,
      config: settings.supervisor,
      clock,
      log: log.child({ component: 'supervisor' }),
      metrics: new SupervisorMetrics(parts.registry, clock),
      haltOnStop: parts.alone,
      risk: trackerRiskSource({ redis, prefix: settings.redis.prefix, client, pairs, clock }),
    });
    await supervisor.start();
    return {
      supervisor,
      client,
      stop: async () => {
        try {
          return await supervisor.stop();
        } finally {
          await base.close();
        }
      },
    };
  } catch (err) {
    await base.close();
    throw err;
  }
}
