import { printable, printableJson } from '../core/index.js';
import { readDeploymentStatus, type StatusSource } from '../daemon/deployment-status.js';
import { loadSettings } from '../daemon/settings-file.js';
import { formatStatus } from '../daemon/status-report.js';
import { printStatusOverHttp, type FlagCommandOptions } from './operator-commands.js';

export interface StatusOptions extends FlagCommandOptions {
  readonly json?: boolean;
  readonly http?: string;
}

/**
 * `makerd status --config`: what the roles left in Redis, after where it was read from
 * (src/daemon/deployment-status.ts). `--http` asks a running process instead
 * (operator-commands.ts).
 */
export async function runStatus(opts: StatusOptions): Promise<void> {
  if (opts.http !== undefined) {
    await printStatusOverHttp(opts.http, opts.json === true);
    return;
  }
  const { settings, file, dir } = loadSettings(opts.config);
  const status = await readDeploymentStatus(settings, { file, dir });
  const { source } = status;
  if (!status.found) {
    process.exitCode = 1;
    process.stdout.write(
      opts.json === true
        ? `${printableJson({ source, found: false })}\n`
        : `${sourceLines(source).map(printable).join('\n')}\n${printable(nothingThere(source))}\n`,
    );
    return;
  }
  process.stdout.write(
    opts.json === true
      ? `${printableJson({ ...status.report, source })}\n`
      : `${sourceLines(source).map(printable).join('\n')}\n${formatStatus(status.report)}`,
  );
}

function sourceLines(s: StatusSource): string[] {
  const lines = [`Redis ${s.redis.url}, prefix ${s.redis.prefix} (${s.redis.from})`];
  if (!s.exchange.reached) {
    lines.push(
      `exchange ${s.exchange.url} could not be reached (${s.exchange.error ?? '?'}): ` +
        "the state below is Redis's alone, pairs named as the roles last recorded them",
    );
  }
  return lines;
}

function nothingThere(s: StatusSource): string {
  return (
    `nothing of makerd's under prefix ${s.redis.prefix} at ${s.redis.url}: no role has run ` +
    'here. Is the bot on another Redis or prefix? (MAKERD_REDIS_URL or REDIS_URL, ' +
    'MAKERD_REDIS_PREFIX, redis: in the config)'
  );
}
