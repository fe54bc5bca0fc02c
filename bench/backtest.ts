/**
 * `npm run bench:backtest`: how fast `makerd backtest` replays, and where the time goes.
 *
 *   1. synthesises a recording of two pairs (the simulator's background market on a manual clock,
 *      polled at the paper config's cadence: test/lab/replay/synth-recording.ts) into a folder;
 *   2. replays it in a child process through the paper config with both pairs quoted by a spread
 *      that trades often (test/support/paper-config.ts), with the bot's stores in memory (the
 *      default), and prints the speed as a multiple of real time, wall time, events, fills, and the
 *      process's RSS and V8 heap used at 10, 30 and 60 minutes of replayed time (then every hour):
 *      flat in the recording's length; then again with the stores in Redis at REDIS_URL (a fresh
 *      prefix, deleted afterwards), for the comparison;
 *   3. replays it again under --cpu-prof and prints the self time by owner (the bot's live code,
 *      Redis I/O, the simulator, the replay), by module, and the top functions.
 *
 * Knobs (environment): BENCH_MINUTES (recording length, default 60), BENCH_PROFILE (0: skip 3).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PerformanceObserver, constants } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { runBacktest, type StoreKind } from '../src/lab/backtest-run.js';
import { builtInStrategies } from '../src/daemon/package-file.js';
import { loadSettings } from '../src/daemon/settings-file.js';
import { RecordingReader } from '../src/recording/index.js';
import { silentLogger } from '../src/obs/index.js';
import { synthesiseRecording, writeRecording } from '../test/lab/replay/synth-recording.js';
import { BOTH_PAIRS_TRADING, paperConfigText } from '../test/support/paper-config.js';
import { envNumber } from './support/load.js';
import { printHeader } from './support/run.js';

const PAIRS = ['XBTUSD', 'ETHUSD'];
const START_MS = Date.UTC(2026, 10, 1);
const SELF = fileURLToPath(import.meta.url);
const ROOT = join(SELF, '..', '..');

interface ChildFigures {
  readonly spanMs: number;
  readonly wallMs: number;
  /** CPU time (user + system) of the replay: on a shared machine, steadier than wall time. */
  readonly cpuMs: number;
  readonly events: number;
  readonly redisCommands: number;
  readonly fills: number;
  /** Our executions on the replayed exchange, as text: both store kinds must give the same. */
  readonly ledger: string;
  readonly rssMb: number;
  /** Memory at replayed minutes 10, 30, 60, then every 60. */
  readonly memory: readonly MemoryMark[];
}

interface MemoryMark {
  readonly minute: number;
  readonly rssMb: number;
  readonly heapMb: number;
  /** Heap used just after the last full GC: the live data, without garbage not yet collected. */
  readonly liveMb: number;
}

function memoryMarks(minutes: number): number[] {
  const marks = [10, 30];
  for (let m = 60; m <= minutes; m += 60) marks.push(m);
  return marks.filter((m) => m <= minutes);
}

if (process.env.BENCH_REPLAY_DIR !== undefined) {
  await replayOnly(process.env.BENCH_REPLAY_DIR);
} else {
  await main();
}

async function main(): Promise<void> {
  printHeader('backtest');
  const minutes = envNumber('BENCH_MINUTES', 60);
  const dir = mkdtempSync(join(tmpdir(), 'makerd-bench-backtest-'));
  try {
    const t0 = performance.now();
    const rows = await synthesiseRecording({
      pairs: PAIRS,
      startMs: START_MS,
      durationMs: minutes * 60_000,
    });
    writeRecording(join(dir, 'rec'), rows);
    console.log(
      `recording: ${minutes} min of ${PAIRS.join(', ')}, ${rows.length} rows, synthesised in ` +
        `${((performance.now() - t0) / 1000).toFixed(1)} s`,
    );
    const plain = await child(dir, [], 'memory');
    console.log(
      `replay, stores in memory: ${(plain.spanMs / plain.wallMs).toFixed(0)}x real time (${(plain.spanMs / 60_000).toFixed(0)} min ` +
        `in ${(plain.wallMs / 1000).toFixed(1)} s wall), ${plain.events} events ` +
        `(${((plain.wallMs * 1000) / plain.events).toFixed(0)} µs each), ${plain.fills} fills, ` +
        `RSS ${plain.rssMb} MB`,
    );
    console.log(
      `CPU: ${(plain.cpuMs / 1000).toFixed(1)} s (${((plain.cpuMs * 1000) / plain.events).toFixed(0)} µs an ` +
        `event): ${(plain.spanMs / plain.cpuMs).toFixed(0)}x real time per CPU second; the rest of the ` +
        'wall time waited for a CPU',
    );
    console.log(
      `memory at replayed minute: ${plain.memory
        .map(
          (m) => `${m.minute} min RSS ${m.rssMb} MB, heap used ${m.heapMb} (${m.liveMb} after GC)`,
        )
        .join('; ')}`,
    );
    console.log(`target 500x: ${plain.spanMs / plain.wallMs >= 500 ? 'met' : 'not met'}`);
    const redis = await child(dir, [], 'redis');
    console.log(
      `replay, stores in Redis: ${(redis.spanMs / redis.wallMs).toFixed(0)}x real time ` +
        `(${(redis.wallMs / 1000).toFixed(1)} s wall, CPU ${(redis.cpuMs / 1000).toFixed(1)} s), ` +
        `${redis.redisCommands} Redis commands, ${redis.fills} fills; our executions ` +
        `${redis.ledger === plain.ledger ? 'identical to' : 'DIFFERENT from'} the in-memory run's`,
    );
    if (process.env.BENCH_PROFILE === '0') return;
    const profDir = join(dir, 'prof');
    await child(dir, ['--cpu-prof', `--cpu-prof-dir=${profDir}`], 'memory');
    summariseProfile(profDir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** One replay in a child process (a profile of its own); its figures come back as JSON. */
async function child(
  dir: string,
  nodeFlags: readonly string[],
  stores: StoreKind,
): Promise<ChildFigures> {
  const proc = spawn(process.execPath, [...nodeFlags, '--import', 'tsx', SELF], {
    cwd: ROOT,
    env: {
      ...process.env,
      BENCH_REPLAY_DIR: join(dir, 'rec'),
      BENCH_CONFIG_DIR: dir,
      BENCH_STORES: stores,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  proc.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => proc.on('close', resolve));
  if (code !== 0) throw new Error(`the replay exited with ${String(code)}`);
  return JSON.parse(out.trim().split('\n').pop() ?? '{}') as ChildFigures;
}

async function replayOnly(recording: string): Promise<void> {
  const configFile = join(process.env.BENCH_CONFIG_DIR ?? tmpdir(), 'bench.yaml');
  // A bot that trades often: the paper config's own settings trade a few times an hour, which
  // would leave order entry, the tracker and PnL out of the figure.
  writeFileSync(configFile, paperConfigText({ pairs: BOTH_PAIRS_TRADING }).text);
  const { settings, dir } = loadSettings(configFile);
  const marks = memoryMarks(Number(process.env.BENCH_MINUTES ?? 60));
  const memory: MemoryMark[] = [];
  let liveMb = 0;
  const gc = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const kind = (e as { detail?: { kind?: number } }).detail?.kind;
      if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) liveMb = mb(process.memoryUsage().heapUsed);
    }
  });
  gc.observe({ entryTypes: ['gc'] });
  const cpu = process.cpuUsage();
  const result = await runBacktest({
    stores: process.env.BENCH_STORES === 'redis' ? 'redis' : 'memory',
    settings,
    configDir: dir,
    rows: () => new RecordingReader(recording).rows(),
    latencyMs: 5,
    log: silentLogger(),
    strategiesDir: builtInStrategies(),
    onProgress: ({ startMs, nowMs }) => {
      const minute = marks[memory.length];
      if (minute === undefined || nowMs - startMs < minute * 60_000) return;
      const { rss, heapUsed } = process.memoryUsage();
      memory.push({ minute, rssMb: mb(rss), heapMb: mb(heapUsed), liveMb });
    },
  });
  gc.disconnect();
  // The recording's last row comes a moment before its last full minute: that mark is its end.
  const last = marks[memory.length];
  if (last !== undefined && last * 60_000 - (result.endMs - result.startMs) < 60_000) {
    const { rss, heapUsed } = process.memoryUsage();
    memory.push({ minute: last, rssMb: mb(rss), heapMb: mb(heapUsed), liveMb });
  }
  const figures: ChildFigures = {
    spanMs: result.endMs - result.startMs,
    wallMs: result.wallMs,
    cpuMs: (() => {
      const used = process.cpuUsage(cpu);
      return (used.user + used.system) / 1000;
    })(),
    events: result.events,
    redisCommands: result.redisCommands,
    fills: result.pairs.reduce((n, p) => n + p.fills, 0),
    ledger: JSON.stringify(result.pairs.map((p) => p.ledger)),
    rssMb: Math.round(process.memoryUsage().rss / 1e6),
    memory,
  };
  process.stdout.write(`${JSON.stringify(figures)}\n`);
}

function mb(bytes: number): number {
  return Math.round(bytes / 1e6);
}

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { functionName: string; url: string; lineNumber: number };
  readonly children?: readonly number[];
}

/** Self time by function and by module, from the child's .cpuprofile. */
function summariseProfile(profDir: string): void {
  const file = readdirSync(profDir).find((f) => f.endsWith('.cpuprofile'));
  if (file === undefined) return;
  const profile = JSON.parse(readFileSync(join(profDir, file), 'utf8')) as {
    nodes: ProfileNode[];
    samples: number[];
    timeDeltas: number[];
  };
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const parents = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parents.set(c, n.id);
  const byOwner = new Map<string, number>();
  const byFunction = new Map<string, number>();
  const byModule = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const frame = nodes.get(id)?.callFrame;
    if (frame === undefined) return;
    const us = profile.timeDeltas[i] ?? 0;
    total += us;
    const where = frame.url.replace(/^file:\/\//, '').replace(`${ROOT}/`, '');
    const fn = `${frame.functionName || '(anonymous)'} ${where}${where === '' ? '' : `:${frame.lineNumber + 1}`}`;
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + us);
    const owner = ownerOf(id, nodes, parents);
    byOwner.set(owner, (byOwner.get(owner) ?? 0) + us);
    byModule.set(
      moduleOf(where, frame.functionName),
      (byModule.get(moduleOf(where, frame.functionName)) ?? 0) + us,
    );
  });
  const top = (m: Map<string, number>, n: number): string[] =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(
        ([k, us]) =>
          `  ${((us / total) * 100).toFixed(1).padStart(5)} %  ${(us / 1000).toFixed(0).padStart(6)} ms  ${k}`,
      );
  console.log(
    `profile (--cpu-prof of a second replay, ${(total / 1e6).toFixed(1)} s sampled), by owner ` +
      '(the nearest frame up the stack that one of them owns):',
  );
  console.log(top(byOwner, 10).join('\n'));
  console.log('self time by module:');
  console.log(top(byModule, 14).join('\n'));
  console.log('top functions by self time:');
  console.log(top(byFunction, 20).join('\n'));
}

/**
 * Who a sample's time is for: the first frame from the leaf up that belongs to the bot's live code,
 * Redis I/O, the simulator or the replay (decimal.js and node internals count for their caller).
 * The bot's share and Redis I/O are the floor no replay change removes (docs/backtest.md, "Speed").
 */
function ownerOf(
  leaf: number,
  nodes: ReadonlyMap<number, ProfileNode>,
  parents: ReadonlyMap<number, number>,
): string {
  const venue = "venue: the simulator answering the bot's calls";
  // Engine work is the recorded market's when a recorded-* frame called it, else the venue's.
  let inSim = false;
  for (let id: number | undefined = leaf; id !== undefined; id = parents.get(id)) {
    const { url, functionName } = nodes.get(id)?.callFrame ?? { url: '', functionName: '' };
    if (url === '') {
      if (functionName.startsWith('(') && functionName !== '(root)') return functionName;
      continue;
    }
    if (/src\/lab\/replay\/recorded-|src\/lab\/recording\//.test(url)) {
      return 'replay: recorded market and reader (its engine work included)';
    }
    if (/src\/sim\//.test(url)) {
      inSim = true;
      continue;
    }
    if (inSim || /src\/lab\/replay\/sim-transport/.test(url)) return venue;
    if (/node_modules\/(ioredis|redis-parser|denque)\/|node:net|stream_base_commons/.test(url)) {
      return 'Redis I/O (ioredis, socket writes)';
    }
    if (/src\/lab\/replay\//.test(url)) return 'replay: driver and clock';
    if (
      /src\/(runner|market|executor|bus|cli|exchange|pnl|core|obs|safety)\/|strategies\//.test(url)
    ) {
      return 'bot: live code (runner, feed, executor, bus, client, PnL)';
    }
  }
  return inSim ? venue : 'other (module loading, node internals)';
}

function moduleOf(where: string, functionName: string): string {
  if (where === '') return functionName; // (idle), (garbage collector), (program)
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(where);
  if (pkg !== null) return `npm ${pkg[1] ?? ''}`;
  const ours = /^(src\/[^/]+|test\/[^/]+|strategies)/.exec(where);
  if (ours !== null) return ours[1] ?? where;
  if (where.startsWith('node:')) return 'node internals';
  return where;
}
