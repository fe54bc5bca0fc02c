import { resolve } from 'node:path';
import { Redis } from 'ioredis';
import { deleteKeysUnder } from '../bus/index.js';
import { InvalidInputError, MakerdError, errorMessage, systemClock } from '../core/index.js';
import { checkPortFree } from '../obs/index.js';
// pretty-log.js, not obs/index.js: the roles' processes need no pino-pretty.
import { prettyLog } from '../obs/pretty-log.js';
import { loadSimConfig, startSimulator, type Simulator } from '../sim/index.js';
import { bestQuotes, type PairQuotes } from '../orders/index.js';
import { demoStatusLines } from './demo-status.js';
import { demoSummary, type SummaryLine } from './demo-summary.js';
import { LiveTerminal } from './live-terminal.js';
import { roleContext, secondsOption, type RoleCommandContext } from './role-command.js';
import { untilSignal } from './signals.js';
import { processHttpDoor } from '../console/process-http.js';
import { resolveCredentials } from '../daemon/credentials.js';
import { packageFile } from '../daemon/package-file.js';
import { prefixUser } from '../daemon/prefix-in-use.js';
import { findRedis } from '../daemon/redis-finder.js';
import { shownRedisUrl, type RoleBase } from '../daemon/role-base.js';
import { runRoles, type RunningProcess } from '../daemon/run-roles.js';
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
  // Before anything starts, so that a Ctrl-C during the start-up stops in order (run-roles.ts).
  const stopAsked = untilSignal();
  const stopAfterMs =
    opts.seconds === undefined ? undefined : secondsOption('--seconds', opts.seconds);
  const statusEveryMs = secondsOption('--status-every', opts.statusEvery);
  const terminal = new LiveTerminal();
  const destination =
    opts.json === true
      ? undefined
      : prettyLog({
          destination: terminal.logStream,
          colorize: terminal.live,
          ignore: 'pid,hostname,role,instance',
        });
  const simYaml = packageFile('config', 'sim.yaml');
  if (simYaml === undefined) {
    throw new InvalidInputError('config/sim.yaml', 'the package simulator config is missing');
  }
  const env = process.env;
  const redisUrl = env.MAKERD_REDIS_URL || env.REDIS_URL || 'redis://127.0.0.1:6379';
  const redis = await findRedis(redisUrl, env.MAKERD_REDIS_SERVER || 'redis-server');
  let sim: Simulator | undefined;
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
    // Nothing is cleared before both are known free: the prefix, whose state, halt flag and pairs
    // another demo there would lose to this one, and the port this one would then fail on.
    await refuseIfRunning(redis.url, ctx.settings.redis.prefix);
    await checkPortFree(ctx.settings.http.host, ctx.settings.http.port);
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
    const startedMs = systemClock.now();
    const apiKey = resolveCredentials(ctx.settings.exchange, env, ctx.configDir).apiKey;
    const simulator = sim;
    let summary: SummaryLine[] = [];
    await runRoles('makerd', ctx, ['runner', 'executor', 'supervisor'], {
      startedMsg: 'makerd demo running',
      door: processHttpDoor(ctx.logTap),
      // Its simulator is new: the paper key's counters carried in Redis are other exchanges'.
      ownExchange: true,
      stopAsked,
      ...(stopAfterMs === undefined ? {} : { stopAfterMs }),
      onRunning: (running) => {
        const url = running.http.url;
        ctx.log.info({ console: `${url}/` }, `demo: operator console at ${url}/`);
        // `makerd halt` alone would not find this demo: its simulator and Redis are its own.
        ctx.log.info(
          { halt: `npx makerd halt --http ${url}` },
          `demo: to halt it from another shell: npx makerd halt --http ${url} ` +
            '(resume, pull PAIR, restore PAIR and status take --http the same way)',
        );
        return showStatus(ctx, running, terminal, statusEveryMs, opts.json === true);
      },
      onStopped: async ({ base, shutdown }) => {
        summary = demoSummary({
          ranMs: systemClock.now() - startedMs,
          report: await readBaseStatus(base),
          shutdown,
          cancelAsked: ctx.settings.supervisor.shutdown.cancel_orders,
          ordersLeft: ordersOnBook(simulator, apiKey),
        });
      },
    });
    // Its figures as fields for machines (--json); a person reads them in the message.
    for (const line of summary)
      ctx.log[line.level](opts.json === true ? line.fields : {}, line.msg);
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
    Promise.all([readBaseStatus(base), ourQuotes(base)])
      .then(([report, quotes]) => {
        // A log line has no width to fit: the whole status goes on one line.
        const width = terminal.live ? terminal.width : Infinity;
        const lines = demoStatusLines(report, running.local(), quotes, width);
        if (terminal.live) terminal.setStatus(lines);
        else ctx.log.info(json ? { status: report } : {}, lines.join(' | '));
      })
      .catch((err: unknown) => ctx.log.warn({ err: errorMessage(err) }, 'status unreadable'))
      .finally(() => (busy = false));
  }, every);
  return () => {
    clearInterval(timer);
    terminal.clear();
  };
}

/** Our best bid and ask per pair (altname), from the tracker: what rests on the book. */
async function ourQuotes(base: RoleBase): Promise<Map<string, PairQuotes>> {
  const quotes = await Promise.all(
    base.pairs.map(async (p) => [p.altname, bestQuotes(await base.tracker.live(p.id))] as const),
  );
  return new Map(quotes);
}

/** The paper account's orders on the simulator's book by pair: the exchange's own count. */
function ordersOnBook(sim: Simulator, apiKey: string): Map<string, number> {
  const left = new Map<string, number>();
  const account = sim.ctx.accounts.get(apiKey);
  for (const o of account === undefined ? [] : sim.ctx.engine.openOrders(account)) {
    left.set(o.pair.altname, (left.get(o.pair.altname) ?? 0) + 1);
  }
  return left;
}

/** Refused while a makerd works the prefix (another demo), in one line saying how to run both. */
async function refuseIfRunning(url: string, prefix: string): Promise<void> {
  const user = await withRedis(url, (redis) => prefixUser(redis, prefix, systemClock.now()));
  if (user === undefined) return;
  const seen =
    user.beatAgeMs === undefined
      ? 'holding its pairs'
      : `alive ${(user.beatAgeMs / 1000).toFixed(1)} s ago`;
  throw new MakerdError(
    'PREFIX_IN_USE',
    `another makerd${prefix === DEMO_PREFIX ? ' demo' : ''} is running on ${shownRedisUrl(url)} ` +
      `under prefix ${prefix} (${seen}): stop it, or run this one under a prefix and a port of ` +
      `its own: MAKERD_REDIS_PREFIX=${prefix}-2 MAKERD_HTTP_PORT=0 npx makerd demo`,
  );
}

/** The previous demo's orders and positions belong to a simulator that is gone. */
function clearPrefix(url: string, prefix: string): Promise<void> {
  return withRedis(url, (redis) => deleteKeysUnder(redis, prefix));
}

async function withRedis<T>(url: string, use: (redis: Redis) => Promise<T>): Promise<T> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    return await use(redis);
  } finally {
    redis.disconnect();
  }
}
