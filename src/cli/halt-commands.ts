import { hostname, userInfo } from 'node:os';
import type { Command } from 'commander';
import { Redis } from 'ioredis';
import { ControlFlags } from '../bus/index.js';
import { systemClock } from '../core/index.js';
import { loadBotConfig, type BotSettings } from './bot-config.js';
import { resolveCredentials } from './credentials.js';
import { keyClient } from './role-base.js';
import { packageFile } from './sim-command.js';
import { dirname, resolve } from 'node:path';

interface FlagCommandOptions {
  readonly config?: string;
}

/**
 * `makerd halt` and `makerd resume`: the operator's hand on the halt flag that every role obeys.
 * A halt also cancels every order of the key itself, so it works while the supervisor is down.
 */
export function registerHaltCommands(program: Command): void {
  program
    .command('halt')
    .description('halt quoting (every role obeys the flag) and cancel every order of the key')
    .option('--config <file>', 'daemon YAML (default: the package config/paper.yaml)')
    .option('--reason <text>', 'why, shown in status, logs and metrics', 'operator halt')
    .action(async (opts: FlagCommandOptions & { reason: string }) => {
      const { settings, dir } = settingsOf(opts);
      const by = `operator:${userInfo().username}@${hostname()}`;
      await withFlags(settings, async (flags, redis) => {
        const set = await flags.halt(opts.reason, by, Date.now());
        const state = flags.current();
        let cancelled: number | string;
        const client = keyClient(
          settings,
          redis,
          resolveCredentials(settings.exchange, process.env, dir),
          systemClock,
        );
        try {
          cancelled = (await client.cancelAll({ priority: 'high' })).result.count;
        } catch (err) {
          cancelled = `CancelAll failed: ${err instanceof Error ? err.message : String(err)}`;
          process.exitCode = 1;
        } finally {
          await client.close();
        }
        print({
          halted: true,
          already: !set,
          reason: state.reason,
          by: state.by,
          sinceMs: state.sinceMs,
          cancelled,
        });
      });
    });

  program
    .command('resume')
    .description('clear the halt flag: the runner quotes and the executor sends again')
    .option('--config <file>', 'daemon YAML (default: the package config/paper.yaml)')
    .action(async (opts: FlagCommandOptions) => {
      const { settings } = settingsOf(opts);
      await withFlags(settings, async (flags) => {
        const before = await flags.read();
        const cleared = await flags.resume();
        print({ resumed: cleared, was: before.halted ? before.reason : 'not halted' });
      });
    });
}

function settingsOf(opts: FlagCommandOptions): { settings: BotSettings; dir: string } {
  const file = resolve(opts.config ?? packageFile('config', 'paper.yaml') ?? 'config/paper.yaml');
  return { settings: loadBotConfig(file), dir: dirname(file) };
}

async function withFlags(
  settings: BotSettings,
  work: (flags: ControlFlags, redis: Redis) => Promise<void>,
): Promise<void> {
  const redis = new Redis(settings.redis.url, {
    lazyConnect: true,
    maxRetriesPerRequest: 1,
    retryStrategy: () => null,
  });
  try {
    await redis.connect();
    await work(new ControlFlags({ connection: redis, prefix: settings.redis.prefix }), redis);
  } finally {
    redis.disconnect();
  }
}

function print(value: object): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}
