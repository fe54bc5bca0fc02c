import type { Registry } from 'prom-client';
import { readOrderEntry } from '../bus/index.js';
import type { Log, StallWatch } from '../core/index.js';
import type { SpotClient } from '../exchange/index.js';
import type { Logger } from '../obs/index.js';
import {
  Supervisor,
  SupervisorMetrics,
  checkLossQuote,
  checkRiskPairs,
  type StopReport,
} from '../safety/index.js';
import type { BotSettings } from './bot-config.js';
import { AuditTrail } from './audit-trail.js';
import { appendAudit, ownEntry } from './control-actions.js';
import { roleBaseFor, type RoleBaseParts } from './role-base.js';
import { trackerRiskSource } from './risk-source.js';

export interface SupervisorRoleParts extends RoleBaseParts {
  readonly settings: BotSettings;
  readonly log: Logger;
  readonly registry: Registry;
  /** A supervisor in a process of its own halts when stopped (its roles run on elsewhere). */
  readonly alone: boolean;
  /** The process's stall watch: its report says whether the dead-man timer fired meanwhile. */
  readonly stallWatch?: StallWatch;
}

export interface SupervisorRole {
  readonly supervisor: Supervisor;
  readonly client: SpotClient;
  /** Stops the supervisor (cancel, disarm, as configured), then closes the connections. */
  stop(): Promise<StopReport>;
}

/**
 * Wires the supervisor role: the key's client (heartbeats go first in its budget), the halt flag,
 * the risk inputs.
 */
export async function startSupervisorRole(parts: SupervisorRoleParts): Promise<SupervisorRole> {
  const { settings, log } = parts;
  const { base, release } = await roleBaseFor(settings, parts);
  const { clock, client, flags, pairs, tracker, bus } = base;
  const supervisorLog = log.child({ component: 'supervisor' });
  // Its own halts and resumes go to the audit trail (a replay's base has no Redis, and no trail).
  const trail =
    base.redis === undefined ? undefined : new AuditTrail(base.redis, settings.redis.prefix);
  try {
    checkLossQuote(
      settings.supervisor.risk,
      pairs.map((p) => p.quote),
    );
    checkRiskPairs(
      settings.supervisor.risk,
      pairs.map((p) => ({ pair: p.id, altname: p.altname })),
    );
    const supervisor = new Supervisor({
      client,
      flags,
      config: settings.supervisor,
      clock,
      log: supervisorLog,
      metrics: new SupervisorMetrics(parts.registry, clock),
      ...(trail === undefined
        ? {}
        : {
            onAction: (action) =>
              void appendAudit(
                { trail, log: supervisorLog },
                ownEntry('supervisor', clock.now(), action),
              ),
          }),
      haltOnStop: parts.alone,
      risk: trackerRiskSource({ tracker, client, pairs, clock }),
      restBudget: () => {
        const snap = client.limiter?.snapshot();
        return { level: Math.round((snap?.level ?? 0) * 100) / 100, max: snap?.max ?? 0 };
      },
      orderEntry: async () => {
        const reports = await Promise.all(
          pairs.map(async (p) => {
            const r = await readOrderEntry(flags, p.id);
            return r === undefined ? [] : [{ ...r, pair: p.altname }];
          }),
        );
        return reports.flat();
      },
      queues: {
        pause: async () => {
          await Promise.all(pairs.map((p) => bus.pause(p.id)));
        },
        resume: async () => {
          await Promise.all(pairs.map((p) => bus.resume(p.id)));
        },
      },
    });
    await supervisor.start();
    parts.stallWatch?.onStall(async (stall) => {
      const firedAtMs = await supervisor.deadMan.check();
      return { deadManFired: firedAtMs !== undefined && firedAtMs >= stall.fromMs };
    });
    return {
      supervisor,
      client,
      stop: async () => {
        try {
          return await supervisor.stop();
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

/**
 * The shutdown's outcome as one log line: info when the orders are gone (or were to stay) and the
 * timer is disarmed; an error naming what is left otherwise, since the operator has to act.
 */
export function logShutdown(
  log: Pick<Log, 'info' | 'error'>,
  report: StopReport,
  cancelAsked: boolean,
): void {
  const cancelled = !cancelAsked || report.cancelled !== undefined;
  if (cancelled && report.disarmed) {
    log.info({ ...report }, 'shutdown: orders cancelled, dead-man timer disarmed');
    return;
  }
  log.error(
    { ...report, ordersMayRemain: !cancelled, timerMayBeArmed: !report.disarmed },
    'shutdown incomplete: the exchange did not confirm the cancel or the disarm',
  );
}
