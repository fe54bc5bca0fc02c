import type { Registry } from 'prom-client';
import type { StallWatch } from '../core/index.js';
import type { IntentBus } from '../bus/index.js';
import type { SpotClient } from '../exchange/index.js';
import { Executor, ExecutorMetrics } from '../executor/index.js';
import type { Logger } from '../obs/index.js';
import type { BotSettings } from './bot-config.js';
import { roleBaseFor, type RoleBaseParts } from './role-base.js';

export interface ExecutorRoleParts extends RoleBaseParts {
  readonly settings: BotSettings;
  readonly log: Logger;
  readonly registry: Registry;
  /** Lease owner label (default host:pid). */
  readonly owner?: string;
  /** Where the process beacon listens; false for none (the replay). */
  readonly beaconDir?: string | false;
  /** The process's stall watch: after a stall each pair held syncs before trading again. */
  readonly stallWatch?: StallWatch;
}

export interface ExecutorRole {
  readonly executor: Executor;
  readonly client: SpotClient;
  readonly bus: IntentBus;
  stop(): Promise<void>;
}

/**
 * Wires the executor role on the process's base (client, pairs, stores): `makerd run` and
 * `makerd executor` on Redis, the replay on its in-memory stores.
 */
export async function startExecutorRole(parts: ExecutorRoleParts): Promise<ExecutorRole> {
  const { settings, log } = parts;
  const { base, release } = await roleBaseFor(settings, parts);
  const { clock, client, pairs, flags, bus } = base;
  try {
    const executor = new Executor({
      client,
      bus,
      tracker: base.tracker,
      ratecount: base.ratecount,
      leases: base.leases,
      pairs,
      instance: settings.instance,
      config: settings.executor,
      flags,
      metrics: new ExecutorMetrics(parts.registry),
      clock,
      log: log.child({ component: 'executor' }),
      ...(parts.owner === undefined ? {} : { owner: parts.owner }),
      ...(parts.beaconDir === undefined ? {} : { beaconDir: parts.beaconDir }),
      ...(parts.stallWatch === undefined ? {} : { stallWatch: parts.stallWatch }),
    });
    await executor.start();
    return {
      executor,
      client,
      bus,
      stop: async () => {
        try {
          await executor.stop();
        } finally {
          await release();
        }
      },
    };
  } catch (err) {
    await release();
    throw err;
  }
}
