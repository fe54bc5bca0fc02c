import { randomBytes, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger, RouteAnswer, RouteRequest, Routes } from '../obs/index.js';
import type { ActionOutcome, Actor, ControlActions } from '../daemon/control-actions.js';
import { consoleChangesChannel } from '../daemon/console-report.js';
import { packageFile } from '../daemon/package-file.js';
import { RedisEvents } from '../daemon/redis-events.js';
import { ConsoleHub } from './console-hub.js';
import { readConsoleHistory, readConsoleState, type ConsoleSources } from './console-state.js';
import type { ConsoleSession } from './state.js';

export interface ConsoleParts extends ConsoleSources {
  /** Halt, resume, pull and restore, each written to the audit trail. */
  readonly actions: ControlActions;
  readonly log: Logger;
  /** Whether the endpoint asks for the bearer token (it is not loopback). */
  readonly tokenRequired: boolean;
  /** Most console streams open at once (http.max_streams). */
  readonly maxStreams: number;
}

export interface ConsoleServer {
  readonly routes: Routes;
  /** The page's files: they hold no data, and the page must load before the token is asked. */
  readonly publicRoutes: ReadonlySet<string>;
  close(): Promise<void>;
}

const FILES: Readonly<Record<string, { file: string; type: string }>> = {
  'GET /': { file: 'index.html', type: 'text/html; charset=utf-8' },
  'GET /console': { file: 'index.html', type: 'text/html; charset=utf-8' },
  'GET /console/app.js': { file: 'app.js', type: 'text/javascript; charset=utf-8' },
  'GET /console/app.css': { file: 'app.css', type: 'text/css; charset=utf-8' },
};
/** An action's own fields (its pair, its reason), or why the body is refused. */
type Details = { readonly fields: Record<string, string> } | { readonly error: string };

const MAX_OPERATOR = 40;
const MAX_REASON = 200;

/**
 * The operator console on the process's HTTP endpoint: the page (built to dist/console by `npm run
 * build`), its session, its event stream, and its four actions. Every action needs the control
 * token when the endpoint has one (the server checks it), a JSON body and the session's CSRF
 * value in X-Makerd-CSRF (a page of another site can read neither), and goes to the audit trail
 * with who acted, from where, why and what came of it.
 */
export function consoleServer(parts: ConsoleParts): ConsoleServer {
  const { base, settings, log, actions } = parts;
  const csrf = randomBytes(24).toString('base64url');
  const hub = new ConsoleHub({
    state: () => readConsoleState(parts),
    history: () => readConsoleHistory(parts),
    clock: base.clock,
    log: log.child({ component: 'console' }),
    maxStreams: parts.maxStreams,
  });
  const changes = followChanges(parts, hub);
  const altnames = base.pairs.map((p) => p.altname);

  const act = (
    run: (actor: Actor, fields: Record<string, string>) => Promise<ActionOutcome & object>,
    details: (body: Record<string, unknown>) => Details = () => ({ fields: {} }),
  ) => {
    return async (body: Record<string, unknown>, req: RouteRequest): Promise<RouteAnswer> => {
      const refused = refusal(req, csrf);
      if (refused !== undefined) {
        return { json: { error: refused.error }, status: refused.status, refused: 'csrf' };
      }
      const unnamed = badField(body, 'operator', MAX_OPERATOR);
      if (unnamed !== undefined) return { json: { error: unnamed.error }, status: unnamed.status };
      const checked = details(body);
      if ('error' in checked) return { json: { error: checked.error }, status: 400 };
      const actor: Actor = {
        name: (body.operator as string).trim(),
        door: 'console',
        ...(req.remote === undefined ? {} : { remote: req.remote }),
      };
      return { json: { ok: true, ...(await run(actor, checked.fields)) } };
    };
  };
  const pairOf = (body: Record<string, unknown>): Details => {
    const pair = typeof body.pair === 'string' ? body.pair.toUpperCase() : '';
    return altnames.includes(pair)
      ? { fields: { pair } }
      : { error: `pair: ${String(body.pair)} is not traded here (${altnames.join(', ')})` };
  };

  const routes: Routes = {
    ...Object.fromEntries(Object.entries(FILES).map(([key, f]) => [key, () => file(f)])),
    'GET /console/session': (): RouteAnswer => {
      const session: ConsoleSession = {
        tokenRequired: parts.tokenRequired,
        csrf,
        instance: String(settings.instance),
      };
      return { json: session };
    },
    'GET /console/stream': () => hub.answer(),
    'POST /console/halt': act(
      async (actor, { reason = '' }) => {
        const done = await actions.halt(actor, reason);
        return { changed: done.changed, outcome: done.outcome, halt: done.halt };
      },
      (body) => {
        const bad = badField(body, 'reason', MAX_REASON);
        return bad ?? { fields: { reason: (body.reason as string).trim() } };
      },
    ),
    'POST /console/resume': act(async (actor) => {
      const done = await actions.resume(actor);
      return { changed: done.changed, outcome: done.outcome, resumed: done.changed };
    }),
    'POST /console/pull': act(async (actor, { pair = '' }) => {
      const done = await actions.pull(actor, pair, 'pulled from the console');
      return { ...done, pulled: done.changed };
    }, pairOf),
    'POST /console/restore': act(async (actor, { pair = '' }) => {
      const done = await actions.restore(actor, pair);
      return { ...done, restored: done.changed };
    }, pairOf),
  };
  return {
    routes,
    publicRoutes: new Set([...Object.keys(FILES), 'GET /console/session']),
    close: async () => {
      hub.close();
      await changes.close();
    },
  };
}

/**
 * The messages that say what a page shows changed, on a connection of their own: the runner's
 * report listing other orders (a halt's cancels confirmed), the halt flag, a pull. After each
 * (re)subscription too, since what was published meanwhile is lost. Open pages then get the state
 * soon rather than at their next second.
 */
function followChanges(parts: ConsoleParts, hub: ConsoleHub): RedisEvents {
  const { base, settings } = parts;
  const prefix = settings.redis.prefix;
  const events = new RedisEvents(base.redis, `${prefix}:console-changes`);
  const changed = (): void => hub.changed();
  for (const channel of [
    consoleChangesChannel(prefix),
    base.flags.changesChannel,
    base.pulled.changesChannel,
  ]) {
    events.on(channel, changed);
  }
  events.onResync(changed);
  // Until it has subscribed, the pages' second is all they get.
  void events.start();
  return events;
}

/**
 * Why an action's request is refused before its body is read: not JSON (a form a page of another
 * site can post), or no CSRF value.
 */
function refusal(req: RouteRequest, csrf: string): { error: string; status: number } | undefined {
  if (!(req.headers['content-type'] ?? '').startsWith('application/json')) {
    return { error: 'the body must be sent as application/json', status: 415 };
  }
  const got = Buffer.from(String(req.headers['x-makerd-csrf'] ?? ''));
  const want = Buffer.from(csrf);
  if (got.length !== want.length || !timingSafeEqual(got, want)) {
    return { error: 'missing or stale X-Makerd-CSRF: reload the console', status: 403 };
  }
  return undefined;
}

function badField(
  body: Record<string, unknown>,
  field: string,
  max: number,
): { error: string; status: number } | undefined {
  const value = body[field];
  if (typeof value !== 'string' || value.trim() === '') {
    return { error: `${field}: required (it goes into the audit log)`, status: 400 };
  }
  if (value.length > max) return { error: `${field}: at most ${max} characters`, status: 400 };
  return undefined;
}

/** A file of the built page, read once; a checkout that was never built says how to build it. */
const cache = new Map<string, string>();
function file(f: { file: string; type: string }): RouteAnswer {
  let text = cache.get(f.file);
  if (text === undefined) {
    const path = join(packageFile('dist', 'console') ?? 'dist/console', f.file);
    try {
      text = readFileSync(path, 'utf8');
    } catch {
      return {
        json: { error: `the console is not built (${path}): run npm run build` },
        status: 503,
      };
    }
    cache.set(f.file, text);
  }
  return { text, contentType: f.type };
}
