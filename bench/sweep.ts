/**
 * `npm run bench:sweep`: the wall time of one `makerd backtest --sweep` with one local worker and
 * with two, on the same simulated recording.
 *
 *   1. `makerd record --simulated` writes BENCH_MINUTES (default 10) of the simulator's flow of the
 *      paper config's two pairs into a folder;
 *   2. a sweep file crosses queue-aware refresh (off, on) with the fee (starter, 0 % maker): four
 *      combinations of the paper config;
 *   3. `makerd backtest --sweep` runs it with `--jobs 1`, then with `--jobs 2`, each a child process
 *      from the command line (as an operator runs it), on the Redis at REDIS_URL under a fresh
 *      prefix, and prints the wall time of the whole command and the runs' own times.
 *
 * On a machine shared with other work the wall clock counts their time too: quote it with the load.
 */
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SweepResults } from '../src/lab/sweep/index.js';
import { envNumber } from './support/load.js';
import { printHeader } from './support/run.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(ROOT, 'bin', 'makerd.js');
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

function makerd(args: readonly string[]): { wallMs: number; stdout: string } {
  const started = performance.now();
  const run = spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, encoding: 'utf8' });
  if (run.status !== 0) {
    throw new Error(`makerd ${args.join(' ')} exited ${run.status}: ${run.stderr}`);
  }
  return { wallMs: performance.now() - started, stdout: run.stdout };
}

printHeader('sweep');
const minutes = envNumber('BENCH_MINUTES', 10);
const dir = mkdtempSync(join(tmpdir(), 'makerd-bench-sweep-'));
try {
  const paper = readFileSync(join(ROOT, 'config', 'paper.yaml'), 'utf8')
    .replace(/^ {2}url: redis:.*$/m, `  url: ${REDIS_URL}`)
    .replace(/^ {2}prefix: .*$/m, `  prefix: bench-sweep-${randomUUID().slice(0, 8)}`)
    .replace('sim_config: sim.yaml', `sim_config: ${join(ROOT, 'config', 'sim.yaml')}`);
  writeFileSync(join(dir, 'bot.yaml'), paper);
  const recorded = makerd([
    'record',
    '--simulated',
    '--minutes',
    String(minutes),
    '--config',
    join(dir, 'bot.yaml'),
    '--out',
    join(dir, 'rec'),
  ]);
  console.log(recorded.stdout.trim());
  writeFileSync(
    join(dir, 'sweep.yaml'),
    JSON.stringify({
      config: 'bot.yaml',
      data: 'rec',
      grid: {
        options: { queue_value_bps: [0, 2] },
        fees: [{ volume_usd: 0 }, { maker: 0, taker: 0.4 }],
      },
    }),
  );
  console.log(
    `4 combinations x ${minutes} min of 2 pairs; load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  const walls: number[] = [];
  for (const jobs of [1, 2]) {
    const out = join(dir, `out-${jobs}`);
    const { wallMs } = makerd([
      'backtest',
      '--sweep',
      join(dir, 'sweep.yaml'),
      '--jobs',
      String(jobs),
      '--out',
      out,
    ]);
    const results = JSON.parse(readFileSync(join(out, 'sweep.json'), 'utf8')) as SweepResults;
    const runs = results.rows.map((r) =>
      r.runs.full?.status === 'ok' ? r.runs.full.figures.wall_ms : NaN,
    );
    walls.push(wallMs);
    console.log(
      `--jobs ${jobs}: ${(wallMs / 1000).toFixed(1)} s for the command (sweep ${(results.wallMs / 1000).toFixed(1)} s); ` +
        `runs ${runs.map((ms) => (ms / 1000).toFixed(1)).join(', ')} s; ` +
        `load average ${loadavg()[0]?.toFixed(1)}`,
    );
  }
  console.log(
    `--jobs 2 over --jobs 1: ${((walls[1] ?? NaN) / (walls[0] ?? NaN)).toFixed(2)} of the wall time`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
