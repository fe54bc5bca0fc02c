/**
 * Entry of the benchmark's simulator process (started by bench/executor/sim-process.ts as
 * `node --import tsx bench/executor/sim-child.ts --seed N`): the simulator with its background
 * market on (seed N, ids seeded with N too), on 127.0.0.1 and a free port, on the high-resolution
 * clock. Prints one JSON line `{"msg":"makerd sim listening","url":...}` on stdout, then serves
 * until SIGTERM or SIGINT, or until its stdin closes (the benchmark ended, however it ended).
 */
import { startSimulator } from '../../src/sim/index.js';
import { hrClock, type SimListening } from './sim-process.js';

function seedArg(argv: readonly string[]): number {
  const i = argv.indexOf('--seed');
  const n = Number(i === -1 ? Number.NaN : argv[i + 1]);
  if (!Number.isSafeInteger(n) || n < 0)
    throw new Error('sim-child: --seed <whole number> is required');
  return n;
}

const seed = seedArg(process.argv.slice(2));
const sim = await startSimulator({
  config: { background: { enabled: true, seed } },
  port: 0,
  host: '127.0.0.1',
  clock: hrClock,
  idSeed: seed,
});

let stopping = false;
const stop = (): void => {
  if (stopping) return;
  stopping = true;
  sim.close().then(
    () => process.exit(0),
    (err: unknown) => {
      process.stderr.write(`sim-child: close failed: ${String(err)}\n`);
      process.exit(1);
    },
  );
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
// The parent never writes to stdin; its end closes when the parent exits, even on SIGKILL.
process.stdin.on('end', stop);
process.stdin.on('close', stop);
process.stdin.on('error', stop);
process.stdin.resume();

const listening: SimListening = {
  msg: 'makerd sim listening',
  url: sim.url,
  port: sim.port,
  pid: process.pid,
  pairs: sim.ctx.markets.pairs.map((p) => p.altname),
  background: sim.ctx.background.running,
  admin: `${sim.url}/_sim/state`,
};
process.stdout.write(`${JSON.stringify(listening)}\n`);
