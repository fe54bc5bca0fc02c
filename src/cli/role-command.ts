import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { InvalidInputError } from '../core/index.js';
import type { DestinationStream } from 'pino';
import { createLogger, type Logger } from '../obs/index.js';
import { LogTap } from '../console/console-events.js';
import { loadBotConfig, type BotSettings } from '../daemon/bot-config.js';
import { packageFile } from '../daemon/package-file.js';
import { untilSignal } from './signals.js';

/** The options every role command takes. */
export interface RoleCommandOptions {
  readonly config?: string;
  readonly logLevel?: string;
  readonly statusEvery: string;
}

export interface RoleCommandContext {
  readonly settings: BotSettings;
  readonly log: Logger;
  /** Relative paths in the config are read from here. */
  readonly configDir: string;
  /** 0: no status lines. */
  readonly statusEveryMs: number;
  /** The log's warn and error lines, for the console once Redis is open (LogTap.attach). */
  readonly logTap: LogTap;
}

/** `--config`, or the package's config/paper.yaml: the settings and the folder they came from. */
export function loadSettings(
  config: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): {
  readonly settings: BotSettings;
  readonly file: string;
  readonly dir: string;
} {
  const given = config ?? packageFile('config', 'paper.yaml');
  if (given === undefined) {
    throw new InvalidInputError('--config', 'no file given and no package config/paper.yaml found');
  }
  const file = resolve(given);
  return { settings: loadBotConfig(file, env), file, dir: dirname(file) };
}

/** Where a process's settings come from and where its log goes (the demo sets both). */
export interface ContextSetup {
  readonly env?: NodeJS.ProcessEnv;
  /** Default stdout, one JSON line per event. */
  readonly destination?: DestinationStream;
}

/** A command-line duration in seconds (>= 0), as milliseconds; bad input names the flag. */
export function secondsOption(flag: string, text: string): number {
  const n = Number(text);
  if (text.trim() === '' || !Number.isFinite(n) || n < 0) {
    throw new InvalidInputError(flag, `must be a number of seconds >= 0, got ${text}`);
  }
  return n * 1000;
}

/** Loads the config (bad input names the option or field) and the role's logger. */
export function roleContext(
  role: string,
  opts: RoleCommandOptions,
  setup: ContextSetup = {},
): RoleCommandContext {
  const statusEveryMs = secondsOption('--status-every', opts.statusEvery);
  const { settings, dir } = loadSettings(opts.config, setup.env);
  const logTap = new LogTap();
  const log = createLogger({
    level: opts.logLevel ?? settings.log.level,
    base: { role, instance: settings.instance },
    ...(setup.destination === undefined ? {} : { destination: setup.destination }),
    warnTap: logTap,
  });
  return { settings, log, configDir: dir, statusEveryMs, logTap };
}

/**
 * Logs `status()` every statusEveryMs until SIGINT or SIGTERM (or `stopAfterMs`), then stops the
 * role (a second signal exits at once) and flushes the log.
 */
export async function runUntilSignal(
  role: string,
  ctx: RoleCommandContext,
  status: () => object,
  stop: () => Promise<void>,
  stopAfterMs?: number,
): Promise<void> {
  const { log } = ctx;
  const timer =
    ctx.statusEveryMs > 0
      ? setInterval(() => log.info(status(), `${role} status`), ctx.statusEveryMs)
      : undefined;
  let deadline: NodeJS.Timeout | undefined;
  const signal = await Promise.race([
    untilSignal(),
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
  log.info({ signal }, `${role} stopping`);
  await stop();
  log.info({}, `${role} stopped`);
  log.flush();
}

/**
 * The built-in strategies folder, beside the code that runs: strategies/ for the sources (tsx),
 * dist/strategies/ for the build, whose compiled plugins import the compiled runner API.
 */
export function builtInStrategies(): string {
  const dir = fileURLToPath(new URL('../../strategies', import.meta.url));
  if (!existsSync(dir)) {
    throw new InvalidInputError('strategies', `the built-in strategies folder ${dir} is missing`);
  }
  return dir;
}
