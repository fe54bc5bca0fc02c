import { readFileSync } from 'node:fs';

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
