import type { Command } from 'commander';
import { createMetricsRegistry } from '../obs/index.js';
import {
  roleContext,
  runUntilSignal,
  withRoleOptions,
  type RoleCommandOptions,
} from './role-command.js';
import { logShutdown, startSupervisorRole } from './supervisor-role.js';

export function registerSupervisorCommand(program: Command): void {
  withRoleOptions(
    program
      .command('supervisor')
      .description(
        'run the safety supervisor alone: dead-man heartbeats, SystemStatus watch, halts (halts when stopped)',
      ),
  ).action(async (opts: RoleCommandOptions) => {
    const ctx = roleContext('supervisor', opts);
    const { settings, log } = ctx;
    const role = await startSupervisorRole({
      settings,
      log,
      registry: createMetricsRegistry(),
      configDir: ctx.configDir,
      alone: true,
    });
    log.info(
      { ...role.supervisor.status(), url: settings.exchange.url, http: role.http.url },
      'supervisor started',
    );
    await runUntilSignal(
      'supervisor',
      ctx,
      () => role.supervisor.status(),
      async () => {
        const report = await role.stop();
        logShutdown(log, report, settings.supervisor.shutdown.cancel_orders);
      },
    );
  });
}
