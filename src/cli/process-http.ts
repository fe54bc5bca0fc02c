import type { Registry } from 'prom-client';
import type { PullList } from '../bus/index.js';
import type { Supervisor } from '../safety/index.js';
import { startHttpServer, type Logger, type Routes, type RunningHttpServer } from '../obs/index.js';
import type { BotSettings } from '../daemon/bot-config.js';
import type { ConsoleEvents } from '../console/console-events.js';
import { consoleServer } from '../console/console-routes.js';
import { optionalSecretFromEnv } from '../daemon/credentials.js';
import { haltAndCancel } from '../daemon/halt-action.js';
import type { LiveRoleBase } from '../daemon/role-base.js';
import { readBaseStatus, type StatusReport } from '../daemon/status-report.js';

export interface ProcessHttpParts {
  readonly settings: BotSettings;
  readonly env?: NodeJS.ProcessEnv;
  readonly log: Logger;
  readonly registry: Registry;
  readonly base: LiveRoleBase;
  /** This process's supervisor, if it runs one: halts then go through it (cancel, then sweep). */
  readonly supervisor: Supervisor | undefined;
  /** What this process's roles say of themselves (under `process` in /status). */
  readonly local: () => object;
  /** The deployment's recent events and pulled pairs, for the console. */
  readonly events: ConsoleEvents;
  readonly pulled: PullList;
}

/**
 * The HTTP endpoint of every makerd process: /metrics, /healthz, /readyz, /status, POST /halt,
 * POST /resume, and the operator console (/ and /console/...). Loopback by default; another
 * address needs a bearer token (http.token_env).
 */
export async function startProcessHttp(parts: ProcessHttpParts): Promise<RunningHttpServer> {
  const { settings, log, base } = parts;
  const token = optionalSecretFromEnv(settings.http.token_env, parts.env ?? process.env);
  const page = consoleServer({
    base,
    settings,
    log,
    events: parts.events,
    pulled: parts.pulled,
    tokenRequired: token !== undefined && token !== '',
    halt: (reason, by) => halt(parts, reason, by),
  });
  const server = await startHttpServer({
    host: settings.http.host,
    port: settings.http.port,
    token,
    routes: { ...processRoutes(parts), ...page.routes },
    publicRoutes: page.publicRoutes,
    log: log.child({ component: 'http' }),
  });
  return {
    url: server.url,
    close: async () => {
      page.close();
      await server.close();
    },
  };
}

/** Halts through this process's supervisor (cancel, then sweep), or sets the flag and cancels. */
async function halt(parts: ProcessHttpParts, reason: string, by: string): Promise<object> {
  const { base, supervisor } = parts;
  if (supervisor !== undefined) {
    await supervisor.halt(reason, by);
    return { halted: true, halt: base.flags.current() };
  }
  const outcome = await haltAndCancel(base.flags, base.client, reason, by, base.clock);
  return { halted: true, halt: base.flags.current(), cancelled: outcome.cancelled };
}

function processRoutes(parts: ProcessHttpParts): Routes {
  const { base, supervisor, registry } = parts;
  const report = (): Promise<StatusReport> => readBaseStatus(base);
  return {
    // Liveness: the process answers. Whether the bot trades is /readyz.
    'GET /healthz': () => ({ json: { ok: true } }),
    'GET /readyz': async () => {
      let reasons: string[];
      try {
        reasons = notReady(await report(), base.clock.now());
      } catch (err) {
        reasons = [`status unreadable (Redis): ${(err as Error).message}`];
      }
      return { json: { ready: reasons.length === 0, reasons }, status: reasons.length ? 503 : 200 };
    },
    'GET /status': async () => {
      const r = await report();
      return {
        json: { ...r, supervisor: supervisor?.status() ?? r.supervisor, process: parts.local() },
      };
    },
    'GET /metrics': async () => ({
      text: await registry.metrics(),
      contentType: registry.contentType,
    }),
    'POST /halt': async (body) => {
      const reason =
        typeof body.reason === 'string' && body.reason !== '' ? body.reason : 'operator halt';
      return { json: await halt(parts, reason, 'operator:http') };
    },
    'POST /resume': async () => ({ json: { resumed: await base.flags.resume() } }),
  };
}

/**
 * Why the deployment is not trading, from what every process left in Redis: halted, a role
 * without a fresh beat, no supervisor report or its dead-man timer not armed, a pair that no
 * executor holds. Empty: ready.
 */
export function notReady(r: StatusReport, nowMs: number): string[] {
  const reasons: string[] = [];
  if (r.halt.halted) reasons.push(`halted: ${r.halt.reason ?? 'no reason given'}`);
  for (const [role, beat] of Object.entries(r.roles)) {
    if (!beat.alive) reasons.push(`${role}: no recent liveness beat`);
  }
  const trigger = deadManTrigger(r.supervisor);
  if (r.supervisor === undefined) reasons.push('supervisor: no recent report');
  else if (trigger === undefined || trigger <= nowMs) {
    reasons.push('supervisor: dead-man timer not armed');
  }
  for (const p of r.pairs) if (!p.executor) reasons.push(`${p.altname}: no executor holds it`);
  return reasons;
}

function deadManTrigger(report: Record<string, unknown> | undefined): number | undefined {
  const deadMan = report?.deadMan as { triggerAtMs?: unknown } | undefined;
  return typeof deadMan?.triggerAtMs === 'number' ? deadMan.triggerAtMs : undefined;
}
