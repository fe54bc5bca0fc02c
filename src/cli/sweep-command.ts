import { availableParallelism } from 'node:os';
import { InvalidInputError, systemClock } from '../core/index.js';
import {
  loadSweepFile,
  progressText,
  RANK_BY,
  runSweep,
  runSweepWorker,
  sweepSummary,
  type RankBy,
  type SweepOutcome,
} from '../lab/sweep/index.js';
import {
  runBacktestCommand,
  type BacktestCommandOptions,
  type CommandIo,
} from './backtest-command.js';
import { LiveTerminal } from './live-terminal.js';
import { sweepBacktester } from '../lab/backtest-request.js';
import { builtInStrategies, packageFile } from '../daemon/package-file.js';
import { findRedis } from '../daemon/redis-finder.js';
import { loadSettings } from '../daemon/settings-file.js';
import { untilSignal } from './signals.js';

export interface SweepCommandOptions {
  readonly sweep: string;
  readonly out?: string;
  readonly jobs?: string;
  readonly split?: string;
  readonly top?: string;
  readonly rankBy?: string;
  readonly logLevel?: string;
}

export interface SweepWorkerCommandOptions {
  readonly config?: string;
  readonly sweepId?: string;
  readonly logLevel?: string;
}

/** Flags of one replay, which a sweep takes from its file instead. */
const SINGLE_RUN_FLAGS = {
  data: '--data',
  config: '--config',
  from: '--from',
  to: '--to',
  latencyMs: '--latency-ms',
  makerFee: '--maker-fee',
  takerFee: '--taker-fee',
  feeVolume: '--fee-volume',
  queueRule: '--queue-rule',
  maxDataProblems: '--max-data-problems',
  force: '--force',
} as const;
const SWEEP_FLAGS = {
  jobs: '--jobs',
  split: '--split',
  top: '--top',
  rankBy: '--rank-by',
} as const;

/**
 * `makerd backtest`: one replay, or with --sweep a sweep; a flag of the other is refused rather
 * than ignored.
 */
export async function runBacktestOrSweep(
  opts: BacktestCommandOptions & Partial<SweepCommandOptions>,
): Promise<void> {
  const given = (flags: Record<string, string>): string[] =>
    Object.entries(flags)
      .filter(([key]) => (opts as Record<string, unknown>)[key] !== undefined)
      .map(([, flag]) => flag);
  if (opts.sweep === undefined) {
    const misplaced = given(SWEEP_FLAGS);
    if (misplaced.length > 0) {
      throw new InvalidInputError(misplaced[0] as string, 'goes with --sweep FILE');
    }
    // Ctrl-C stops the replay cleanly: its Redis keys deleted, one line said.
    await runBacktestCommand(opts, undefined, abortedBySignal());
    return;
  }
  const misplaced = given(SINGLE_RUN_FLAGS);
  if (misplaced.length > 0) {
    throw new InvalidInputError(
      misplaced[0] as string,
      'a sweep takes its recording, config and overrides from its file (--sweep)',
    );
  }
  await runSweepCommand({ ...opts, sweep: opts.sweep });
}

/** Without a terminal, a progress line this often (wall time). */
const PROGRESS_LINE_MS = 5_000;

/**
 * `makerd backtest --sweep FILE`: the sweep of src/lab/sweep, its local workers started as
 * `makerd backtest worker` processes; one progress bar on stderr, the summary on stdout.
 */
export async function runSweepCommand(
  opts: SweepCommandOptions,
  io: CommandIo = { out: process.stdout, err: process.stderr },
  signal: AbortSignal = abortedBySignal(),
): Promise<SweepOutcome> {
  const file = loadSweepFile(opts.sweep);
  const { settings } = loadSettings(file.config);
  const jobs = integerOption('--jobs', opts.jobs, 0) ?? availableParallelism();
  const split = splitOption(opts.split);
  const top = integerOption('--top', opts.top, 1);
  const rankBy = rankByOption(opts.rankBy);
  const bin = packageFile('bin', 'makerd.js') as string;
  const terminal = new LiveTerminal(io.err);
  // As the demo and the tests: without a Redis at the config's URL, one of our own for the sweep.
  const redis = await findRedis(settings.redis.url);
  if (redis.started !== undefined) {
    terminal.logStream.write(
      `sweep: no Redis answered at ${settings.redis.url}; started redis-server at ${redis.url} for this sweep (workers on other machines cannot reach it)\n`,
    );
  }
  let lineAt = -Infinity;
  const outcome = await runSweep({
    file,
    settings: { ...settings, redis: { ...settings.redis, url: redis.url } },
    strategiesDir: builtInStrategies(),
    outDir:
      opts.out ??
      `sweep-${new Date().toISOString().slice(0, 19).replace(/[-:]/g, '').replace('T', '-')}`,
    jobs,
    ...(split === undefined ? {} : { split }),
    ...(top === undefined ? {} : { top }),
    ...(rankBy === undefined ? {} : { rankBy }),
    workerCommand: (id) => ({
      command: process.execPath,
      args: [
        bin,
        'backtest',
        'worker',
        '--sweep-id',
        id,
        ...(file.config === undefined ? [] : ['--config', file.config]),
        ...(opts.logLevel === undefined ? [] : ['--log-level', opts.logLevel]),
      ],
      env: { ...process.env, MAKERD_REDIS_URL: redis.url },
    }),
    clock: systemClock,
    signal,
    onProgress: (p) => {
      if (terminal.live) {
        terminal.setStatus(progressText(p, true));
      } else if (performance.now() - lineAt >= PROGRESS_LINE_MS) {
        lineAt = performance.now();
        io.err.write(`${progressText(p, false)}\n`);
      }
    },
    say: (line) => terminal.logStream.write(`${line}\n`),
  }).finally(async () => {
    terminal.clear();
    await redis.close();
  });
  io.out.write(sweepSummary(outcome.results));
  io.out.write(
    `results: ${outcome.files.html}, sweep.csv and sweep.json beside it; each run's report under runs/\n`,
  );
  return outcome;
}

/**
 * `makerd backtest worker`: takes jobs of the sweeps on the config's Redis (or of one), each run
 * as `makerd backtest` runs it (its log and summary not shown); a line per run on stdout.
 */
export async function runSweepWorkerCommand(
  opts: SweepWorkerCommandOptions,
  io: CommandIo = { out: process.stdout, err: process.stderr },
  signal: AbortSignal = abortedBySignal(),
): Promise<void> {
  const { settings } = loadSettings(opts.config);
  await runSweepWorker({
    redisUrl: settings.redis.url,
    prefix: settings.redis.prefix,
    ...(opts.sweepId === undefined ? {} : { sweepId: opts.sweepId }),
    backtest: sweepBacktester(opts.logLevel),
    clock: systemClock,
    signal,
    say: (line) => io.out.write(`${line}\n`),
  });
}

function abortedBySignal(): AbortSignal {
  const stop = new AbortController();
  void untilSignal().then(() => stop.abort());
  return stop.signal;
}

function integerOption(flag: string, text: string | undefined, min: number): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!Number.isInteger(n) || n < min) {
    throw new InvalidInputError(flag, `must be a whole number >= ${min}, got ${text}`);
  }
  return n;
}

function splitOption(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (text.trim() === '' || !(n > 0 && n < 1)) {
    throw new InvalidInputError('--split', `must be a fraction between 0 and 1, got ${text}`);
  }
  return n;
}

function rankByOption(text: string | undefined): RankBy | undefined {
  if (text === undefined) return undefined;
  if (!(RANK_BY as readonly string[]).includes(text)) {
    throw new InvalidInputError('--rank-by', `must be one of ${RANK_BY.join(', ')}, got ${text}`);
  }
  return text as RankBy;
}
