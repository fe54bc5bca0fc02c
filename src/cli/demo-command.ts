import { resolve } from 'node:path';
import { Redis } from 'ioredis';
import PinoPretty from 'pino-pretty';
import { deleteKeysUnder } from '../bus/index.js';
import { InvalidInputError, errorMessage } from '../core/index.js';
import { loadSimConfig, startSimulator } from '../sim/index.js';
import { demoStatusLine } from './demo-status.js';
import { LiveTerminal } from './live-terminal.js';
import { runRoles, type RunningProcess } from './process-command.js';
import { findRedis } from './redis-finder.js';
import { roleContext, secondsOption, type RoleCommandContext } from './role-command.js';
import { packageFile } from '../daemon/package-file.js';
import { readBaseStatus } from '../daemon/status-report.js';

export interface DemoOptions {
  readonly config?: string;
  readonly seconds?: string;
  readonly logLevel?: string;
  readonly json?: boolean;
  readonly statusEvery: string;
  /** Record the market the demo trades in this folder. */
  readonly record?: string;
}

/** The demo's own Redis namespace: cleared at start, since its simulator starts afresh. */
const DEMO_PREFIX = 'makerd-demo';

/**
 * `makerd demo`: paper trading in one command. Starts the simulator (a fresh market and paper
 * account, on a free port), finds Redis or starts one, and runs every role against them with
 * readable logs and a status line.
 */
export async function runDemo(opts: DemoOptions): Promise<void> {
  const stopAfterMs =
    opts.seconds === undefined ? undefined : secondsOption('--seconds', opts.seconds);
  const statusEveryMs = secondsOption('--status-every', opts.statusEvery);
  const terminal = new LiveTerminal();
  const destination =
    opts.json === true
      ? undefined
      : PinoPretty({
          destination: terminal.logStream,
          colorize: terminal.live,
          translateTime: 'SYS:HH:MM:ss',
          ignore: 'pid,hostname,role,instance',
          singleLine: true,
          sync: true,
        });
  const simYaml = packageFile('config', 'sim.yaml');
  if (simYaml === undefined) {
    throw new InvalidInputError('config/sim.yaml', 'the package simulator config is missing');
  }
  const env = process.env;
  const redisUrl = env.MAKERD_REDIS_URL || env.REDIS_URL || 'redis://127.0.0.1:6379';
  const redis = await findRedis(redisUrl, env.MAKERD_REDIS_SERVER || 'redis-server');
  let sim: Awaited<ReturnType<typeof startSimulator>> | undefined;
  try {
    sim = await startSimulator({ config: loadSimConfig(simYaml), port: 0, host: '127.0.0.1' });
    const given = roleContext(
      'makerd',
      { ...opts, statusEvery: '0' },
      {
        env: {
          ...env,
          MAKERD_EXCHANGE_URL: sim.url,
          MAKERD_REDIS_URL: redis.url,
          MAKERD_REDIS_PREFIX: env.MAKERD_REDIS_PREFIX ?? DEMO_PREFIX,
        },
        ...(destination === undefined ? {} : { destination }),
      },
    );
    const ctx =
      opts.record === undefined
        ? given
        : { ...given, settings: { ...given.settings, record: { dir: resolve(opts.record) } } };
    if (ctx.settings.exchange.credentials.from !== 'simulator') {
      throw new InvalidInputError(
        'exchange.credentials.from',
        "the demo trades the simulator's paper account: use 'simulator' credentials (config/paper.yaml)",
      );
    }
    await clearPrefix(redis.url, ctx.settings.redis.prefix);
    ctx.log.info(
      {
        simulator: sim.url,
        redis: redis.started
          ? `${redis.url} (started redis-server, pid ${redis.started.pid}, no persistence)`
          : redis.url,
        prefix: ctx.settings.redis.prefix,
      },
      'demo: paper trading against a fresh simulator; Ctrl-C cancels every order and stops',
    );
    await runRoles('makerd', ctx, ['runner', 'executor', 'supervisor'], {
      startedMsg: 'makerd demo running',
      ...(stopAfterMs === undefined ? {} : { stopAfterMs }),
      onRunning: (running) => {
        ctx.log.info(
          { console: `${running.http.url}/` },
          `demo: operator console at ${running.http.url}/`,
        );
        return showStatus(ctx, running, terminal, statusEveryMs, opts.json === true);
      },
    });
    if (opts.record !== undefined) {
      // The backtest's default config is the demo's (config/paper.yaml) unless one was given.
      const config = opts.config === undefined ? '' : ` --config ${resolve(opts.config)}`;
      ctx.log.info(
        `demo: replay the recording with: npx makerd backtest --data ${resolve(opts.record)}${config}`,
      );
    }
  } finally {
    terminal.clear();
    await sim?.close();
    await redis.close();
  }
}

/** Draws the status line every second on a terminal, else logs it every `everyMs`. */
function showStatus(
  ctx: RoleCommandContext,
  running: RunningProcess,
  terminal: LiveTerminal,
  everyMs: number,
  /** Log lines for machines: the whole report goes with the line. */
  json: boolean,
): () => void {
  const { base } = running;
  const every = terminal.live ? 1_000 : everyMs;
  if (every <= 0) return () => undefined;
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    readBaseStatus(base)
      .then((report) => {
        const line = demoStatusLine(report, running.local());
        if (terminal.live) terminal.setStatus(line);
        else ctx.log.info(json ? { status: report } : {}, line);
      })
      .catch((err: unknown) => ctx.log.warn({ err: errorMessage(err) }, 'status unreadable'))
      .finally(() => (busy = false));
  }, every);
  return () => {
    clearInterval(timer);
    terminal.clear();
  };
}

/** The previous demo's orders and positions belong to a simulator that is gone. */
async function clearPrefix(url: string, prefix: string): Promise<void> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    await deleteKeysUnder(redis, prefix);
  } finally {
    redis.disconnect();
  }
}
