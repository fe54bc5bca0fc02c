/**
 * The slice of a pino logger the daemon's parts use, so market, runner and the rest take a logger
 * without depending on pino or on src/obs; a pino (child) logger satisfies it.
 */
export interface Log {
  /** Routine detail a developer following one order wants; off at the default level (info). */
  debug(fields: Record<string, unknown>, msg: string): void;
  info(fields: Record<string, unknown>, msg: string): void;
  warn(fields: Record<string, unknown>, msg: string): void;
  error(fields: Record<string, unknown>, msg: string): void;
  child(bindings: Record<string, unknown>): Log;
}

/** Writes nothing: the default for library use and tests that do not read logs. */
export const silentLog: Log = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  child: () => silentLog,
};
