import { dirname, resolve } from 'node:path';
import type { Command } from 'commander';
import { Registry } from 'prom-client';
import { InvalidInputError } from '../core/index.js';
import { createLogger } from '../obs/index.js';
import { loadBotConfig } from './bot-config.js';
import { startExecutorRole } from './executor-role.js';
import { packageFile } from './sim-command.js';
import { untilSignal } from './signals.js';

interface ExecutorCommandOptions {
  readonly config?: string;
  readonly logLevel?: string;
  readonly statusEvery: string;
}

export function registerExecutorCommand(program: Command): void {
  program
    .command('executor')
    .description(
      'run the order executor: take pairs (leases), turn queued intents into order-entry calls',
    )
    .option('--config <file>', 'daemon YAML (default: the package config/paper.yaml)')
    .option('--log-level <level>', 'trace, debug, info, warn or error')
    .option('--status-every <seconds>', 'log a status line this often (0: never)', '30')
    .action(async (opts: ExecutorCommandOptions) => {
      const file = opts.config ?? packageFile('config', 'paper.yaml');
      if (file === undefined) {
        throw new InvalidInputError(
          '--config',
          'no file given and no package config/paper.yaml found',
        );
      }
      const every = Number(opts.statusEvery);
      if (!Number.isFinite(every) || every < 0) {
        throw new InvalidInputError(
          '--status-every',
          `must be a number of seconds >= 0, got ${opts.statusEvery}`,
        );
      }
      const path = resolve(file);
      const settings = loadBotConfig(path);
      const log = createLogger({
        level: opts.logLevel ?? settings.log.level,
        base: { role: 'executor', instance: settings.instance },
      });
      const role = await startExecutorRole({
        settings,
        log,
        registry: new Registry(),
        configDir: dirname(path),
      });
      log.info(
        { exchange: settings.exchange.url, tier: role.client.tier, pairs: role.executor.status() },
        'executor started',
      );
      const timer =
        every > 0
          ? setInterval(
              () => log.info({ pairs: role.executor.status() }, 'executor status'),
              every * 1000,
            )
          : undefined;
      const signal = await untilSignal();
      clearInterval(timer);
      log.info({ signal }, 'executor stopping');
      await role.stop();
      log.info({}, 'executor stopped');
      log.flush();
    });
}
