import { dirname, resolve } from 'node:path';
import type { Command } from 'commander';
import { Registry } from 'prom-client';
import { InvalidInputError } from '../core/index.js';
import { createLogger } from '../obs/index.js';
import { loadBotConfig } from './bot-config.js';
import { startRunnerRole } from './runner-role.js';
import { runnerStatus } from './runner-status.js';
import { packageFile } from './sim-command.js';
import { untilSignal } from './signals.js';

interface RunnerCommandOptions {
  readonly config?: string;
  readonly logLevel?: string;
  readonly statusEvery: string;
}

export function registerRunnerCommand(program: Command): void {
  program
    .command('runner')
    .description('run the strategy runner: poll market data, quote, publish order intents to Redis')
    .option('--config <file>', 'daemon YAML (default: the package config/paper.yaml)')
    .option('--log-level <level>', 'trace, debug, info, warn or error')
    .option('--status-every <seconds>', 'log a status line this often (0: never)', '30')
    .action(async (opts: RunnerCommandOptions) => {
      const file = opts.config ?? packageFile('config', 'paper.yaml');
      if (file === undefined)
        throw new InvalidInputError(
          '--config',
          'no file given and no package config/paper.yaml found',
        );
      const path = resolve(file);
      const settings = loadBotConfig(path);
      const log = createLogger({
        level: opts.logLevel ?? settings.log.level,
        base: { role: 'runner', instance: settings.instance },
      });
      const strategiesDir = packageFile('strategies');
      if (strategiesDir === undefined)
        throw new InvalidInputError('strategies', 'the package strategies/ folder is missing');
      const role = await startRunnerRole({
        settings,
        log,
        registry: new Registry(),
        strategiesDir,
        configDir: dirname(path),
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
      const every = Number(opts.statusEvery);
      if (!Number.isFinite(every) || every < 0) {
        throw new InvalidInputError(
          '--status-every',
          `must be a number of seconds >= 0, got ${opts.statusEvery}`,
        );
      }
      const timer =
        every > 0
          ? setInterval(() => log.info(runnerStatus(role), 'runner status'), every * 1000)
          : undefined;
      const signal = await untilSignal();
      clearInterval(timer);
      log.info({ signal }, 'runner stopping');
      await role.stop();
      log.info({}, 'runner stopped');
      log.flush();
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
