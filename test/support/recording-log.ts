import type { Log } from '../../src/core/index.js';

/** A Log keeping what it was given, every level alike. */
export function recordingLog(): {
  log: Log;
  lines: { fields: Record<string, unknown>; msg: string }[];
} {
  const lines: { fields: Record<string, unknown>; msg: string }[] = [];
  const log: Log = {
    debug: (fields, msg) => void lines.push({ fields, msg }),
    info: (fields, msg) => void lines.push({ fields, msg }),
    warn: (fields, msg) => void lines.push({ fields, msg }),
    error: (fields, msg) => void lines.push({ fields, msg }),
    child: () => log,
  };
  return { log, lines };
}
