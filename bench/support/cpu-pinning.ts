import { spawnSync } from 'node:child_process';
import { availableParallelism } from 'node:os';

/**
 * Where a benchmark's processes run when its simulator stands in for a remote exchange. On one
 * small box the simulator's work would otherwise land on the measured process's core: a request
 * written to it over loopback wakes it there, and the measured process waits while it parses and
 * answers (about a millisecond here), which no remote exchange costs. The simulator gets the last
 * CPU, the benchmark process the others; Redis, which shares the box in production too, is left
 * where the system puts it.
 */
export interface Pinning {
  /** taskset CPU list for the benchmark process. */
  readonly self: string;
  /** taskset CPU list for the simulator process. */
  readonly sim: string;
}

/** The pinning for this machine, or why there is none (one CPU, or no taskset). */
export function planPinning(): Pinning | string {
  const n = availableParallelism();
  if (n < 2) return `${n} CPU: nothing to separate`;
  const probe = spawnSync('taskset', ['-p', String(process.pid)], { encoding: 'utf8' });
  if (probe.error !== undefined || probe.status !== 0) return 'taskset not available';
  return { self: n === 2 ? '0' : `0-${n - 2}`, sim: String(n - 1) };
}

/** Pins every thread of process `pid` to `cpus` (a taskset list); throws naming what failed. */
export function pinProcess(pid: number, cpus: string): void {
  const r = spawnSync('taskset', ['-a', '-pc', cpus, String(pid)], { encoding: 'utf8' });
  if (r.error !== undefined || r.status !== 0) {
    throw new Error(`taskset -a -pc ${cpus} ${pid} failed: ${r.error?.message ?? r.stderr.trim()}`);
  }
}
