import { InvalidInputError, printable, printableJson } from '../core/index.js';
import { AUDIT_KEPT, AuditTrail, type AuditRecord } from '../daemon/audit-trail.js';
import { withRedis } from '../daemon/shell-control.js';
import type { FlagCommandOptions } from './operator-commands.js';
import { loadSettings } from '../daemon/settings-file.js';

export interface AuditCommandOptions extends FlagCommandOptions {
  readonly limit: string;
  readonly json?: boolean;
}

/**
 * `makerd audit`: the newest entries of the audit trail in the config's Redis, newest last, one
 * line each (or one JSON object each with --json). What operators and strangers wrote (names,
 * reasons) is printed with its control characters escaped.
 */
export async function runAudit(opts: AuditCommandOptions): Promise<void> {
  const limit = Number(opts.limit);
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > AUDIT_KEPT) {
    throw new InvalidInputError(
      '--limit',
      `must be a whole number from 1 to ${AUDIT_KEPT}, got ${opts.limit}`,
    );
  }
  const { settings } = loadSettings(opts.config);
  await withRedis(settings, async (redis) => {
    const trail = new AuditTrail(redis, settings.redis.prefix);
    const entries = await trail.recent(limit);
    if (entries.length === 0) {
      process.stderr.write(`makerd: no audit entries at ${trail.key}\n`);
      return;
    }
    const lines = entries.map((e) => (opts.json === true ? printableJson(e) : auditLine(e)));
    process.stdout.write(`${lines.join('\n')}\n`);
  });
}

/** `2025-06-01T10:00:00.000Z halt by alice via console from ::1: why => halted`. */
export function auditLine(e: AuditRecord): string {
  const when = Number.isFinite(e.tMs) ? new Date(e.tMs).toISOString() : e.id;
  const words = [
    when,
    e.action,
    ...(e.pair === undefined ? [] : [e.pair]),
    'by',
    e.actor,
    'via',
    e.door,
    ...(e.remote === undefined ? [] : ['from', e.remote]),
  ].join(' ');
  return printable(`${words}${e.reason === undefined ? '' : `: ${e.reason}`} => ${e.outcome}`);
}
