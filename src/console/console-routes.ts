import { randomBytes, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PullList } from '../bus/index.js';
import type { Logger, RouteAnswer, RouteRequest, Routes } from '../obs/index.js';
import { packageFile } from '../daemon/package-file.js';
import { ConsoleHub } from './console-hub.js';
import { readConsoleHistory, readConsoleState, type ConsoleSources } from './console-state.js';
import type { ConsoleSession } from './state.js';

export interface ConsoleParts extends ConsoleSources {
  /** Where pull and restore write (the runner reads it each second). */
  readonly pulled: PullList;
  readonly log: Logger;
  /** Whether the endpoint asks for the bearer token (it is not loopback). */
  readonly tokenRequired: boolean;
  /** Halts as POST /halt does (through the supervisor when this process runs one). */
  readonly halt: (reason: string, by: string) => Promise<object>;
}

export interface ConsoleServer {
  readonly routes: Routes;
  /** The page's files: they hold no data, and the page must load before the token is asked. */
  readonly publicRoutes: ReadonlySet<string>;
  close(): void;
}

const FILES: Readonly<Record<string, { file: string; type: string }>> = {
  'GET /': { file: 'index.html', type: 'text/html; charset=utf-8' },
  'GET /console': { file: 'index.html', type: 'text/html; charset=utf-8' },
  'GET /console/app.js': { file: 'app.js', type: 'text/javascript; charset=utf-8' },
  'GET /console/app.css': { file: 'app.css', type: 'text/css; charset=utf-8' },
};
/** An action's own fields for the audit line, or why the body is refused. */
type Details = { readonly fields: Record<string, string> } | { readonly error: string };

const MAX_OPERATOR = 40;
const MAX_REASON = 200;

/**
 * The operator console on the process's HTTP endpoint: the page (built to dist/console by `npm run
 * build`), its session, its event stream, and its four actions. Every action needs the bearer
 * token when the endpoint has one (the server checks it), a JSON body and the session's CSRF
 * value in X-Makerd-CSRF (a page of another site can read neither), and is written to the log as
 * an audit line and to the console's events, with who acted and why.
 */
export function consoleServer(parts: ConsoleParts): ConsoleServer {
  const { base, settings, log } = parts;
  const audit = log.child({ component: 'console' });
  const csrf = randomBytes(24).toString('base64url');
  const hub = new ConsoleHub({
    state: () => readConsoleState(parts),
    history: () => readConsoleHistory(parts),
    clock: base.clock,
    log: audit,
  });
  const altnames = base.pairs.map((p) => p.altname);

  const act = (
    action: string,
    run: (input: { operator: string; body: Record<string, unknown> }) => Promise<object>,
    details: (body: Record<string, unknown>) => Details = () => ({ fields: {} }),
  ) => {
    return async (body: Record<string, unknown>, req: RouteRequest): Promise<RouteAnswer> => {
      const refused = refusal(req, csrf) ?? badField(body, 'operator', MAX_OPERATOR);
      if (refused !== undefined) return { json: { error: refused.error }, status: refused.status };
      const checked = details(body);
      if ('error' in checked) return { json: { error: checked.error }, status: 400 };
      const extra = checked.fields;
      const operator = (body.operator as string).trim();
      const result = await run({ operator, body });
      const line = { audit: true, action, operator, ...extra, remote: req.remote };
      audit.info(line, `operator ${action}`);
      const what = Object.values(extra).join(': ');
      await parts.events
        .push({
          tMs: base.clock.now(),
          level: 'audit',
          source: 'console',
          message: `${operator}: ${action}${what === '' ? '' : ` ${what}`}`,
        })
        .catch(() => undefined);
      return { json: { ok: true, ...result } };
    };
  };
  const pairOf = (body: Record<string, unknown>): Details => {
    const pair = typeof body.pair === 'string' ? body.pair.toUpperCase() : '';
    return altnames.includes(pair)
      ? { fields: { pair } }
      : { error: `pair: ${String(body.pair)} is not traded here (${altnames.join(', ')})` };
  };
  const by = (operator: string): string => `operator:console (${operator})`;

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
    'GET /console/stream': (): RouteAnswer => ({ stream: (res) => hub.open(res) }),
    'POST /console/halt': act(
      'halt',
      ({ operator, body }) => parts.halt((body.reason as string).trim(), by(operator)),
      (body) => {
        const bad = badField(body, 'reason', MAX_REASON);
        return bad ?? { fields: { reason: (body.reason as string).trim() } };
      },
    ),
    'POST /console/resume': act('resume', async () => ({
      resumed: await base.flags.resume(),
    })),
    'POST /console/pull': act(
      'pull',
      async ({ operator, body }) => ({
        pulled: await parts.pulled.pull(String(body.pair).toUpperCase(), {
          by: by(operator),
          reason: 'pulled from the console',
          sinceMs: Math.floor(base.clock.now()),
        }),
      }),
      pairOf,
    ),
    'POST /console/restore': act(
      'restore',
      async ({ body }) => ({
        restored: await parts.pulled.restore(String(body.pair).toUpperCase()),
      }),
      pairOf,
    ),
  };
  return {
    routes,
    publicRoutes: new Set([...Object.keys(FILES), 'GET /console/session']),
    close: () => hub.close(),
  };
}

/** Why an action's request is refused before its body is read: not JSON, or no CSRF value. */
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
