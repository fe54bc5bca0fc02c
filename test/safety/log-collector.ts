import type { Log } from '../../src/core/index.js';

export interface LogEntry {
  readonly level: 'debug' | 'info' | 'warn' | 'error';
  readonly msg: string;
  readonly fields: Record<string, unknown>;
}

/** A Log that keeps every line, children's included, for assertions on fields. */
export function logCollector(into: LogEntry[], bindings: Record<string, unknown> = {}): Log {
  const at =
    (level: LogEntry['level']) =>
    (fields: Record<string, unknown>, msg: string): void => {
      into.push({ level, msg, fields: { ...bindings, ...fields } });
    };
  return {
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    child: (more) => logCollector(into, { ...bindings, ...more }),
  };
}
