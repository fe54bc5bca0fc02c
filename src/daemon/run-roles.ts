import type { Registry } from 'prom-client';
import { errorMessage, InvalidInputError, systemClock, within } from '../core/index.js';
import {
  createMetricsRegistry,
  type HttpTokens,
  type Logger,
  type RunningHttpServer,
} from '../obs/index.js';
import type { StopReport, Supervisor } from '../safety/index.js';
import { registerBaseMetrics } from './base-metrics.js';
import type { BotSettings } from './bot-config.js';
import { startExecutorRole, type ExecutorRole } from './executor-role.js';
import { httpTokens } from './http-tokens.js';
import { builtInStrategies } from './package-file.js';
import { openRoleBase, type LiveRoleBase, type RoleBase } from './role-base.js';
import { checkStrategies, startRunnerRole, type RunnerRole } from './runner-role.js';
import { runnerStatus } from './runner-status.js';
import { processStallWatch } from './stall-report.js';
import { logShutdown, startSupervisorRole, type SupervisorRole } from './supervisor-role.js';

export type RoleName = 'runner' | 'executor' | 'supervisor';
const ALL_ROLES: readonly RoleName[] = ['runner', 'executor', 'supervisor'];

/** How long the runner and the executor each get to stop before the supervisor cancels anyway. */
const ROLE_STOP_MS = 5_000;
/**
 * How much longer a role late to stop is waited for before Redis is closed under it. A step
 * waiting for REST budget (after a halt's calls, seconds per call on the starter tier) ends
 * within this; a BullMQ worker whose connection closes under it retries forever, keeping the
 * process alive. A second Ctrl-C still exits at once.
 */
const LATE_STOP_MS = 30_000;

/** What the roles of a process run with. */
export interface ProcessContext {
  readonly settings: BotSettings;
  readonly log: Logger;
  /** Relative paths in the config are read from here. */
  readonly configDir: string;
  /** Log a status line this often; 0: never. */
  readonly statusEveryMs: number;
}

/**
 * The process's HTTP endpoint, served by a module above the daemon (the console's, which the
 * endpoint carries): runRoles says when, and with what.
 */
export interface HttpDoor {
  /** Once the process's Redis is open, before any role starts: what serves once they run. */
  open(
    base: LiveRoleBase,
    settings: BotSettings,
  ): { serve(parts: DoorParts): Promise<RunningHttpServer> };
}

export interface DoorParts {
  readonly settings: BotSettings;
  /** The control and read tokens (httpTokens), read before the roles start. */
  readonly tokens: HttpTokens;
  readonly log: Logger;
  readonly registry: Registry;
  readonly base: LiveRoleBase;
  /** This process's supervisor, if it runs one: halts then go through it (cancel, then sweep). */
  readonly supervisor: Supervisor | undefined;
  /** What this process's roles say of themselves (under `process` in /status). */
  readonly local: () => object;
}

/** What a running process offers to whoever watches it (the demo's status line). */
export interface RunningProcess {
  readonly base: RoleBase;
  readonly http: RunningHttpServer;
  /** What this process's roles say of themselves. */
  local(): object;
}

export interface RunOptions {
  /** The log line saying the process runs. */
  readonly startedMsg: string;
  readonly door: HttpDoor;
  /**
   * Resolves, with why, when the process is asked to stop (the command line's signals). Listened
   * to from before the start-up: a Ctrl-C while the roles start, when orders may already rest, is
   * an orderly stop once they have started, not the default exit that leaves them on the book.
   */
  readonly stopAsked: Promise<string>;
  /** Stop as on a signal after this long (default: only on a signal). */
  readonly stopAfterMs?: number;
  /** The exchange is this process's alone (RoleBaseParts.ownExchange). */
  readonly ownExchange?: boolean;
  /** Called once running; what it returns is called when the process starts stopping. */
  readonly onRunning?: (process: RunningProcess) => () => void;
  /**
   * Called once every role stopped, before Redis closes (the demo's summary): `shutdown` is the
   * supervisor's cancel and disarm, absent when this process runs none.
   */
  readonly onStopped?: (process: StoppedProcess) => Promise<void>;
}

export interface StoppedProcess {
  readonly base: RoleBase;
  readonly shutdown?: StopReport;
}

/**
 * Runs the roles on one base until a signal, then stops them in order: runner, executor, then
 * the supervisor's cancel and disarm. `makerd run` runs all three on one base (one client, so one
 * REST limiter and one nonce stream), `makerd runner|executor|supervisor` one each for split
 * deployments. Every process serves the HTTP endpoint.
 */
export async function runRoles(
  label: string,
  ctx: ProcessContext,
  roles: readonly RoleName[],
  options: RunOptions,
): Promise<void> {
  const { settings, log } = ctx;
  let started = false;
  void options.stopAsked.then((signal) => {
    if (!started)
      log.info({ signal }, `${label}: stop asked while starting: stopping once started`);
  });
  refuseSplitWithoutWindow(settings, roles);
  // Read (and a short token refused) before anything trades.
  const tokens = httpTokens(settings.http, process.env, log.child({ component: 'http' }));
  if (roles.includes('runner')) await checkStrategies(settings, builtInStrategies());
  const registry = createMetricsRegistry();
  const base = await openRoleBase(settings, {
    configDir: ctx.configDir,
    log,
    record: roles.includes('runner'),
    ...(options.ownExchange === true ? { ownExchange: true } : {}),
  });
  // Its roles look from their start; it counts from the end of the start-up, which may be slow.
  const stallWatch = processStallWatch(base.clock, log, registry);
  const stopWatching = new AbortController();
  let watching: Promise<void> | undefined;
  const parts = { settings, log, registry, configDir: ctx.configDir, base, stallWatch };
  const door = options.door.open(base, settings);
  let executor: ExecutorRole | undefined;
  let runner: RunnerRole | undefined;
  let supervisor: SupervisorRole | undefined;
  let http: RunningHttpServer | undefined;
  /** The stops of roles that outlived ROLE_STOP_MS (the supervisor cancelled meanwhile). */
  const late: Promise<unknown>[] = [];
  // SIGHUP reads the token files again (they are also followed as they change).
  const reread = (): void => {
    tokens.reload();
    log.info({}, 'SIGHUP: token files read again');
  };
  process.on('SIGHUP', reread);
  try {
    registerBaseMetrics(registry, base);
    if (roles.includes('executor')) executor = await startExecutorRole(parts);
    if (roles.includes('runner')) {
      runner = await startRunnerRole({ ...parts, strategiesDir: builtInStrategies() });
    }
    if (roles.includes('supervisor')) {
      // Alone, its runner and executor run elsewhere: stopping it must halt them, since they would
      // otherwise quote with no dead-man switch.
      supervisor = await startSupervisorRole({ ...parts, alone: roles.length === 1 });
    }
    const local = (): object => ({
      ...(runner === undefined ? {} : runnerStatus(runner)),
      ...(executor === undefined ? {} : { executor: executor.executor.status() }),
      ...(supervisor === undefined ? {} : { supervisor: supervisor.supervisor.status() }),
    });
    http = await door.serve({
      settings,
      tokens,
      log,
      registry,
      base,
      supervisor: supervisor?.supervisor,
      local,
    });
    log.info(
      {
        exchange: settings.exchange.url,
        tier: base.client.tier,
        http: http.url,
        roles,
        pairs: settings.pairs.map((p) => `${p.pair}:${p.strategy.name}`),
        ...(runner === undefined
          ? {}
          : {
              private_per_sec: rounded(runner.plan.private),
              public_per_sec: rounded(runner.plan.public),
            }),
      },
      options.startedMsg,
    );
    started = true;
    watching = stallWatch.run(stopWatching.signal);
    const detach = options.onRunning?.({ base, http, local });
    await runUntilStopped(
      label,
      ctx,
      local,
      async () => {
        detach?.();
        // No new intents, then no new calls, then every order cancelled and the timer disarmed. A
        // role that does not stop in time must not keep the cancel from happening.
        const [r, e, sup] = [runner, executor, supervisor];
        runner = executor = supervisor = undefined;
        if (r !== undefined) await settle('runner', r.stop(), log, late);
        if (e !== undefined) await settle('executor', e.stop(), log, late);
        const shutdown = await sup?.stop();
        if (shutdown !== undefined) {
          logShutdown(log, shutdown, settings.supervisor.shutdown.cancel_orders);
        }
        await options.onStopped?.({ base, ...(shutdown === undefined ? {} : { shutdown }) });
      },
      options,
    );
  } finally {
    process.off('SIGHUP', reread);
    await lateStops(late, log);
    // Whatever is still running here failed to start or to stop in order: newest first.
    for (const part of [supervisor, runner, executor]) await part?.stop().catch(() => undefined);
    stopWatching.abort();
    await watching;
    await http?.close();
    await base.close();
  }
}

/**
 * Logs `status()` every statusEveryMs until `stopAsked` resolves (or `stopAfterMs` passes), then
 * stops the roles and flushes the log.
 */
async function runUntilStopped(
  label: string,
  ctx: ProcessContext,
  status: () => object,
  stop: () => Promise<void>,
  options: Pick<RunOptions, 'stopAsked' | 'stopAfterMs'>,
): Promise<void> {
  const { log } = ctx;
  const { stopAfterMs } = options;
  const timer =
    ctx.statusEveryMs > 0
      ? setInterval(() => log.info(status(), `${label} status`), ctx.statusEveryMs)
      : undefined;
  let deadline: NodeJS.Timeout | undefined;
  const signal = await Promise.race([
    options.stopAsked,
    ...(stopAfterMs === undefined
      ? []
      : [
          new Promise<string>(
            (done) => (deadline = setTimeout(() => done('time up'), stopAfterMs)),
          ),
        ]),
  ]);
  clearInterval(timer);
  clearTimeout(deadline);
  log.info({ signal }, `${label} stopping`);
  await stop();
  log.info({}, `${label} stopped`);
  log.flush();
}

/**
 * A key without a nonce window takes its private calls one at a time, which one client can do
 * and several processes cannot: their requests would reach the exchange out of nonce order and be
 * refused (enough refusals lock the key out). Refused before anything is opened.
 */
function refuseSplitWithoutWindow(settings: BotSettings, roles: readonly RoleName[]): void {
  const together = ALL_ROLES.every((role) => roles.includes(role));
  if (together || settings.exchange.nonce_window > 0) return;
  throw new InvalidInputError(
    'exchange.nonce_window',
    'is 0, but requests from separate processes reach the exchange out of nonce order; set ' +
      "the key's nonce window at the exchange and the same value here, or run 'makerd run'",
  );
}

/**
 * Waits for a role to stop, at most ROLE_STOP_MS; past it, says so, keeps the stop in `late`
 * (lateStops waits for it again before Redis closes) and goes on.
 */
async function settle(
  role: string,
  work: Promise<unknown>,
  log: Logger,
  late: Promise<unknown>[],
): Promise<void> {
  const stopping = work.catch((err: unknown) =>
    log.error({ role, err: errorMessage(err) }, 'stopping a role failed'),
  );
  const stopped = await within(systemClock, stopping, ROLE_STOP_MS);
  if (stopped.done) return;
  log.error({ role, boundMs: ROLE_STOP_MS }, 'role did not stop in time: going on');
  late.push(stopping);
}

/** The late roles' stops, given LATE_STOP_MS more before their connections close under them. */
async function lateStops(late: readonly Promise<unknown>[], log: Logger): Promise<void> {
  if (late.length === 0) return;
  const waited = await within(systemClock, Promise.all(late), LATE_STOP_MS);
  if (!waited.done) {
    log.error({ boundMs: LATE_STOP_MS }, 'a role still has not stopped: closing Redis under it');
  }
}

/** Budget figures to three decimals: the log is for people. */
function rounded(budget: object): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(budget).map(([k, v]) => [
      k,
      typeof v === 'number' ? Math.round(v * 1000) / 1000 : v,
    ]),
  );
}
