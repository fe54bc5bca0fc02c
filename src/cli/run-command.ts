import type { Command } from 'commander';
import { createMetricsRegistry, type Logger } from '../obs/index.js';
import { startExecutorRole } from './executor-role.js';
import { openRoleBase } from './role-base.js';
import {
  builtInStrategies,
  roleContext,
  runUntilSignal,
  withRoleOptions,
  type RoleCommandOptions,
} from './role-command.js';
import { startRunnerRole } from './runner-role.js';
import { runnerStatus } from './runner-status.js';
import { logShutdown, startSupervisorRole } from './supervisor-role.js';
import { errorMessage, systemClock, within } from '../core/index.js';

/** How long the runner and the executor each get to stop before the supervisor cancels anyway. */
const ROLE_STOP_MS = 5_000;

export function registerRunCommand(program: Command): void {
  withRoleOptions(
    program
      .command('run')
      .description('run runner, executor and supervisor in one process (the default deployment)'),
  ).action(async (opts: RoleCommandOptions) => {
    const ctx = roleContext('makerd', opts);
    const { settings, log } = ctx;
    const strategiesDir = builtInStrategies();
    const registry = createMetricsRegistry();
    // One base for the three roles: one client, so one REST limiter and one nonce stream.
    const base = await openRoleBase(settings, { configDir: ctx.configDir });
    const parts = { settings, log, registry, configDir: ctx.configDir, base };
    // Roles started so far, stopped (newest first) if a later one fails to start.
    const started: { stop(): Promise<unknown> }[] = [];
    try {
      const executor = await startExecutorRole(parts);
      started.push(executor);
      const runner = await startRunnerRole({ ...parts, strategiesDir });
      started.push(runner);
      const supervisor = await startSupervisorRole({ ...parts, alone: false });
      started.length = 0;
      log.info(
        {
          exchange: settings.exchange.url,
          tier: base.client.tier,
          http: supervisor.http.url,
          pairs: settings.pairs.map((p) => `${p.pair}:${p.strategy.name}`),
        },
        'makerd running',
      );
      await runUntilSignal(
        'makerd',
        ctx,
        () => ({
          ...runnerStatus(runner),
          executor: executor.executor.status(),
          supervisor: supervisor.supervisor.status(),
        }),
        async () => {
          // No new intents, then no new calls, then every order cancelled and the timer
          // disarmed. A role that does not stop in time must not keep the cancel from happening.
          await settle('runner', runner.stop(), ROLE_STOP_MS, log);
          await settle('executor', executor.stop(), ROLE_STOP_MS, log);
          const report = await supervisor.stop();
          logShutdown(log, report, settings.supervisor.shutdown.cancel_orders);
        },
      );
    } finally {
      for (const role of started.reverse()) await role.stop().catch(() => undefined);
      await base.close();
    }
  });
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
