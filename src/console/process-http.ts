import {
  HttpRefusals,
  startHttpServer,
  type RouteAnswer,
  type RouteRequest,
  type Routes,
  type RunningHttpServer,
} from '../obs/index.js';
import { AuditTrail } from '../daemon/audit-trail.js';
import { ControlActions, type Actor, type HaltDone } from '../daemon/control-actions.js';
import { haltAndCancel } from '../daemon/halt-action.js';
import { LastStatus } from '../daemon/last-status.js';
import { notReady } from '../daemon/readiness.js';
import type { DoorParts, HttpDoor } from '../daemon/run-roles.js';
import { readBaseStatus, type StatusReport } from '../daemon/status-report.js';
import { pairNamed, type PairName } from '../daemon/traded-pairs.js';
import { ConsoleEvents, type LogTap } from './console-events.js';
import { consoleServer } from './console-routes.js';

interface ProcessHttpParts extends DoorParts {
  /** The deployment's recent events, for the console. */
  readonly events: ConsoleEvents;
}

/**
 * The process's HTTP endpoint as runRoles opens it: every warning and error of the process goes
 * to the deployment's console events from the moment its Redis is open, before any role starts.
 */
export function processHttpDoor(logTap: LogTap): HttpDoor {
  return {
    open: (base, settings) => {
      const events = new ConsoleEvents(base.redis, settings.redis.prefix);
      logTap.attach(events);
      return { serve: (parts) => startProcessHttp({ ...parts, events }) };
    },
  };
}

/**
 * The HTTP endpoint of every makerd process: /metrics, /healthz, /readyz, /status, POST /halt,
 * /resume, /pull and /restore (`makerd halt --http URL` and the like), and the operator console (/ and /console/...). Loopback by default; another
 * address needs the control token (http.token_env); the read token (http.read_token_env) reads.
 * Every action goes to the audit trail with the caller's address.
 */
async function startProcessHttp(parts: ProcessHttpParts): Promise<RunningHttpServer> {
  const { settings, log, base } = parts;
  const httpLog = log.child({ component: 'http' });
  const trail = new AuditTrail(base.redis, settings.redis.prefix);
  const actions = new ControlActions({
    flags: base.flags,
    pulled: base.pulled,
    trail,
    clock: base.clock,
    log: httpLog,
    halt: (reason, by) => halt(parts, reason, by),
  });
  const page = consoleServer({
    base,
    settings,
    events: parts.events,
    trail,
    actions,
    tokenRequired: parts.tokens.control !== undefined,
    log,
    maxStreams: settings.http.max_streams,
  });
  const server = await startHttpServer({
    host: settings.http.host,
    port: settings.http.port,
    tokens: parts.tokens,
    routes: { ...processRoutes(parts, actions), ...page.routes },
    publicRoutes: page.publicRoutes,
    log: httpLog,
    refusals: new HttpRefusals({ registry: parts.registry, clock: base.clock, log: httpLog }),
    ...(settings.http.public_origin === undefined
      ? {}
      : { publicOrigin: settings.http.public_origin }),
    trustedProxies: settings.http.trusted_proxies,
  });
  return {
    url: server.url,
    close: async () => {
      await page.close();
      await server.close();
    },
  };
}

/** Halts through this process's supervisor (cancel, then sweep), or sets the flag and cancels. */
async function halt(parts: ProcessHttpParts, reason: string, by: string): Promise<HaltDone> {
  const { base, supervisor } = parts;
  if (supervisor !== undefined) return { set: await supervisor.halt(reason, by) };
  return haltAndCancel(base.flags, base.client, reason, by, base.clock);
}

/** Longest name an HTTP caller may give: a shell's `user@host` on a cloud host runs long. */
const MAX_ACTOR = 100;

/**
 * POST /halt, /resume, /pull and /restore name their caller with an optional `operator` field
 * (curl, scripts); `"via": "cli"` says it is makerd's own command line (`makerd halt --http`),
 * whose `operator` is the shell's user@host.
 */
function httpActor(body: Record<string, unknown>, req: RouteRequest): Actor {
  const name = typeof body.operator === 'string' ? body.operator.trim().slice(0, MAX_ACTOR) : '';
  return {
    door: body.via === 'cli' ? 'cli-http' : 'http',
    ...(name === '' ? {} : { name }),
    ...(req.remote === undefined ? {} : { remote: req.remote }),
  };
}

/** A body's text field, or the default when it is absent or empty. */
function textField(body: Record<string, unknown>, field: string, fallback: string): string {
  const value = body[field];
  return typeof value === 'string' && value.trim() !== '' ? value : fallback;
}

function processRoutes(parts: ProcessHttpParts, actions: ControlActions): Routes {
  const { base, supervisor, registry } = parts;
  const report = (): Promise<StatusReport> => readBaseStatus(base);
  const status = new LastStatus(report, base.clock);
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
      // Within a bound: while Redis hangs, the last report read, flagged stale, and why.
      const r = await status.read();
      const why = r.stale ? { redisNotAnsweringForMs: base.redisWatch.notAnsweringForMs() } : {};
      return {
        json: {
          ...r,
          ...why,
          supervisor: supervisor?.status() ?? r.supervisor,
          process: parts.local(),
        },
      };
    },
    'GET /metrics': async () => ({
      text: await registry.metrics(),
      contentType: registry.contentType,
    }),
    'POST /halt': async (body, req) => {
      const reason = textField(body, 'reason', 'operator halt');
      const done = await actions.halt(httpActor(body, req), reason);
      return {
        json: {
          halted: true,
          changed: done.changed,
          outcome: done.outcome,
          halt: done.halt,
          ...(done.cancelled === undefined ? {} : { cancelled: done.cancelled }),
        },
      };
    },
    'POST /resume': async (body, req) => {
      const done = await actions.resume(httpActor(body, req));
      return { json: { resumed: done.changed, outcome: done.outcome } };
    },
    'POST /pull': (body, req) =>
      withPair(base.pairs, body, async (altname) => {
        const reason = textField(body, 'reason', 'operator pull');
        const done = await actions.pull(httpActor(body, req), altname, reason);
        return { pulled: altname, changed: done.changed, outcome: done.outcome };
      }),
    'POST /restore': (body, req) =>
      withPair(base.pairs, body, async (altname) => {
        const done = await actions.restore(httpActor(body, req), altname);
        return { restored: altname, changed: done.changed, outcome: done.outcome };
      }),
  };
}

/** The body's `pair` (id or altname, any case) as the process trades it, else 400 naming them. */
async function withPair(
  pairs: readonly PairName[],
  body: Record<string, unknown>,
  act: (altname: string) => Promise<object>,
): Promise<RouteAnswer> {
  const name = typeof body.pair === 'string' ? body.pair : '';
  const pair = pairNamed(pairs, name);
  if (pair === undefined) {
    const traded = pairs.map((p) => p.altname).join(', ');
    return {
      json: { error: `pair: ${name || 'required'} is not traded here (${traded})` },
      status: 400,
    };
  }
  return { json: await act(pair.altname) };
}
