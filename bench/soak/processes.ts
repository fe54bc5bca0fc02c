/**
 * The soak's two processes, started as an operator starts them: `makerd sim` and
 * `makerd run --config`, each through bin/makerd.js (the compiled dist/, as the image runs it).
 * Both stop on SIGTERM; makerd's JSON log goes to a file so a run can be read afterwards.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = fileURLToPath(new URL('../../bin/makerd.js', import.meta.url));
const START_TIMEOUT_MS = 30_000;
const KILL_AFTER_MS = 15_000;
/** This environment without MAKERD_* settings, which would override the soak's config file. */
const ENV = Object.fromEntries(
  Object.entries(process.env).filter(([name]) => !name.startsWith('MAKERD_')),
);

export interface Child {
  readonly pid: number;
  /** SIGTERM, then SIGKILL after 15 s; resolves with the exit code once it has exited. */
  stop(): Promise<number | null>;
  /** Resolves when the process ends by itself or is stopped. */
  readonly exited: Promise<[number | null, NodeJS.Signals | null]>;
}

function wrap(child: ChildProcess): Child {
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  exited.catch(() => undefined);
  let stopping: Promise<number | null> | undefined;
  return {
    pid: child.pid ?? -1,
    exited,
    stop: () => {
      stopping ??= (async () => {
        if (child.exitCode === null && child.signalCode === null) {
          child.kill('SIGTERM');
          const timer = setTimeout(() => child.kill('SIGKILL'), KILL_AFTER_MS);
          await exited;
          clearTimeout(timer);
        }
        return (await exited)[0];
      })();
      return stopping;
    },
  };
}

/**
 * Refuses to measure the TypeScript sources: bin/makerd.js says on stderr, before anything else,
 * when dist/ is stale and it runs the sources through tsx (whose compiler would be measured too).
 */
function refuseStaleBuild(child: ChildProcess, name: string, onStale: (line: string) => void) {
  if (child.stderr === null) return;
  const lines = createInterface({ input: child.stderr });
  lines.on('line', (line) => {
    if (line.startsWith('makerd: dist/')) onStale(`${name}: ${line}`);
    else process.stderr.write(`[${name}] ${line}\n`);
  });
}

/** `makerd sim --port 0`; resolves with its URL once it listens. */
export async function startSim(simConfig: string): Promise<Child & { url: string }> {
  const child = spawn(process.execPath, [BIN, 'sim', '--config', simConfig, '--port', '0'], {
    cwd: ROOT,
    env: ENV,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const wrapped = wrap(child);
  let stale: string | undefined;
  refuseStaleBuild(child, 'sim', (line) => (stale = line));
  const lines = createInterface({ input: child.stdout });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error('makerd sim did not listen within 30 s')),
      START_TIMEOUT_MS,
    );
    lines.once('line', (line) => {
      clearTimeout(timer);
      const parsed = JSON.parse(line) as { msg?: string; url?: string };
      if (parsed.msg === 'makerd sim listening' && typeof parsed.url === 'string') {
        resolve(parsed.url);
      } else {
        reject(new Error(`makerd sim: unexpected first line ${line}`));
      }
    });
    void wrapped.exited.then(([code]) => reject(new Error(`makerd sim exited (code ${code})`)));
  }).catch(async (err: unknown) => {
    await wrapped.stop();
    throw err;
  });
  if (stale !== undefined) {
    await wrapped.stop();
    throw new Error(`${stale}\nrun \`npm run build\` first: the soak measures the compiled dist/`);
  }
  lines.on('line', () => undefined);
  return { ...wrapped, url };
}

/**
 * `makerd run --config <file>`, its stdout (the JSON log) into `logFile`; `nodeArgs` go to node
 * before the script (`--cpu-prof`).
 */
export function startMakerd(
  config: string,
  logFile: string,
  nodeArgs: readonly string[] = [],
): Child & { stale: () => string | undefined } {
  const child = spawn(process.execPath, [...nodeArgs, BIN, 'run', '--config', config], {
    cwd: ROOT,
    env: ENV,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.pipe(createWriteStream(logFile));
  let stale: string | undefined;
  refuseStaleBuild(child, 'makerd', (line) => (stale = line));
  return { ...wrap(child), stale: () => stale };
}
