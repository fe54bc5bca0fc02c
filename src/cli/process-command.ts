import { errorMessage, InvalidInputError, systemClock, within } from '../core/index.js';
import { createMetricsRegistry, type Logger, type RunningHttpServer } from '../obs/index.js';
import { registerBaseMetrics } from '../daemon/base-metrics.js';
import { ConsoleEvents } from '../console/console-events.js';
import { startExecutorRole, type ExecutorRole } from '../daemon/executor-role.js';
import { startProcessHttp } from './process-http.js';
import type { BotSettings } from '../daemon/bot-config.js';
import { openRoleBase, type RoleBase } from '../daemon/role-base.js';
import {
  builtInStrategies,
  roleContext,
  runUntilSignal,
  type RoleCommandContext,
  type RoleCommandOptions,
} from './role-command.js';
import { checkStrategies, startRunnerRole, type RunnerRole } from '../daemon/runner-role.js';
import { runnerStatus } from '../daemon/runner-status.js';
import {
  logShutdown,
  startSupervisorRole,
  type SupervisorRole,
} from '../daemon/supervisor-role.js';

export type RoleName = 'runner' | 'executor' | 'supervisor';
const ALL_ROLES: readonly RoleName[] = ['runner', 'executor', 'supervisor'];

/** How long the runner and the executor each get to stop before the supervisor cancels anyway. */
const ROLE_STOP_MS = 5_000;

/**
 * A command that runs some of the roles in this process: `makerd run` all three on one base (one
 * client, so one REST limiter and one nonce stream), `makerd runner|executor|supervisor` one each
 * for split deployments. Every process serves the HTTP endpoint.
 */
export function runProcessCommand(
  name: string,
  roles: readonly RoleName[],
  opts: RoleCommandOptions,
): Promise<void> {
  const label = name === 'run' ? 'makerd' : name;
  return runRoles(label, roleContext(label, opts), roles, {
    startedMsg: name === 'run' ? 'makerd running' : `${name} started`,
  });
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
  /** Stop as on a signal after this long (default: only on a signal). */
  readonly stopAfterMs?: number;
  /** Called once running; what it returns is called when the process starts stopping. */
  readonly onRunning?: (process: RunningProcess) => () => void;
}

/**
 * Runs the roles on one base until a signal, then stops them in order: runner, executor, then
 * the supervisor's cancel and disarm.
 */
export async function runRoles(
  label: string,
  ctx: RoleCommandContext,
  roles: readonly RoleName[],
  options: RunOptions,
): Promise<void> {
  const { settings, log } = ctx;
  refuseSplitWithoutWindow(settings, roles);
  if (roles.includes('runner')) await checkStrategies(settings, builtInStrategies());
  const registry = createMetricsRegistry();
  const base = await openRoleBase(settings, {
    configDir: ctx.configDir,
    log,
    record: roles.includes('runner'),
  });
  const parts = { settings, log, registry, configDir: ctx.configDir, base };
  // Every process's warnings and errors go to the deployment's console events from here on.
  const events = new ConsoleEvents(base.redis, settings.redis.prefix);
  ctx.logTap.attach(events);
  let executor: ExecutorRole | undefined;
  let runner: RunnerRole | undefined;
  let supervisor: SupervisorRole | undefined;
  let http: RunningHttpServer | undefined;
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
    http = await startProcessHttp({
      settings,
      log,
      registry,
      base,
      supervisor: supervisor?.supervisor,
      local,
      events,
      pulled: base.pulled,
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
    const detach = options.onRunning?.({ base, http, local });
    await runUntilSignal(
      label,
      ctx,
      local,
      async () => {
        detach?.();
        // No new intents, then no new calls, then every order cancelled and the timer disarmed. A
        // role that does not stop in time must not keep the cancel from happening.
        const [r, e, sup] = [runner, executor, supervisor];
        runner = executor = supervisor = undefined;
        if (r !== undefined) await settle('runner', r.stop(), ROLE_STOP_MS, log);
        if (e !== undefined) await settle('executor', e.stop(), ROLE_STOP_MS, log);
        if (sup !== undefined) {
          logShutdown(log, await sup.stop(), settings.supervisor.shutdown.cancel_orders);
        }
      },
      options.stopAfterMs,
    );
  } finally {
    // Whatever is still running here failed to start or to stop in order: newest first.
    for (const part of [supervisor, runner, executor]) await part?.stop().catch(() => undefined);
    await http?.close();
    await base.close();
  }
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

/** Waits for a role to stop, at most `ms`; past it, says so and goes on. */
async function settle(
  role: string,
  work: Promise<unknown>,
  ms: number,
  log: Logger,
): Promise<void> {
  const stopped = await within(
    systemClock,
    work.catch((err: unknown) =>
      log.error({ role, err: errorMessage(err) }, 'stopping a role failed'),
    ),
    ms,
  );
  if (!stopped.done) log.error({ role, boundMs: ms }, 'role did not stop in time: going on');
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
