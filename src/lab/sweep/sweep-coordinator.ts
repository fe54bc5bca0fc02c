import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { Queue, QueueEvents } from 'bullmq';
import { Redis } from 'ioredis';
import {
  asError,
  errorMessage,
  InvalidInputError,
  MakerdError,
  type Clock,
} from '../../core/index.js';
import { checkCombinations } from './combination-check.js';
import type { RunFigures } from './run-figures.js';
import { expandGrid, type Combination } from './grid.js';
import { LocalWorkers, type WorkerCommand } from './local-workers.js';
import { altnameOf, type OverridableSettings } from './overrides.js';
import {
  rankedPhase,
  rankRows,
  type RunResult,
  type SweepResults,
  type SweepRow,
} from './results.js';
import { recordingSpan, simulatedRecording } from './sweep-data.js';
import type { LoadedSweepFile, RankBy, SimulatedData } from './sweep-file.js';
import { jobId, type SweepJobData, type SweepJobProgress, type SweepPhase } from './sweep-job.js';
import { writeSweepResults, type SweepFiles } from './sweep-output.js';
import type { SweepProgress } from './sweep-progress.js';
import { SweepRegistry } from './sweep-registry.js';

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

/** The sweep's marker lives this long unless refreshed: workers leave a dead sweep this soon. */
const MARKER_TTL_MS = 30_000;
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
  let data = o.file.dataDir;
  if (data === undefined) {
    data = join(dir, 'recording');
    o.say(`sweep: synthesising the simulator's flow into ${data}`);
    if (!(await simulatedRecording(data, sweep.data as SimulatedData, traded))) {
      o.say(`sweep: it was there already; reusing it`);
    }
  }
  const span = await recordingSpan(data, traded.map(altnameOf));
  const splitMs =
    split === undefined
      ? undefined
      : span.firstMs + Math.round(split * (span.lastMs - span.firstMs));
  const phaseSpan = (phase: SweepPhase): { fromMs?: number; toMs?: number; spanMs: number } =>
    phase === 'in_sample'
      ? { toMs: (splitMs as number) - 1, spanMs: (splitMs as number) - span.firstMs }
      : phase === 'out_of_sample'
        ? { fromMs: splitMs, spanMs: span.lastMs - (splitMs as number) }
        : { spanMs: span.lastMs - span.firstMs };

  const redis = new Redis(o.settings.redis.url, { maxRetriesPerRequest: null, lazyConnect: true });
  try {
    await redis.connect();
  } catch (err) {
    redis.disconnect();
    throw new InvalidInputError('redis.url', `cannot connect: ${errorMessage(err)}`);
  }
  const registry = new SweepRegistry(redis, o.settings.redis.prefix);
  await clearStale(registry, redis);
  const id = randomUUID().slice(0, 8);
  await registry.open(
    {
      id,
      ...(o.file.config === undefined ? {} : { config: o.file.config }),
      data,
      dir,
      host: `${hostname()}:${process.pid}`,
      startedMs: Date.now(),
    },
    MARKER_TTL_MS,
  );
  const queue = new Queue<SweepJobData, RunFigures>(registry.queueName(id), {
    connection: redis,
    prefix: registry.bullPrefix,
  });
  const eventsRedis = redis.duplicate();
  const events = new QueueEvents(registry.queueName(id), {
    connection: eventsRedis,
    prefix: registry.bullPrefix,
  });

  const first = rankedPhase(split !== undefined);
  const jobsOf = (combinations: readonly Combination[], phase: SweepPhase): SweepJobData[] =>
    combinations.map((c) => {
      const { spanMs: _span, ...range } = phaseSpan(phase);
      return {
        sweepId: id,
        runId: c.id,
        phase,
        values: c.values,
        overrides: c.overrides,
        ...(o.file.config === undefined ? {} : { config: o.file.config }),
        data: data,
        sweepDir: dir,
        ...range,
      };
    });
  const planned: SweepJobData[] = [];
  const progress = {
    finishedMs: 0,
    done: 0,
    failed: 0,
    running: new Map<string, number>(),
    finished: new Set<string>(),
    totalMs:
      grid.combinations.length * phaseSpan(first).spanMs +
      (split === undefined
        ? 0
        : Math.min(top, grid.combinations.length) * phaseSpan('out_of_sample').spanMs),
  };
  const spanOf = (job: string): number => {
    const d = planned.find((p) => jobId(p.phase, p.runId) === job);
    return d === undefined ? 0 : phaseSpan(d.phase).spanMs;
  };
  events.on('progress', ({ jobId: job, data: p }) => {
    if (!progress.finished.has(job)) {
      progress.running.set(job, (p as unknown as SweepJobProgress).replayedMs);
    }
  });
  const finish = (job: string, failed: boolean): void => {
    if (progress.finished.has(job)) return;
    progress.finished.add(job);
    progress.running.delete(job);
    progress.finishedMs += spanOf(job);
    progress.done += 1;
    if (failed) progress.failed += 1;
  };
  events.on('completed', ({ jobId: job }) => finish(job, false));
  events.on('failed', ({ jobId: job }) => finish(job, true));
  events.on('error', (err) => o.say(`sweep: queue events: ${err.message}`));

  let local: LocalWorkers | undefined;
  let stopped = false;
  let failure: unknown;
  const keepAlive = new AbortController();
  const aliveLoop = (async () => {
    while (!keepAlive.signal.aborted) {
      await o.clock.sleep(MARKER_TTL_MS / 3, keepAlive.signal).catch(() => undefined);
      if (!keepAlive.signal.aborted) await registry.refresh(id, MARKER_TTL_MS).catch(() => false);
    }
  })();

  const runPhase = async (jobs: readonly SweepJobData[]): Promise<void> => {
    planned.push(...jobs);
    await queue.addBulk(
      jobs.map((d) => ({ name: 'run', data: d, opts: { jobId: jobId(d.phase, d.runId) } })),
    );
    for (;;) {
      const counts = await queue.getJobCounts('completed', 'failed');
      if ((counts.completed ?? 0) + (counts.failed ?? 0) >= planned.length) return;
      if (o.signal.aborted) throw new SweepStopped();
      if (local?.allExited === true) {
        throw new MakerdError(
          'SWEEP_WORKERS',
          `every local worker stopped (${local.lastExit}); ${planned.length - (counts.completed ?? 0) - (counts.failed ?? 0)} run(s) left`,
        );
      }
      report();
      await o.clock.sleep(o.pollMs ?? POLL_MS, o.signal).catch(() => undefined);
    }
  };
  const report = (): void => {
    const running = [...progress.running.values()].reduce((a, b) => a + b, 0);
    o.onProgress({
      runs: planned.length,
      done: progress.done,
      failed: progress.failed,
      replayedMs: progress.finishedMs + running,
      totalMs: progress.totalMs,
      elapsedMs: performance.now() - started,
    });
  };

  let rows: SweepRow[] = grid.combinations.map((c) => ({ id: c.id, values: c.values, runs: {} }));
  try {
    await events.waitUntilReady();
    const count = Math.min(o.jobs, grid.combinations.length);
    o.say(
      `sweep ${id}: ${grid.combinations.length} combination(s) on ${data}; ` +
        `${count} local worker(s); others join with: makerd backtest worker --sweep-id ${id}`,
    );
    local =
      count > 0
        ? new LocalWorkers(count, o.workerCommand(id), (i, line) => o.say(`worker ${i}: ${line}`))
        : undefined;
    await runPhase(jobsOf(grid.combinations, first));
    if (split !== undefined) {
      rows = rankRows(await collect(queue, rows, planned), first, rankBy);
      const best = rows.filter((r) => r.rank !== undefined && r.rank <= top).map((r) => r.id);
      const chosen = grid.combinations.filter((c) => best.includes(c.id));
      progress.totalMs -=
        (Math.min(top, grid.combinations.length) - chosen.length) *
        phaseSpan('out_of_sample').spanMs;
      await runPhase(jobsOf(chosen, 'out_of_sample'));
    }
    report();
  } catch (err) {
    if (err instanceof SweepStopped) stopped = true;
    else failure = err;
  } finally {
    keepAlive.abort();
    await aliveLoop;
    await registry.close(id).catch(() => undefined);
    await local?.stop(o.clock, stopped || failure !== undefined);
  }
  try {
    rows = await collect(queue, rows, planned);
  } finally {
    await queue.obliterate({ force: true }).catch(() => undefined);
    await events.close();
    await queue.close();
    eventsRedis.disconnect();
    redis.disconnect();
  }
  const results: SweepResults = {
    makerd_sweep: 1,
    id,
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

/**
 * The rows with each planned job's result: its return value, its failure, or not run (the sweep
 * stopped first).
 */
async function collect(
  queue: Queue<SweepJobData, RunFigures>,
  rows: readonly SweepRow[],
  planned: readonly SweepJobData[],
): Promise<SweepRow[]> {
  const results = new Map<string, RunResult>();
  for (const job of await queue.getJobs(['completed'], 0, -1)) {
    if (job.id !== undefined) results.set(job.id, { status: 'ok', figures: job.returnvalue });
  }
  for (const job of await queue.getJobs(['failed'], 0, -1)) {
    if (job.id !== undefined) {
      results.set(job.id, { status: 'failed', error: job.failedReason || 'failed' });
    }
  }
  return rows.map((row) => {
    const runs: Partial<Record<SweepPhase, RunResult>> = { ...row.runs };
    for (const d of planned.filter((p) => p.runId === row.id)) {
      runs[d.phase] = results.get(jobId(d.phase, d.runId)) ?? { status: 'not run' };
    }
    return { ...row, runs };
  });
}

/** Clears the queues of sweeps whose process died (their marker expired). */
async function clearStale(registry: SweepRegistry, redis: Redis): Promise<void> {
  const { stale } = await registry.list();
  for (const id of stale) {
    const queue = new Queue(registry.queueName(id), {
      connection: redis,
      prefix: registry.bullPrefix,
    });
    await queue.obliterate({ force: true }).catch(() => undefined);
    await queue.close();
    await registry.forget(id);
  }
}
