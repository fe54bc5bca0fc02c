/** Spawns the `makerd` command line in tests and collects its JSON log lines. */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export const BIN = fileURLToPath(new URL('../../bin/makerd.js', import.meta.url));

export interface Line {
  readonly msg?: string;
  readonly url?: string;
  readonly [field: string]: unknown;
}

/** Spawns `makerd <args>` and collects its stdout JSON lines. */
export function makerd(args: string[], env: NodeJS.ProcessEnv = {}) {
  const child = spawn(process.execPath, [BIN, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  const lines: Line[] = [];
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (l) => {
    try {
      lines.push(JSON.parse(l) as Line);
    } catch {
      lines.push({ msg: l });
    }
  });
  const waitFor = async (msg: string, ms = 20_000): Promise<Line> => {
    const end = Date.now() + ms;
    for (;;) {
      const line = lines.find((l) => l.msg === msg);
      if (line) return line;
      if (child.exitCode !== null || Date.now() > end) {
        throw new Error(`no '${msg}' line; exit ${child.exitCode}; stderr: ${stderr}`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  // The bin's note that dist/ is stale says how this checkout was built, not what the command did.
  const own = (): string =>
    stderr.replace(/^makerd: dist\/(console \(.*\))? (is out of date|is not built):.*\n/gm, '');
  return { child, lines, waitFor, stderr: own };
}

export async function stop(child: ChildProcess): Promise<number | null> {
  // Ended already (an exit code, or killed by a signal): there is no 'exit' left to wait for.
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
  child.kill('SIGTERM');
  const [code] = (await once(child, 'exit')) as [number | null];
  return code;
}
