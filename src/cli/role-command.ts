import type { DestinationStream } from 'pino';
import { InvalidInputError } from '../core/index.js';
import { createLogger } from '../obs/index.js';
import { LogTap } from '../console/console-events.js';
import type { ProcessContext } from '../daemon/run-roles.js';
import { loadSettings } from '../daemon/settings-file.js';

/** The options every role command takes. */
export interface RoleCommandOptions {
  readonly config?: string;
  readonly logLevel?: string;
  readonly statusEvery: string;
}

export interface RoleCommandContext extends ProcessContext {
  /** The log's warn and error lines, for the console once Redis is open (LogTap.attach). */
  readonly logTap: LogTap;
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
