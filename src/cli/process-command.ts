import type { Command } from 'commander';
import { errorMessage, systemClock, within } from '../core/index.js';
import { createMetricsRegistry, type Logger, type RunningHttpServer } from '../obs/index.js';
import { registerBaseMetrics } from './base-metrics.js';
import { startExecutorRole, type ExecutorRole } from './executor-role.js';
import { startProcessHttp } from './process-http.js';
import { openRoleBase } from './role-base.js';
import {
  builtInStrategies,
  roleContext,
  runUntilSignal,
  withRoleOptions,
  type RoleCommandOptions,
} from './role-command.js';
import { startRunnerRole, type RunnerRole } from './runner-role.js';
import { runnerStatus } from './runner-status.js';
import { logShutdown, startSupervisorRole, type SupervisorRole } from './supervisor-role.js';

export type RoleName = 'runner' | 'executor' | 'supervisor';

/** How long the runner and the executor each get to stop before the supervisor cancels anyway. */
const ROLE_STOP_MS = 5_000;

/**
 * Registers a command that runs some of the roles in this process: `makerd run` all three on one
 * base (one client, so one REST limiter and one nonce stream), `makerd runner|executor|supervisor`
 * one each for split deployments. Every process serves the HTTP endpoint.
 */
export function registerProcessCommand(
  program: Command,
  name: string,
  description: string,
  roles: readonly RoleName[],
): void {
  withRoleOptions(program.command(name).description(description)).action(
    (opts: RoleCommandOptions) => runProcess(name, opts, roles),
  );
}

async function runProcess(
  name: string,
  opts: RoleCommandOptions,
  roles: readonly RoleName[],
): Promise<void> {
  const label = name === 'run' ? 'makerd' : name;
  const ctx = roleContext(label, opts);
  const { settings, log } = ctx;
  const registry = createMetricsRegistry();
  const base = await openRoleBase(settings, { configDir: ctx.configDir });
  const parts = { settings, log, registry, configDir: ctx.configDir, base };
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
      name === 'run' ? 'makerd running' : `${name} started`,
    );
    await runUntilSignal(label, ctx, local, async () => {
      // No new intents, then no new calls, then every order cancelled and the timer disarmed. A
      // role that does not stop in time must not keep the cancel from happening.
      const stopping = [runner, executor];
      runner = executor = undefined;
      for (const [role, part] of [
        ['runner', stopping[0]],
        ['executor', stopping[1]],
      ] as const) {
        if (part !== undefined) await settle(role, part.stop(), ROLE_STOP_MS, log);
      }
      const sup = supervisor;
      supervisor = undefined;
      if (sup !== undefined) {
        logShutdown(log, await sup.stop(), settings.supervisor.shutdown.cancel_orders);
      }
    });
  } finally {
    // Whatever is still running here failed to start or to stop in order: newest first.
    for (const part of [supervisor, runner, executor]) await part?.stop().catch(() => undefined);
    await http?.close();
    await base.close();
  }
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
