import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import type { Clock } from '../../core/index.js';

/** The command that starts one worker process on a sweep (`makerd backtest worker ...`). */
export interface WorkerCommand {
  readonly command: string;
  readonly args: readonly string[];
  /** Default: this process's environment. */
  readonly env?: NodeJS.ProcessEnv;
}

/** How long a stopped worker has to hand its run back and exit before it is killed. */
const STOP_GRACE_MS = 15_000;

/**
 * The sweep's worker processes on this machine: each a `makerd backtest worker` on the sweep, as
 * another machine would run it. Their stderr lines are passed on (a refusal, a crash); how they
 * exited is kept, so a sweep whose local workers all died says why instead of waiting forever.
 */
export class LocalWorkers {
  readonly #children: ChildProcess[] = [];
  readonly #exits: { code: number | null; signal: NodeJS.Signals | null; lastLine: string }[] = [];

  constructor(
    count: number,
    command: WorkerCommand,
    onLine: (index: number, line: string) => void,
  ) {
    for (let i = 0; i < count; i++) {
      const child = spawn(command.command, [...command.args], {
        stdio: ['ignore', 'ignore', 'pipe'],
        ...(command.env === undefined ? {} : { env: command.env }),
      });
      let lastLine = '';
      createInterface({ input: child.stderr as NodeJS.ReadableStream }).on('line', (line) => {
        // The bin's note that it runs the sources says how the checkout was built, nothing more.
        if (/^makerd: dist\/ (is out of date|is not built)/.test(line)) return;
        lastLine = line;
        onLine(i + 1, line);
      });
      child.once('exit', (code, signal) => this.#exits.push({ code, signal, lastLine }));
      this.#children.push(child);
    }
  }

  get count(): number {
    return this.#children.length;
  }

  /** True when every local worker has exited (none were started: false). */
  get allExited(): boolean {
    return this.#children.length > 0 && this.#exits.length === this.#children.length;
  }

  /** How the last worker to exit went, for the sweep's error. */
  get lastExit(): string {
    const e = this.#exits.at(-1);
    if (e === undefined) return 'still running';
    const how = e.signal === null ? `exit code ${e.code}` : `signal ${e.signal}`;
    return e.lastLine === '' ? how : `${how}: ${e.lastLine}`;
  }

  /** Waits for every worker to exit (they leave when the sweep closes); kills one that lingers. */
  async stop(clock: Clock, signalFirst: boolean): Promise<void> {
    await Promise.all(
      this.#children.map(async (child) => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        const exited = once(child, 'exit');
        if (signalFirst) child.kill('SIGTERM');
        const timeout = new AbortController();
        const late = clock.sleep(STOP_GRACE_MS, timeout.signal).then(
          () => child.kill('SIGKILL'),
          () => undefined,
        );
        await exited;
        timeout.abort();
        await late;
      }),
    );
  }
}
