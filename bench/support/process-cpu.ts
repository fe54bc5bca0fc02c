import { execFileSync } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';

const TICKS_PER_S = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());

/** CPU seconds of a process: its main (JavaScript) thread's user and system time, other threads'. */
export interface CpuTimes {
  readonly mainUser: number;
  readonly mainSystem: number;
  /** V8's helpers (concurrent GC, compilers) and libuv's pool. */
  readonly others: number;
}

/** utime and stime of one /proc stat file, seconds. */
async function statTimes(file: string): Promise<[number, number]> {
  const stat = await readFile(file, 'utf8');
  // Fields after the command name (which may hold spaces), from the third: utime is the 14th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return [Number(fields[11]) / TICKS_PER_S, Number(fields[12]) / TICKS_PER_S];
}

export async function cpuTimes(pid: number): Promise<CpuTimes> {
  const [mainUser, mainSystem] = await statTimes(`/proc/${pid}/task/${pid}/stat`);
  let others = 0;
  for (const tid of await readdir(`/proc/${pid}/task`)) {
    if (tid === String(pid)) continue;
    // A thread may end between the listing and the read.
    const times = await statTimes(`/proc/${pid}/task/${tid}/stat`).catch(() => [0, 0]);
    others += (times[0] ?? 0) + (times[1] ?? 0);
  }
  return { mainUser, mainSystem, others };
}

export const cpuMinus = (a: CpuTimes, b: CpuTimes): CpuTimes => ({
  mainUser: a.mainUser - b.mainUser,
  mainSystem: a.mainSystem - b.mainSystem,
  others: a.others - b.others,
});

/** All of a process's CPU seconds. */
export const cpuTotal = (t: CpuTimes): number => t.mainUser + t.mainSystem + t.others;
