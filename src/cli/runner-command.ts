import type { Command } from 'commander';
import { createMetricsRegistry } from '../obs/index.js';
import { startRunnerRole } from './runner-role.js';
import { runnerStatus } from './runner-status.js';
import {
  builtInStrategies,
  roleContext,
  runUntilSignal,
  withRoleOptions,
  type RoleCommandOptions,
} from './role-command.js';

export function registerRunnerCommand(program: Command): void {
  withRoleOptions(
    program
      .command('runner')
      .description(
        'run the strategy runner: poll market data, quote, publish order intents to Redis',
      ),
  ).action(async (opts: RoleCommandOptions) => {
    const ctx = roleContext('runner', opts);
    const { settings, log } = ctx;
    const strategiesDir = builtInStrategies();
    const role = await startRunnerRole({
      settings,
      log,
      registry: createMetricsRegistry(),
      strategiesDir,
      configDir: ctx.configDir,
    });
    log.info(
      {
        exchange: settings.exchange.url,
        tier: role.client.tier,
        pairs: settings.pairs.map((p) => `${p.pair}:${p.strategy.name}`),
        queue: role.bus.queueName,
        private_per_sec: rounded(role.plan.private),
        public_per_sec: rounded(role.plan.public),
      },
      'runner started',
    );
    await runUntilSignal(
      'runner',
      ctx,
      () => runnerStatus(role),
      () => role.stop(),
    );
  });
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
