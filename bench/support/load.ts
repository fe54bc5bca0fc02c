import { performance } from 'node:perf_hooks';
import { percentile } from './measure.js';

export interface LoadFigures {
  readonly requestsPerSec: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly errors: number;
  readonly firstError: string | undefined;
}

/**
 * Runs `op` from `concurrency` loops for `seconds` after an untimed warm-up. `op` calls `done(ms)`
 * once per request it completed, with that request's latency, so one op may be several requests.
 */
export async function runLoad(
  op: (done: (latencyMs: number) => void) => Promise<void>,
  options: { concurrency: number; seconds: number; warmupSeconds?: number },
): Promise<LoadFigures> {
  let errors = 0;
  let firstError: string | undefined;
  const loop = async (untilMs: number, latencies: number[] | undefined): Promise<number> => {
    let requests = 0;
    const done = (ms: number): void => {
      requests++;
      latencies?.push(ms);
    };
    while (performance.now() < untilMs) {
      try {
        await op(done);
      } catch (err) {
        errors++;
        firstError ??= err instanceof Error ? `${err.name}: ${err.message}` : String(err);
      }
    }
    return requests;
  };
  const warmEnd = performance.now() + (options.warmupSeconds ?? 1) * 1000;
  await Promise.all(Array.from({ length: options.concurrency }, () => loop(warmEnd, undefined)));
  errors = 0;
  firstError = undefined;
  const latencies: number[] = [];
  const start = performance.now();
  const end = start + options.seconds * 1000;
  const counts = await Promise.all(
    Array.from({ length: options.concurrency }, () => loop(end, latencies)),
  );
  const elapsedS = (performance.now() - start) / 1000;
  const sorted = Float64Array.from(latencies).sort();
  return {
    requestsPerSec: counts.reduce((a, b) => a + b, 0) / elapsedS,
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    errors,
    firstError,
  };
}

/** A positive number from the environment, or the fallback. */
export function envNumber(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0)
    throw new Error(`${name} must be a positive number, got ${raw}`);
  return n;
}
