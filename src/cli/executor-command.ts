import type { Command } from 'commander';
import { createMetricsRegistry } from '../obs/index.js';
import { startExecutorRole } from './executor-role.js';
import {
  roleContext,
  runUntilSignal,
  withRoleOptions,
  type RoleCommandOptions,
} from './role-command.js';

export function registerExecutorCommand(program: Command): void {
  withRoleOptions(
    program
      .command('executor')
      .description(
        'run the order executor: take pairs (leases), turn queued intents into order-entry calls',
      ),
  ).action(async (opts: RoleCommandOptions) => {
    const ctx = roleContext('executor', opts);
    const { settings, log } = ctx;
    const role = await startExecutorRole({
      settings,
      log,
      registry: createMetricsRegistry(),
      configDir: ctx.configDir,
    });
    log.info(
      { exchange: settings.exchange.url, tier: role.client.tier, pairs: role.executor.status() },
      'executor started',
    );
    await runUntilSignal(
      'executor',
      ctx,
      () => ({ pairs: role.executor.status() }),
      () => role.stop(),
    );
  });
}
