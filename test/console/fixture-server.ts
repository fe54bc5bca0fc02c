/**
 * A stand-in for makerd's console endpoints, for the page's browser test: serves the built page
 * from dist/console, a session, the event stream of a FixtureDeployment (history and state, then
 * a patch per interval, as makerd sends them), and takes the actions, recording each POST as it
 * came and applying it.
 */
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ConsoleSession, ConsoleState } from '../../src/console/state.js';
import { statePatch } from '../../src/console/state-patch.js';
import { FixtureDeployment, INSTANCE } from './fixture-state.js';

export interface RecordedPost {
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: unknown;
}

export interface FixtureServer {
  readonly url: string;
  readonly csrf: string;
  readonly deployment: FixtureDeployment;
  /** Every POST, accepted or not. */
  readonly posts: RecordedPost[];
  /** The next POST is answered with this status and `{ error }`. */
  refuseNext(status: number, error: string): void;
  /** Ends every open stream, as a restarting daemon or a dropped connection would. */
  dropStreams(): void;
  /** Stops sending on the open streams and keeps them open: a link lost without a word. */
  silenceStreams(): void;
  close(): Promise<void>;
}

const FILES: Readonly<Record<string, readonly [file: string, type: string]>> = {
  '/': ['index.html', 'text/html; charset=utf-8'],
  '/console': ['index.html', 'text/html; charset=utf-8'],
  '/console/app.js': ['app.js', 'text/javascript; charset=utf-8'],
  '/console/app.css': ['app.css', 'text/css; charset=utf-8'],
};

const ACTIONS = new Set(['/console/halt', '/console/resume', '/console/pull', '/console/restore']);

export async function startFixtureServer(options: {
  readonly dist: string;
  /** The bearer token the server requires; none: no token needed. */
  readonly token?: string;
  readonly intervalMs?: number;
}): Promise<FixtureServer> {
  const deployment = new FixtureDeployment();
  const csrf = randomBytes(16).toString('hex');
  const posts: RecordedPost[] = [];
  /** Each open stream, and the state it was sent last (its next patch starts there). */
  const streams = new Map<ServerResponse, ConsoleState>();
  const silenced = new Set<ServerResponse>();
  let refusal: { status: number; error: string } | undefined;

  const json = (res: ServerResponse, status: number, body: unknown): void => {
    res.writeHead(status, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' });
    res.end(JSON.stringify(body));
  };
  const authorized = (req: IncomingMessage): boolean =>
    options.token === undefined || req.headers.authorization === `Bearer ${options.token}`;

  const send = (res: ServerResponse, event: string, data: unknown): void => {
    res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  };
  const timer = setInterval(() => {
    deployment.tick();
    const state = deployment.state();
    for (const [res, sent] of streams) {
      if (silenced.has(res)) continue;
      send(res, 'patch', statePatch(sent, state) ?? {});
      streams.set(res, state);
    }
  }, options.intervalMs ?? 1000);

  async function act(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    let text = '';
    for await (const chunk of req) text += String(chunk);
    const body: unknown = JSON.parse(text);
    posts.push({ path, headers: req.headers, body });
    if (!authorized(req)) return json(res, 401, { error: 'bearer token required' });
    if (req.headers['x-makerd-csrf'] !== csrf) return json(res, 403, { error: 'bad CSRF token' });
    if (refusal !== undefined) {
      const { status, error } = refusal;
      refusal = undefined;
      return json(res, status, { error });
    }
    const { reason = '', operator = '', pair = '' } = body as Record<string, string>;
    if (path === '/console/halt') deployment.halt(reason, operator);
    else if (path === '/console/resume') deployment.resume(operator);
    else deployment.pull(pair, path === '/console/pull', operator);
    json(res, 200, { ok: true });
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://fixture').pathname;
    const file = FILES[path];
    if (req.method === 'GET' && file !== undefined) {
      const [name, type] = file;
      res.writeHead(200, { 'Content-Type': type });
      res.end(await readFile(`${options.dist}/${name}`));
      return;
    }
    if (req.method === 'GET' && path === '/console/session') {
      const session: ConsoleSession = {
        tokenRequired: options.token !== undefined,
        csrf,
        instance: INSTANCE,
      };
      return json(res, 200, session);
    }
    if (req.method === 'GET' && path === '/console/stream') {
      if (!authorized(req)) return json(res, 401, { error: 'bearer token required' });
      res.writeHead(200, {
        'Content-Type': 'text/event-stream',
        'Cache-Control': 'no-store',
        Connection: 'keep-alive',
      });
      const state = deployment.state();
      streams.set(res, state);
      res.on('close', () => streams.delete(res));
      send(res, 'history', deployment.history());
      send(res, 'state', state);
      return;
    }
    if (req.method === 'POST' && ACTIONS.has(path)) return act(req, res, path);
    json(res, 404, { error: `no ${req.method} ${path}` });
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => json(res, 500, { error: String(err) }));
  });
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    csrf,
    deployment,
    posts,
    refuseNext: (status, error) => {
      refusal = { status, error };
    },
    dropStreams: () => {
      for (const res of streams.keys()) res.destroy();
      streams.clear();
    },
    silenceStreams: () => {
      for (const res of streams.keys()) silenced.add(res);
    },
    close: async () => {
      clearInterval(timer);
      for (const res of streams.keys()) res.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
