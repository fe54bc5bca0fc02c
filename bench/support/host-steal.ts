import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { pinProcess } from './cpu-pinning.js';

/**
 * CPU time the hypervisor gave to something else while this VM's CPU had work ("steal", the 8th
 * figure of each cpuN line of /proc/stat). On a shared host it stalls whatever runs for
 * milliseconds at a time, with nothing in the guest to see (no run-queue wait, no GC): a tick's
 * synchronous steps, normally 0.4 ms, were seen taking 8-30 ms at such moments. The benchmark
 * prints it beside the latency targets, as what the host took during the run.
 */
export interface StealReading {
  readonly atMs: number;
  /** Steal per CPU, in clock ticks (USER_HZ). */
  readonly ticks: readonly number[];
}

/** USER_HZ: the unit of /proc/stat on Linux (100 on every architecture Node runs on). */
const TICKS_PER_SECOND = 100;

/** The current reading, or undefined where /proc/stat is not there or has no steal figure. */
export function readSteal(): StealReading | undefined {
  let text: string;
  try {
    text = readFileSync('/proc/stat', 'latin1');
  } catch {
    return undefined;
  }
  const ticks: number[] = [];
  for (const line of text.split('\n')) {
    const m = /^cpu(\d+) (.*)$/.exec(line);
    if (m === null) continue;
    const steal = Number(m[2]?.trim().split(/\s+/)[7]);
    if (!Number.isFinite(steal)) return undefined;
    ticks[Number(m[1])] = steal;
  }
  return ticks.length === 0 ? undefined : { atMs: performance.now(), ticks };
}

/** Share of wall time stolen from each CPU between two readings. */
export function stealShare(from: StealReading, to: StealReading): number[] {
  const seconds = (to.atMs - from.atMs) / 1000;
  return to.ticks.map((t, cpu) => (t - (from.ticks[cpu] ?? t)) / TICKS_PER_SECOND / seconds);
}

/** How often the sampler reads /proc/stat. */
export const SAMPLE_MS = 10;

/**
 * How long after a stall its steal can first be seen: the kernel counts steal in whole ticks
 * (10 ms) at a tick of the CPU concerned, and the sampler reads every SAMPLE_MS.
 */
const SEEN_WITHIN_MS = 1000 / TICKS_PER_SECOND + 2 * SAMPLE_MS;

/** A moment the sampler saw the steal counted on `cpu` grow (by `ticks`). */
export interface StealEvent {
  readonly atMs: number;
  readonly cpu: number;
  readonly ticks: number;
}

export interface StealSampler {
  /** What it saw between two moments (wall-clock ms, as performance.timeOrigin + now()). */
  events(fromMs: number, toMs: number): StealEvent[];
  close(): void;
}

/**
 * Starts a process that notes each moment the host takes CPU time from this VM
 * (steal-sampler-child.ts), pinned to `cpus` (a taskset list; the simulator's, so that it does not
 * share the measured thread's CPU). Its readings cost ~0.05 ms each, every SAMPLE_MS.
 */
export function startStealSampler(cpus: string | undefined): StealSampler {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', fileURLToPath(new URL('./steal-sampler-child.ts', import.meta.url))],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  if (cpus !== undefined && child.pid !== undefined) pinProcess(child.pid, cpus);
  child.stdin.on('error', () => undefined);
  const seen: StealEvent[] = [];
  createInterface({ input: child.stdout }).on('line', (line) => {
    const [atMs, cpu, ticks] = line.split(' ').map(Number);
    if (atMs !== undefined && cpu !== undefined && ticks !== undefined)
      seen.push({ atMs, cpu, ticks });
  });
  return {
    events: (fromMs, toMs) => seen.filter((e) => e.atMs >= fromMs && e.atMs <= toMs),
    close: () => {
      child.stdin.end();
    },
  };
}

/** How the slowest samples of a run line up with the moments the host took a CPU. */
export interface StallFigures {
  /** Samples over the threshold, and those of them with steal seen on the CPU. */
  readonly slow: number;
  readonly slowWithSteal: number;
  /** The share of all samples with steal seen on the CPU: what chance alone would give. */
  readonly shareWithSteal: number;
}

/**
 * For samples that ended at `endsAtMs[i]` after `ms[i]` (a request's way to the wire), which had
 * steal counted on `cpu` during them or within SEEN_WITHIN_MS after (when a stall there is seen).
 */
export function stallsOf(
  ms: readonly number[],
  endsAtMs: readonly number[],
  events: readonly StealEvent[],
  cpu: number | undefined,
  overMs: number,
): StallFigures {
  const times = events
    .filter((e) => cpu === undefined || e.cpu === cpu)
    .map((e) => e.atMs)
    .sort((a, b) => a - b);
  const stolen = (from: number, to: number): boolean => {
    // The first steal seen at or after `from`.
    let lo = 0;
    let hi = times.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((times[mid] ?? 0) < from) lo = mid + 1;
      else hi = mid;
    }
    return lo < times.length && (times[lo] ?? Infinity) <= to;
  };
  let slow = 0;
  let slowWithSteal = 0;
  let withSteal = 0;
  ms.forEach((d, i) => {
    const end = endsAtMs[i] ?? 0;
    const hit = stolen(end - d, end + SEEN_WITHIN_MS);
    if (hit) withSteal++;
    if (d > overMs) {
      slow++;
      if (hit) slowWithSteal++;
    }
  });
  return { slow, slowWithSteal, shareWithSteal: ms.length === 0 ? 0 : withSteal / ms.length };
}
