import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  asError,
  errorMessage,
  InvalidInputError,
  MakerdError,
  type Clock,
} from '../../core/index.js';
import { checkCombinations } from './combination-check.js';
import { expandGrid, type Combination } from './grid.js';
import { LocalWorkers, type WorkerCommand } from './local-workers.js';
import { altnameOf, type OverridableSettings } from './overrides.js';
import { rankedPhase, rankRows, type SweepResults, type SweepRow } from './results.js';
import { phaseRange, recordingSpan, sweepRecording } from './sweep-data.js';
import type { LoadedSweepFile, RankBy } from './sweep-file.js';
import { jobId, type SweepJobData, type SweepPhase } from './sweep-job.js';
import { writeSweepResults, type SweepFiles } from './sweep-output.js';
import { SweepTally, type SweepProgress } from './sweep-progress.js';
import { SweepSession } from './sweep-session.js';

/** What the sweep needs of the bot's settings (the CLI's BotSettings has it). */
export interface SweepSettings extends OverridableSettings {
  readonly redis: { readonly url: string; readonly prefix: string };
}

export interface SweepOptions {
  readonly file: LoadedSweepFile;
  /** The settings of the sweep's config: its Redis (the queue's home) and pairs. */
  readonly settings: SweepSettings;
  readonly strategiesDir: string;
  readonly outDir: string;
  /** Worker processes started here; 0: only workers started elsewhere take the jobs. */
  readonly jobs: number;
  /** Instead of the file's `split`, `top`, `rank_by`. */
  readonly split?: number;
  readonly top?: number;
  readonly rankBy?: RankBy;
  /** How a local worker process is started on the sweep (`makerd backtest worker ...`). */
  readonly workerCommand: (sweepId: string) => WorkerCommand;
  readonly clock: Clock;
  /** Stops the sweep: workers hand their runs back and exit; what finished is written. */
  readonly signal: AbortSignal;
  readonly onProgress: (progress: SweepProgress) => void;
  /** A line for the operator: the sweep's id, a worker's refusal or crash. */
  readonly say: (line: string) => void;
  /** How often the queue's counts are read (wall time). */
  readonly pollMs?: number;
}

export interface SweepOutcome {
  readonly results: SweepResults;
  readonly files: SweepFiles;
}

const POLL_MS = 500;

/**
 * `makerd backtest --sweep FILE`: every combination of the grid as a BullMQ job on the config's
 * Redis, taken by `jobs` local worker processes and any `makerd backtest worker` elsewhere; one
 * progress report for the whole sweep; then sweep.csv, sweep.json and sweep.html, each run's
 * report beside them. With a split, the grid runs on the first part of the recording, and the
 * best `top` settings run again on the rest. A failed run is listed with its error; the signal
 * stops the sweep and still writes what finished.
 */
export async function runSweep(o: SweepOptions): Promise<SweepOutcome> {
  const started = performance.now();
  const sweep = o.file.sweep;
  const split = o.split ?? sweep.split;
  const top = o.top ?? sweep.top;
  const rankBy = o.rankBy ?? sweep.rank_by;
  const grid = expandGrid(sweep);
  await checkCombinations(grid, o.settings, sweep.pairs, o.strategiesDir);
  const dir = resolve(o.outDir);
  try {
    mkdirSync(dir, { recursive: true });
  } catch (err) {
    throw new InvalidInputError(
      '--out',
      `${dir}: ${(err as NodeJS.ErrnoException).code ?? errorMessage(err)}`,
    );
  }
  const traded = sweep.pairs ?? o.settings.pairs.map((p) => p.pair);
  const data = await sweepRecording(o.file, dir, traded, o.say);
  const span = await recordingSpan(data, traded.map(altnameOf));
  const splitMs =
    split === undefined
      ? undefined
      : span.firstMs + Math.round(split * (span.lastMs - span.firstMs));
  const first = rankedPhase(split !== undefined);
  const n = grid.combinations.length;
  const tally = new SweepTally(
    n * phaseRange(first, span, splitMs).spanMs +
      (split === undefined
        ? 0
        : Math.min(top, n) * phaseRange('out_of_sample', span, splitMs).spanMs),
  );
  const session = await SweepSession.open(
    {
      redisUrl: o.settings.redis.url,
      prefix: o.settings.redis.prefix,
      clock: o.clock,
      meta: { ...(o.file.config === undefined ? {} : { config: o.file.config }), data, dir },
    },
    {
      progress: (job, p) => tally.progress(job, p.replayedMs),
      finished: (job, failed) => tally.finish(job, failed),
      error: (message) => o.say(`sweep: queue events: ${message}`),
    },
  );
  const planned: SweepJobData[] = [];
  const jobsOf = (combinations: readonly Combination[], phase: SweepPhase): SweepJobData[] =>
    combinations.map((c) => {
      const { spanMs, ...range } = phaseRange(phase, span, splitMs);
      tally.plan(jobId(phase, c.id), spanMs);
      return {
        sweepId: session.id,
        runId: c.id,
        phase,
        values: c.values,
        overrides: c.overrides,
        ...(o.file.config === undefined ? {} : { config: o.file.config }),
        data,
        sweepDir: dir,
        ...range,
      };
    });
  let local: LocalWorkers | undefined;
  const runPhase = async (jobs: readonly SweepJobData[]): Promise<void> => {
    planned.push(...jobs);
    await session.add(jobs);
    for (;;) {
      const left = await session.unfinished();
      if (left === 0) return;
      if (o.signal.aborted) throw new SweepStopped();
      if (local?.allExited === true) {
        throw new MakerdError(
          'SWEEP_WORKERS',
          `every local worker stopped (${local.lastExit}); ${left} run(s) left`,
        );
      }
      o.onProgress(tally.view(performance.now() - started));
      await o.clock.sleep(o.pollMs ?? POLL_MS, o.signal).catch(() => undefined);
    }
  };

  let rows: SweepRow[] = grid.combinations.map((c) => ({ id: c.id, values: c.values, runs: {} }));
  let stopped = false;
  let failure: unknown;
  try {
    const count = Math.min(o.jobs, n);
    o.say(
      `sweep ${session.id}: ${n} combination(s) on ${data}; ${count} local worker(s); ` +
        `others join with: makerd backtest worker --sweep-id ${session.id}`,
    );
    if (count > 0) {
      local = new LocalWorkers(count, o.workerCommand(session.id), (i, line) =>
        o.say(`worker ${i}: ${line}`),
      );
    }
    await runPhase(jobsOf(grid.combinations, first));
    if (split !== undefined) {
      rows = rankRows(await session.collect(rows, planned), first, rankBy);
      const best = new Set(
        rows.filter((r) => r.rank !== undefined && r.rank <= top).map((r) => r.id),
      );
      const chosen = grid.combinations.filter((c) => best.has(c.id));
      tally.totalMs -=
        (Math.min(top, n) - chosen.length) * phaseRange('out_of_sample', span, splitMs).spanMs;
      await runPhase(jobsOf(chosen, 'out_of_sample'));
    }
    o.onProgress(tally.view(performance.now() - started));
  } catch (err) {
    if (err instanceof SweepStopped) stopped = true;
    else failure = err;
  }
  try {
    await session.closeMarker();
    await local?.stop(o.clock, stopped || failure !== undefined);
    rows = await session.collect(rows, planned);
  } finally {
    await session.close();
  }
  const results: SweepResults = {
    makerd_sweep: 1,
    id: session.id,
    file: o.file.file,
    config: o.file.config ?? 'config/paper.yaml (the package)',
    data,
    fromMs: span.firstMs,
    toMs: span.lastMs,
    ...(splitMs === undefined ? {} : { splitMs, top }),
    rankBy,
    dimensions: grid.dimensions,
    wallMs: Math.round(performance.now() - started),
    jobs: local?.count ?? 0,
    complete: !stopped && failure === undefined,
    rows: rankRows(rows, first, rankBy),
  };
  const files = await writeSweepResults(dir, results);
  if (failure !== undefined) throw asError(failure);
  if (stopped) {
    const done = rows.filter((r) => r.runs[first]?.status === 'ok').length;
    throw new MakerdError(
      'SWEEP_STOPPED',
      `sweep stopped: ${done} of ${rows.length} run(s) finished, listed in ${files.html}`,
    );
  }
  return { results, files };
}

class SweepStopped extends Error {}
