import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { WaitingError, Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { InvalidInputError, type Clock } from '../../core/index.js';
import { runFigures, type RunFigures } from './run-figures.js';
import {
  runFolder,
  type Backtester,
  type SweepJobData,
  type SweepJobProgress,
} from './sweep-job.js';
import { connectSweepRedis, SweepRegistry, type SweepMeta } from './sweep-registry.js';

export interface SweepWorkerOptions {
  readonly redisUrl: string;
  /** The Redis prefix of the sweep's config (redis.prefix). */
  readonly prefix: string;
  /** Work on this sweep only, and return when it ends; default every sweep, until the signal. */
  readonly sweepId?: string;
  readonly backtest: Backtester;
  readonly clock: Clock;
  /** Stops the worker: the run in progress goes back to the queue for another worker. */
  readonly signal: AbortSignal;
  /** One line for the operator per event (a sweep joined, a run done). */
  readonly say: (line: string) => void;
  /** How often it looks for a sweep and checks that its sweep is still open. */
  readonly pollMs?: number;
  /** How often a running job reports its progress (wall time). */
  readonly progressEveryMs?: number;
}

const POLL_MS = 1_000;
const PROGRESS_EVERY_MS = 1_000;

/**
 * `makerd backtest worker`: takes a sweep's jobs one at a time (a BullMQ Worker, concurrency 1)
 * and runs each as `makerd backtest` would, its report into the sweep's folder; the job's return
 * value is the run's figures. It leaves a sweep when the sweep's marker is gone (ended, stopped,
 * or its process died). A sweep whose recording or config is not at the same path here is
 * refused with one line (with a sweep id) or passed over (without).
 */
export async function runSweepWorker(o: SweepWorkerOptions): Promise<{ readonly runs: number }> {
  const redis = await connectSweepRedis(o.redisUrl);
  const registry = new SweepRegistry(redis, o.prefix);
  const name = `${hostname()}:${process.pid}`;
  const passedOver = new Set<string>();
  let runs = 0;
  let waiting = false;
  try {
    while (!o.signal.aborted) {
      const meta = await nextSweep(o, registry, passedOver);
      if (meta === undefined) {
        if (o.sweepId !== undefined) return { runs };
        if (!waiting) o.say(`worker ${name}: waiting for a sweep under ${o.prefix}`);
        waiting = true;
        await sleep(o.clock, o.pollMs ?? POLL_MS, o.signal);
        continue;
      }
      waiting = false;
      const missing = missingPath(meta);
      if (missing !== undefined) {
        if (o.sweepId !== undefined) throw new InvalidInputError('--sweep-id', missing);
        o.say(`worker ${name}: passing over sweep ${meta.id}: ${missing}`);
        passedOver.add(meta.id);
        continue;
      }
      o.say(`worker ${name}: joined sweep ${meta.id}`);
      runs += await work(o, redis, registry, meta, name);
      o.say(`worker ${name}: sweep ${meta.id} ended`);
      if (o.sweepId !== undefined) return { runs };
    }
    return { runs };
  } finally {
    redis.disconnect();
  }
}

async function nextSweep(
  o: SweepWorkerOptions,
  registry: SweepRegistry,
  passedOver: ReadonlySet<string>,
): Promise<SweepMeta | undefined> {
  if (o.sweepId !== undefined) {
    const meta = await registry.meta(o.sweepId);
    if (meta === undefined) {
      throw new InvalidInputError('--sweep-id', `no open sweep ${o.sweepId} under ${o.prefix}`);
    }
    return meta;
  }
  const { open } = await registry.list();
  return open.find((m) => !passedOver.has(m.id));
}

/** Why this machine cannot run the sweep's jobs, or undefined. */
function missingPath(meta: SweepMeta): string | undefined {
  if (!existsSync(meta.data)) {
    return `the recording ${meta.data} is not on this machine: every worker reads it at the same path (a shared folder)`;
  }
  if (meta.config !== undefined && !existsSync(meta.config)) {
    return `the config ${meta.config} is not on this machine: every worker reads it at the same path (a shared folder)`;
  }
  return undefined;
}

/** Runs the sweep's jobs until its marker is gone or the signal aborts; the runs done. */
async function work(
  o: SweepWorkerOptions,
  redis: Redis,
  registry: SweepRegistry,
  meta: SweepMeta,
  name: string,
): Promise<number> {
  const leave = new AbortController();
  const onAbort = (): void => leave.abort();
  o.signal.addEventListener('abort', onAbort, { once: true });
  let runs = 0;
  const processor = async (
    job: Job<SweepJobData, RunFigures>,
    token?: string,
  ): Promise<RunFigures> => {
    const d = job.data;
    const folder = runFolder(d.phase, d.runId);
    const started = performance.now();
    let reportedAt = -Infinity;
    try {
      const outcome = await o.backtest({
        config: d.config,
        data: d.data,
        outDir: join(d.sweepDir, folder),
        ...(d.fromMs === undefined ? {} : { fromMs: d.fromMs }),
        ...(d.toMs === undefined ? {} : { toMs: d.toMs }),
        overrides: d.overrides,
        redisUrl: o.redisUrl,
        signal: leave.signal,
        onProgress: (p) => {
          const now = performance.now();
          if (now - reportedAt < (o.progressEveryMs ?? PROGRESS_EVERY_MS)) return;
          reportedAt = now;
          const progress: SweepJobProgress = {
            replayedMs: p.nowMs - p.startMs,
            spanMs: p.endMs - p.startMs,
          };
          job.updateProgress({ ...progress }).catch(() => undefined);
        },
      });
      runs += 1;
      return runFigures(outcome, {
        wallMs: performance.now() - started,
        worker: name,
        report: `${folder}/report.html`,
      });
    } catch (err) {
      if (!leave.signal.aborted) throw err;
      // Stopped, not failed: back to the queue for another worker (BullMQ's manual retry).
      await job.moveToWait(token).catch(() => undefined);
      throw new WaitingError();
    }
  };
  const worker = new Worker<SweepJobData, RunFigures>(registry.queueName(meta.id), processor, {
    connection: redis,
    prefix: registry.bullPrefix,
    concurrency: 1,
  });
  worker.on('error', (err) => o.say(`worker ${name}: queue error: ${err.message}`));
  worker.on('completed', (job) =>
    o.say(`worker ${name}: run ${job.data.runId} (${job.data.phase}) done`),
  );
  worker.on('failed', (job, err) => {
    if (err instanceof WaitingError || job === undefined) return;
    o.say(`worker ${name}: run ${job.data.runId} (${job.data.phase}) failed: ${err.message}`);
  });
  try {
    while (!leave.signal.aborted) {
      if (!(await registry.isOpen(meta.id))) break;
      await sleep(o.clock, o.pollMs ?? POLL_MS, leave.signal);
    }
  } finally {
    leave.abort();
    o.signal.removeEventListener('abort', onAbort);
    await worker.close();
  }
  return runs;
}

/** Sleeps on the clock; an abort ends the sleep early, without an error. */
async function sleep(clock: Clock, ms: number, signal: AbortSignal): Promise<void> {
  await clock.sleep(ms, signal).catch(() => undefined);
}
