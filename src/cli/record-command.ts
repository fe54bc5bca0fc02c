import { resolve } from 'node:path';
import { InvalidInputError, systemClock } from '../core/index.js';
import type { RecordingStats } from '../recording/index.js';
import { createLogger } from '../obs/index.js';
import { prettyLog } from '../obs/pretty-log.js';
import { startRecordSession } from '../daemon/record-session.js';
import { LiveTerminal } from './live-terminal.js';
import { loadSettings } from '../daemon/settings-file.js';
import { secondsOption } from './role-command.js';
import { untilSignal } from './signals.js';

export interface RecordOptions {
  readonly config?: string;
  readonly out: string;
  readonly seconds?: string;
  readonly logLevel?: string;
  readonly minFree?: string;
}

/** Progress: redrawn this often on a terminal, logged this often otherwise. */
const PROGRESS_EVERY_MS = 5_000;

/**
 * `makerd record`: polls what the runner would (the same budget plan from the same config) and
 * records every answer, sending no order. Stops at SIGINT/SIGTERM or after --seconds with a
 * summary; a disk too full to record ends it with exit 1.
 */
export async function runRecord(opts: RecordOptions): Promise<void> {
  // Before the session starts: a Ctrl-C during its start-up closes the files and sums up.
  const stopAsked = untilSignal();
  const stopAfterMs =
    opts.seconds === undefined ? undefined : secondsOption('--seconds', opts.seconds);
  const { settings, dir: configDir } = loadSettings(opts.config);
  const out = resolve(opts.out);
  const terminal = new LiveTerminal();
  const log = createLogger({
    level: opts.logLevel ?? settings.log.level,
    base: { role: 'record' },
    ...(terminal.live
      ? {
          destination: prettyLog({
            destination: terminal.logStream,
            colorize: true,
            ignore: 'pid,hostname,role',
          }),
        }
      : {}),
  });
  const clock = systemClock;
  const minFreeBytes =
    opts.minFree === undefined ? undefined : megabytes('--min-free', opts.minFree);
  const session = await startRecordSession({
    settings,
    configDir,
    out,
    clock,
    log,
    ...(minFreeBytes === undefined ? {} : { minFreeBytes }),
  });
  const startedMs = clock.now();
  try {
    log.info(
      {
        dir: out,
        pairs: session.pairs.map((p) => p.altname),
        polls: session.plan.polls.map((p) => ({ id: p.id, interval_ms: p.intervalMs })),
      },
      'recording',
    );
    const progress = setInterval(() => {
      const line = progressLine(session.stats(), clock.now() - startedMs);
      if (terminal.live) terminal.setStatus(line);
      else log.info({ ...session.stats() }, 'record progress');
    }, PROGRESS_EVERY_MS);
    let deadline: NodeJS.Timeout | undefined;
    const why = await Promise.race([
      stopAsked,
      session.stopped,
      ...(stopAfterMs === undefined
        ? []
        : [
            new Promise<string>(
              (done) => (deadline = setTimeout(() => done('time up'), stopAfterMs)),
            ),
          ]),
    ]);
    clearInterval(progress);
    clearTimeout(deadline);
    terminal.clear();
    const stoppedBy = session.stoppedBy();
    if (stoppedBy !== undefined) log.error({ dir: out }, why);
    await session.close();
    log.info(
      { dir: out, ...session.stats(), seconds: Math.round((clock.now() - startedMs) / 1000) },
      'record summary',
    );
    log.flush();
    if (stoppedBy !== undefined) throw stoppedBy;
  } finally {
    await session.close();
  }
}

function megabytes(flag: string, text: string): number {
  const n = Number(text);
  if (text.trim() === '' || !Number.isFinite(n) || n < 0) {
    throw new InvalidInputError(flag, `must be a number of MB >= 0, got ${text}`);
  }
  return n * 1024 * 1024;
}

/** One line for a terminal: what has been written so far. */
export function progressLine(s: RecordingStats, elapsedMs: number): string {
  const mb = (s.bytes / 1024 / 1024).toFixed(2);
  return `recording ${Math.round(elapsedMs / 1000)} s: ${s.files} files, ${s.rows} rows, ${mb} MB, ${s.gaps} gaps`;
}
