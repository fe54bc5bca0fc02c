import { pino, type DestinationStream, type Logger, type LoggerOptions } from 'pino';

export type { Logger } from 'pino';

/**
 * Paths pino blanks before a line is written (DESIGN.md §3.9): whatever a caller logs, a key, a
 * signature, a secret or an otp never reaches the output. `*` covers one level of nesting, which
 * is where request headers and config sections put them.
 */
export const REDACT_PATHS = [
  'apiKey',
  'apiSecret',
  'secret',
  'otp',
  'password',
  'token',
  '*.apiKey',
  '*.apiSecret',
  '*.secret',
  '*.otp',
  '*.password',
  '*.token',
  '*["API-Key"]',
  '*["API-Sign"]',
  'headers["API-Key"]',
  'headers["API-Sign"]',
];

export interface LoggerSetup {
  readonly level?: string;
  /** Fields on every line, e.g. { role: 'runner', instance: 1 }. */
  readonly base?: Record<string, unknown>;
  /** Defaults to stdout; tests pass a stream to read the JSON lines back. */
  readonly destination?: DestinationStream;
  /** Also gets every warn and error line (the operator console's recent events). */
  readonly warnTap?: DestinationStream;
  /** The lines' time (ms since the epoch); default the system's. A replay gives its clock's. */
  readonly now?: () => number;
}

/** One JSON line per event; components take `logger.child({ component, pair, strategy })`. */
export function createLogger(setup: LoggerSetup = {}): Logger {
  const options: LoggerOptions = {
    level: setup.level ?? 'info',
    base: { ...setup.base },
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    timestamp:
      setup.now === undefined
        ? pino.stdTimeFunctions.isoTime
        : () => `,"time":"${new Date((setup.now as () => number)()).toISOString()}"`,
    formatters: { level: (label) => ({ level: label }) },
  };
  const destination = setup.destination ?? pino.destination({ dest: 1, sync: true });
  if (setup.warnTap === undefined) return pino(options, destination);
  return pino(
    options,
    pino.multistream([
      { level: 'trace', stream: destination },
      { level: 'warn', stream: setup.warnTap },
    ]),
  );
}

/** A logger that writes nothing, for library use and tests that do not read logs. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
