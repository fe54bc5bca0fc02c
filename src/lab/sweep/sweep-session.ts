import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { Queue, QueueEvents } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Clock } from '../../core/index.js';
import type { RunFigures } from './run-figures.js';
import type { RunResult, SweepRow } from './results.js';
import { jobId, type SweepJobData, type SweepJobProgress, type SweepPhase } from './sweep-job.js';
import { connectSweepRedis, SweepRegistry, type SweepMeta } from './sweep-registry.js';

/** The sweep's marker lives this long unless refreshed: workers leave a dead sweep this soon. */
const MARKER_TTL_MS = 30_000;

/** What the session tells of its jobs as they go (QueueEvents). */
export interface SweepJobEvents {
  readonly progress: (job: string, progress: SweepJobProgress) => void;
  readonly finished: (job: string, failed: boolean) => void;
  readonly error: (message: string) => void;
}

/**
 * One sweep's life on Redis: its marker (kept alive while the sweep runs, so workers know it is
 * open), its BullMQ queue of jobs and the QueueEvents that report them. close() removes all of it.
 */
export class SweepSession {
  readonly id = randomUUID().slice(0, 8);
  readonly #redis: Redis;
  readonly #eventsRedis: Redis;
  readonly #registry: SweepRegistry;
  readonly #queue: Queue<SweepJobData, RunFigures>;
  readonly #events: QueueEvents;
  readonly #keepAlive = new AbortController();
  #alive: Promise<void> = Promise.resolve();
  #added = 0;

  private constructor(redis: Redis, prefix: string) {
    this.#redis = redis;
    this.#registry = new SweepRegistry(redis, prefix);
    const queueName = this.#registry.queueName(this.id);
    const prefixOption = { prefix: this.#registry.bullPrefix };
    this.#queue = new Queue(queueName, { connection: redis, ...prefixOption });
    this.#eventsRedis = redis.duplicate();
    this.#events = new QueueEvents(queueName, { connection: this.#eventsRedis, ...prefixOption });
  }

  /** Connects, clears the queues of sweeps whose process died, and opens this one. */
  static async open(
    o: {
      readonly redisUrl: string;
      readonly prefix: string;
      readonly clock: Clock;
      readonly meta: Omit<SweepMeta, 'id' | 'host' | 'startedMs'>;
    },
    events: SweepJobEvents,
  ): Promise<SweepSession> {
    const redis = await connectSweepRedis(o.redisUrl);
    const session = new SweepSession(redis, o.prefix);
    await session.#clearStale();
    await session.#registry.open(
      {
        ...o.meta,
        id: session.id,
        host: `${hostname()}:${process.pid}`,
        startedMs: o.clock.now(),
      },
      MARKER_TTL_MS,
    );
    session.#alive = session.#keepMarker(o.clock);
    const q = session.#events;
    q.on('progress', ({ jobId: job, data }) =>
      events.progress(job, data as unknown as SweepJobProgress),
    );
    q.on('completed', ({ jobId: job }) => events.finished(job, false));
    q.on('failed', ({ jobId: job }) => events.finished(job, true));
    q.on('error', (err) => events.error(err.message));
    await q.waitUntilReady();
    return session;
  }

  async add(jobs: readonly SweepJobData[]): Promise<void> {
    await this.#queue.addBulk(
      jobs.map((d) => ({ name: 'run', data: d, opts: { jobId: jobId(d.phase, d.runId) } })),
    );
    this.#added += jobs.length;
  }

  /** Jobs added and not yet completed or failed. */
  async unfinished(): Promise<number> {
    const counts = await this.#queue.getJobCounts('completed', 'failed');
    return this.#added - (counts.completed ?? 0) - (counts.failed ?? 0);
  }

  /**
   * The rows with each planned job's result: its return value, its failure, or not run (the
   * sweep stopped first).
   */
  async collect(rows: readonly SweepRow[], planned: readonly SweepJobData[]): Promise<SweepRow[]> {
    const results = new Map<string, RunResult>();
    for (const job of await this.#queue.getJobs(['completed'], 0, -1)) {
      if (job.id !== undefined) results.set(job.id, { status: 'ok', figures: job.returnvalue });
    }
    for (const job of await this.#queue.getJobs(['failed'], 0, -1)) {
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

  /** Closes the sweep: its workers leave (the marker is gone) and take no more jobs. */
  async closeMarker(): Promise<void> {
    this.#keepAlive.abort();
    await this.#alive;
    await this.#registry.close(this.id).catch(() => undefined);
  }

  /** Removes the queue and its jobs, and lets go of Redis. */
  async close(): Promise<void> {
    await this.closeMarker();
    await this.#queue.obliterate({ force: true }).catch(() => undefined);
    await this.#events.close();
    await this.#queue.close();
    this.#eventsRedis.disconnect();
    this.#redis.disconnect();
  }

  async #keepMarker(clock: Clock): Promise<void> {
    const signal = this.#keepAlive.signal;
    while (!signal.aborted) {
      await clock.sleep(MARKER_TTL_MS / 3, signal).catch(() => undefined);
      if (!signal.aborted) await this.#registry.refresh(this.id, MARKER_TTL_MS).catch(() => false);
    }
  }

  async #clearStale(): Promise<void> {
    const { stale } = await this.#registry.list();
    for (const id of stale) {
      const queue = new Queue(this.#registry.queueName(id), {
        connection: this.#redis,
        prefix: this.#registry.bullPrefix,
      });
      await queue.obliterate({ force: true }).catch(() => undefined);
      await queue.close();
      await this.#registry.forget(id);
    }
  }
}
