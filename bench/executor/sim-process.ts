/**
 * The benchmark's exchange: the simulator in a child process of its own (bench/executor/sim-child.ts
 * under `node --import tsx`, as the package scripts run TypeScript), so its matching engine, HTTP
 * server and background market do not share an event loop with the bot being measured — in
 * production the exchange is remote. The bench talks to it over HTTP only: the spot API, and the
 * admin API under /_sim/ for keys and state.
 *
 * The child prints one JSON line when it listens (as `makerd sim --port 0` does), stops on SIGTERM
 * or SIGINT, and also when its stdin closes, which happens when this process ends however it
 * ends, so a crashed or killed benchmark leaves no simulator behind.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { systemClock, type Clock } from '../../src/core/index.js';
import { pinProcess } from '../support/cpu-pinning.js';

/** Sub-millisecond wall clock (for the simulator child as for every part of the bot). */
export const hrClock: Clock = {
  now: () => performance.timeOrigin + performance.now(),
  sleep: (ms, signal) => systemClock.sleep(ms, signal),
};

/** The first line the child prints on stdout. */
export interface SimListening {
  readonly msg: 'makerd sim listening';
  readonly url: string;
  readonly port: number;
  readonly pid: number;
  readonly pairs: readonly string[];
  readonly background: boolean;
  readonly admin: string;
}

export interface SimChildOptions {
  /** Seed of the background market and of the simulator's ids. */
  readonly seed: number;
  /** taskset CPU list to pin the simulator to (cpu-pinning.ts); undefined leaves it unpinned. */
  readonly cpus?: string | undefined;
}

export interface SimProcess {
  /** Base URL of the simulator (spot API and /_sim/ admin API). */
  readonly url: string;
  readonly pid: number;
  /** SIGTERM, then SIGKILL if it has not exited within 5 s; resolves once it has exited. */
  close(): Promise<void>;
}

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CHILD = fileURLToPath(new URL('./sim-child.ts', import.meta.url));
const START_TIMEOUT_MS = 30_000;
const KILL_AFTER_MS = 5_000;
const STDERR_TAIL = 4_000;

/** Starts the simulator child and resolves once it listens. */
export async function startSimProcess(options: SimChildOptions): Promise<SimProcess> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', CHILD, '--seed', String(options.seed)],
    { cwd: ROOT, env: process.env, stdio: ['pipe', 'pipe', 'pipe'] },
  );
  if (options.cpus !== undefined && child.pid !== undefined) {
    try {
      pinProcess(child.pid, options.cpus);
    } catch (err) {
      child.kill('SIGKILL');
      throw err;
    }
  }
  // The child's stdin is only its lifeline: never written, closed when this process ends.
  child.stdin.on('error', () => undefined);
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (d: string) => {
    stderr = (stderr + d).slice(-STDERR_TAIL);
    process.stderr.write(d);
  });
  // Rejects when the child could not be spawned at all ('error').
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  exited.catch(() => undefined);
  const lines = createInterface({ input: child.stdout });

  let listening: SimListening;
  try {
    listening = await new Promise<SimListening>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no 'makerd sim listening' line within ${START_TIMEOUT_MS} ms`)),
        START_TIMEOUT_MS,
      );
      lines.once('line', (line) => {
        clearTimeout(timer);
        try {
          const parsed = JSON.parse(line) as Partial<SimListening>;
          if (parsed.msg !== 'makerd sim listening' || typeof parsed.url !== 'string') {
            throw new Error(`unexpected first line ${JSON.stringify(line)}`);
          }
          resolve(parsed as SimListening);
        } catch (err) {
          reject(err instanceof Error ? err : new Error(String(err)));
        }
      });
      exited.then(
        ([code, signal]) => {
          clearTimeout(timer);
          reject(new Error(`exited before listening (code ${code}, signal ${signal})`));
        },
        (err: unknown) => {
          clearTimeout(timer);
          reject(err instanceof Error ? err : new Error(String(err)));
        },
      );
    });
  } catch (err) {
    if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited.catch(() => undefined);
    }
    throw new Error(
      `simulator child (${CHILD}) failed to start: ${(err as Error).message}` +
        (stderr === '' ? '' : `\nits stderr:\n${stderr}`),
    );
  }
  // Anything it prints later is a diagnostic, not data.
  lines.on('line', (line) => process.stderr.write(`[sim] ${line}\n`));

  let closing: Promise<void> | undefined;
  return {
    url: listening.url,
    pid: child.pid ?? listening.pid,
    close: () => {
      closing ??= (async () => {
        if (child.exitCode === null && child.signalCode === null) {
          child.kill('SIGTERM');
          const timer = setTimeout(() => child.kill('SIGKILL'), KILL_AFTER_MS);
          await exited;
          clearTimeout(timer);
        }
        const [code, signal] = await exited;
        if (code !== 0) {
          process.stderr.write(
            `simulator child ${child.pid} ended with code ${code}, signal ${signal}\n`,
          );
        }
      })();
      return closing;
    },
  };
}
