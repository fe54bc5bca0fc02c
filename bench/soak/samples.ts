/**
 * What the soak samples from the makerd process, and the figures it prints from them.
 */
import { readFile } from 'node:fs/promises';
import { percentile } from '../support/measure.js';

const MB = 1024 * 1024;

export interface Sample {
  /** Seconds since makerd answered /metrics first. */
  readonly t: number;
  /** VmRSS from /proc/<pid>/status, MB. */
  readonly rss: number;
  /** prom-client's default metrics, MB (NaN when the scrape failed). */
  readonly heapUsed: number;
  readonly heapTotal: number;
  readonly external: number;
}

/** The process's resident set in MB, from /proc (the kernel's figure, not the process's own). */
export async function readRssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = /^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1];
  if (kb === undefined) throw new Error(`/proc/${pid}/status has no VmRSS line`);
  return Number(kb) / 1024;
}

/** The V8 heap figures makerd exports on /metrics (prom-client's default metrics), MB. */
export async function readHeapMb(
  metricsUrl: string,
): Promise<Pick<Sample, 'heapUsed' | 'heapTotal' | 'external'>> {
  const text = await (await fetch(metricsUrl, { signal: AbortSignal.timeout(3000) })).text();
  const value = (name: string) => {
    const match = new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1];
    return match === undefined ? Number.NaN : Number(match) / MB;
  };
  return {
    heapUsed: value('nodejs_heap_size_used_bytes'),
    heapTotal: value('nodejs_heap_size_total_bytes'),
    external: value('nodejs_external_memory_bytes'),
  };
}

export interface Summary {
  readonly minutes: number;
  readonly rss: { min: number; median: number; p95: number; max: number };
  /** Least-squares slope of RSS over time, MB/min, after the first minute (start-up excluded). */
  readonly slope: number;
  readonly heapUsedMax: number;
  readonly heapTotalMax: number;
  /** Heap used and total at the sample of the highest RSS: how much of the peak is live data. */
  readonly atPeak: Sample;
}

export function summarize(samples: readonly Sample[]): Summary {
  const rss = Float64Array.from(samples, (s) => s.rss).sort();
  const settled = samples.filter((s) => s.t >= 60);
  const atPeak = samples.reduce((a, b) => (b.rss > a.rss ? b : a));
  const finite = (xs: number[]) => xs.filter(Number.isFinite);
  return {
    minutes: (samples.at(-1)?.t ?? 0) / 60,
    rss: {
      min: rss[0] ?? Number.NaN,
      median: percentile(rss, 50),
      p95: percentile(rss, 95),
      max: rss.at(-1) ?? Number.NaN,
    },
    slope: slopePerMinute(settled.map((s) => [s.t / 60, s.rss])),
    heapUsedMax: Math.max(...finite(samples.map((s) => s.heapUsed))),
    heapTotalMax: Math.max(...finite(samples.map((s) => s.heapTotal))),
    atPeak,
  };
}

/** Ordinary least squares slope of y over x (NaN with fewer than two points). */
export function slopePerMinute(points: readonly (readonly [number, number])[]): number {
  const n = points.length;
  if (n < 2) return Number.NaN;
  const mx = points.reduce((a, [x]) => a + x, 0) / n;
  const my = points.reduce((a, [, y]) => a + y, 0) / n;
  let sxy = 0;
  let sxx = 0;
  for (const [x, y] of points) {
    sxy += (x - mx) * (y - my);
    sxx += (x - mx) ** 2;
  }
  return sxx === 0 ? Number.NaN : sxy / sxx;
}
