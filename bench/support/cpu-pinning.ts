import { spawnSync } from 'node:child_process';
import { availableParallelism } from 'node:os';

/**
 * Where a benchmark's processes run when its simulator stands in for a remote exchange. On one
 * small box the simulator's work would otherwise land on the measured process's core: a request
 * written to it over loopback wakes it there, and the measured process waits while it parses and
 * answers (about a millisecond here), which no remote exchange costs. So the measured process's
 * main thread (its event loop, where every order is decided and written) gets the first CPU to
 * itself, and the simulator the last. The measured process's other threads (V8's garbage
 * collection and compiler helpers, libuv's pool) go to the CPUs between or, on a two-CPU box, share
 * the simulator's: left on the main thread's CPU they preempted it (~1500 times a minute in a
 * 60 s run) and set the tail of tick-to-wire (60 s-after-settling p99 4.9 ms against 1.6 ms),
 * which makerd unpinned on a machine of its own does not suffer. Redis, which shares the box in
 * production too, is left where the system puts it.
 */
export interface Pinning {
  /** taskset CPU list for the benchmark process's main thread. */
  readonly main: string;
  /** taskset CPU list for the benchmark process's other threads. */
  readonly helpers: string;
  /** taskset CPU list for the simulator process. */
  readonly sim: string;
}

/** The pinning for this machine, or why there is none (one CPU, or no taskset). */
export function planPinning(): Pinning | string {
  const n = availableParallelism();
  if (n < 2) return `${n} CPU: nothing to separate`;
  const probe = spawnSync('taskset', ['-p', String(process.pid)], { encoding: 'utf8' });
  if (probe.error !== undefined || probe.status !== 0) return 'taskset not available';
  const sim = String(n - 1);
  return { main: '0', helpers: n <= 3 ? '1' : `1-${n - 2}`, sim };
}

/**
 * Pins this process as `pinning` says: every thread to the helpers' CPUs, then the main thread
 * alone (its thread id is the pid) to its own. Threads the main thread starts later inherit its
 * CPU; V8's and libuv's exist by the time a benchmark starts its runs.
 */
export function pinSelf(pinning: Pinning): void {
  pinProcess(process.pid, pinning.helpers);
  taskset(['-pc', pinning.main, String(process.pid)]);
}

/** Pins every thread of process `pid` to `cpus` (a taskset list); throws naming what failed. */
export function pinProcess(pid: number, cpus: string): void {
  taskset(['-a', '-pc', cpus, String(pid)]);
}

function taskset(args: readonly string[]): void {
  const r = spawnSync('taskset', args, { encoding: 'utf8' });
  if (r.error !== undefined || r.status !== 0) {
    throw new Error(`taskset ${args.join(' ')} failed: ${r.error?.message ?? r.stderr.trim()}`);
  }
}
