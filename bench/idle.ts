/**
 * `npm run bench:idle`: what `makerd run` costs while it waits between its polls: CPU time of the
 * process and Redis commands a second, by command.
 *
 * Starts a Redis of its own (redis-server from PATH: INFO commandstats then counts makerd only),
 * `makerd sim` (config/sim.yaml, background market on) and `makerd run` on config/paper.yaml cut
 * to N pairs, through bin/makerd.js on the compiled dist/ (refused when stale: `npm run build`).
 * After `--settle` seconds it samples over `--seconds`: the process's CPU time (utime + stime of
 * each thread, /proc/<pid>/task/<tid>/stat: the main thread runs makerd's JavaScript, the others
 * are V8's garbage collector and compilers and libuv's pool), INFO commandstats deltas (every
 * call, a Lua script's own calls included) and a MONITOR connection that splits client commands from script calls and names the key shapes.
 *
 * Flags: --market still|moving (default still: the simulator's book stands, so the bot only polls;
 * moving: config/sim.yaml's background flow, so it requotes and trades too),
 * --poll-every S (each market poll of the runner at least S seconds apart: what is left is the
 * bot's own timers and the supervisor's and executor's), --pairs N (1-3, default 2), --seconds S (default 60), --settle S (default 20),
 * --profile DIR (node --cpu-prof into DIR), --keys (client commands by key shape too).
 */
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { parse, stringify } from 'yaml';
import { errorMessage } from '../src/core/index.js';
import { commandStats, minus, monitorCommands, type CommandCounts } from './idle/redis-counts.js';
import { summariseProfile } from './idle/profile.js';
import { startRedisServer } from './idle/redis-server.js';
import { SIM_CONFIG, untilReady, writePaperConfig } from './soak/paper-config.js';
import { startMakerd, startSim } from './soak/processes.js';
import { cpuMinus, cpuTimes, type CpuTimes } from './support/process-cpu.js';
import { printHeader } from './support/run.js';

/** Pair names as makerd keys them (ids and altnames), replaced in the key shapes. */
const PAIR_NAMES = ['XXBTZUSD', 'XETHZUSD', 'XETHXXBT', 'XBTUSD', 'ETHUSD', 'ETHXBT'];

interface Args {
  readonly pairs: number;
  readonly seconds: number;
  readonly settle: number;
  readonly profile: string | undefined;
  readonly keys: boolean;
  /** `still`: the simulator's background makers hold their orders and no taker trades. */
  readonly market: 'moving' | 'still';
  /** Every market poll of the runner stretched to at least this many seconds (0: as configured). */
  readonly pollEvery: number;
}

function parseArgs(argv: readonly string[]): Args {
  const args = {
    pairs: 2,
    seconds: 60,
    settle: 20,
    'poll-every': 0,
    profile: undefined as string | undefined,
  };
  let keys = false;
  let market: Args['market'] = 'still';
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    if (flag === '--keys') {
      keys = true;
      continue;
    }
    const value = argv[++i];
    if (flag === '--market') {
      if (value !== 'moving' && value !== 'still') {
        throw new Error(`--market: moving or still, got ${value}`);
      }
      market = value;
      continue;
    }
    if (flag === '--profile' && value !== undefined) {
      args.profile = value;
      continue;
    }
    const n = Number(value);
    const name = flag?.replace(/^--/, '');
    if (name !== 'pairs' && name !== 'seconds' && name !== 'settle' && name !== 'poll-every') {
      throw new Error(
        `usage: bench:idle [--market still|moving] [--poll-every S] [--pairs 1-3] [--seconds S] [--settle S] [--profile DIR] [--keys] (got ${flag})`,
      );
    }
    if (!(n >= 0)) throw new Error(`--${name}: must be a number, got ${value}`);
    args[name] = n;
  }
  if (!Number.isInteger(args.pairs) || args.pairs < 1 || args.pairs > 3) {
    throw new Error('--pairs: 1, 2 or 3');
  }
  if (!(args.seconds > 0)) throw new Error('--seconds: must be above 0');
  const { 'poll-every': pollEvery, ...rest } = args;
  return { ...rest, pollEvery, keys, market };
}

/**
 * config/sim.yaml, the background market moving (as shipped) or still: its book stands, so the
 * strategies keep their quotes and what makerd does is its polls and its own timers.
 */
async function writeSimConfig(dir: string, market: Args['market']): Promise<string> {
  const config = parse(await readFile(SIM_CONFIG, 'utf8')) as {
    background: Record<string, unknown> & { makers: Record<string, unknown> };
  };
  if (market === 'still') {
    config.background.volatility_per_sec = 0;
    config.background.takers_per_sec = 0;
    config.background.makers.cancels_per_sec = 0;
  }
  const file = join(dir, 'sim.yaml');
  await writeFile(file, stringify(config));
  return file;
}

/**
 * A module preloaded into makerd (`node --import`, a data: URL): it counts the signed REST calls
 * its clients send, by endpoint, from the client's own diagnostics channel, and keeps the counts
 * in `file`, rewritten at each call (a few a second).
 */
function callCounter(file: string): string {
  const path = JSON.stringify(file);
  const code = `
    import { channel } from 'node:diagnostics_channel';
    import { writeFileSync } from 'node:fs';
    const counts = {};
    writeFileSync(${path}, '{}');
    channel('makerd:exchange:signed').subscribe((m) => {
      counts[m.endpoint] = (counts[m.endpoint] ?? 0) + 1;
      writeFileSync(${path}, JSON.stringify(counts));
    });`;
  return `data:text/javascript,${encodeURIComponent(code)}`;
}

/** The signed REST calls makerd has sent so far, by endpoint (callCounter). */
async function restCalls(file: string): Promise<Map<string, number>> {
  const counts = JSON.parse(await readFile(file, 'utf8')) as Record<string, number>;
  return new Map(Object.entries(counts));
}

function minusCalls(after: Map<string, number>, before: Map<string, number>) {
  return new Map([...after].map(([k, n]) => [k, n - (before.get(k) ?? 0)] as const));
}

const sum = (m: CommandCounts) => [...m.values()].reduce((a, b) => a + b, 0);
const perSec = (n: number, s: number) => (n / s).toFixed(2);

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  printHeader('idle');
  const dir = await mkdtemp(join(tmpdir(), 'makerd-idle-'));
  const prefix = `makerd-idle-${process.pid}`;
  const redis = await startRedisServer();
  const simConfig = await writeSimConfig(dir, args.market);
  // A refused start (a stale dist/) must not leave the Redis child holding the bench open.
  const sim = await startSim(simConfig).catch(async (err: unknown) => {
    await redis.stop();
    throw err;
  });
  const info = new Redis(redis.url);
  const watcher = new Redis(redis.url);
  try {
    const { file, metricsUrl } = await writePaperConfig({
      dir,
      simUrl: sim.url,
      redisUrl: redis.url,
      pairs: args.pairs,
      prefix,
      simConfig,
      ...(args.pollEvery > 0 ? { pollEveryMs: args.pollEvery * 1000 } : {}),
    });
    const logFile = join(dir, 'makerd.log');
    const callsFile = join(dir, 'calls.json');
    const nodeArgs = [
      '--import',
      callCounter(callsFile),
      ...(args.profile === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${args.profile}`]),
    ];
    const makerd = startMakerd(file, logFile, nodeArgs);
    let window: [number, number] | undefined;
    console.log(
      `${args.pairs} pairs, ${args.market} market` +
        `${args.pollEvery > 0 ? `, market polls every ${args.pollEvery} s or more` : ''}; settle ${args.settle} s, sample ${args.seconds} s; ` +
        `simulator pid ${sim.pid}, makerd pid ${makerd.pid}, log ${logFile}`,
    );
    try {
      await untilReady(metricsUrl, makerd.exited);
      const stale = makerd.stale();
      if (stale !== undefined) throw new Error(`${stale}\nrun \`npm run build\` first`);
      await new Promise((r) => setTimeout(r, args.settle * 1000));
      const monitored = await monitorCommands(watcher, prefix, PAIR_NAMES);
      const statsBefore = await commandStats(info);
      const cpuBefore = await cpuTimes(makerd.pid);
      const callsBefore = await restCalls(callsFile);
      const t0 = process.hrtime.bigint();
      await new Promise((r) => setTimeout(r, args.seconds * 1000));
      const cpuAfter = await cpuTimes(makerd.pid);
      const calls = minusCalls(await restCalls(callsFile), callsBefore);
      const elapsed = Number(process.hrtime.bigint() - t0) / 1e9;
      const statsAfter = await commandStats(info);
      await monitored.stop();
      const stats = minus(statsAfter, statsBefore);
      stats.delete('info');
      stats.delete('monitor');
      report({ args, elapsed, cpu: cpuMinus(cpuAfter, cpuBefore), stats, monitored, calls });
      window = [Number(t0 / 1000n), Number(t0 / 1000n) + elapsed * 1e6];
    } finally {
      const code = await makerd.stop();
      if (code !== 0) console.error(`makerd exited with code ${code} (log: ${logFile})`);
    }
    if (args.profile !== undefined && window !== undefined) {
      console.log('');
      console.log(summariseProfile(args.profile, ...window).join('\n'));
    }
  } finally {
    info.disconnect();
    watcher.disconnect();
    await sim.stop();
    await redis.stop();
  }
}

function report(r: {
  args: Args;
  elapsed: number;
  cpu: CpuTimes;
  stats: CommandCounts;
  monitored: { client: CommandCounts; lua: CommandCounts; byKey: CommandCounts };
  calls: Map<string, number>;
}): void {
  const { elapsed, stats, monitored, cpu } = r;
  const ms = (s: number) => `${(s * 1000).toFixed(0)} ms`;
  const total = cpu.mainUser + cpu.mainSystem + cpu.others;
  const rows: [string, string][] = [
    ['window', `${elapsed.toFixed(1)} s`],
    ['makerd CPU', `${ms(total)} = ${((total / elapsed) * 100).toFixed(2)} % of a core`],
    ['  main thread: user, system', `${ms(cpu.mainUser)}, ${ms(cpu.mainSystem)}`],
    ['  other threads (GC, compilers, libuv)', ms(cpu.others)],
    ['Redis commands/s sent', perSec(sum(monitored.client), elapsed)],
    ['Redis commands/s with scripts’ calls', perSec(sum(stats), elapsed)],
  ];
  const width = Math.max(...rows.map(([k]) => k.length));
  console.log('');
  for (const [k, v] of rows) console.log(`${k.padEnd(width)}  ${v}`);
  console.log('');
  console.log(
    `${'command'.padEnd(24)}${'sent/s'.padStart(9)}${'in scripts/s'.padStart(14)}${'all/s'.padStart(9)}`,
  );
  const names = [...stats.keys()].sort((a, b) => (stats.get(b) ?? 0) - (stats.get(a) ?? 0));
  for (const name of names) {
    const sent = monitored.client.get(name) ?? 0;
    const lua = monitored.lua.get(name) ?? 0;
    console.log(
      `${name.padEnd(24)}${perSec(sent, elapsed).padStart(9)}${perSec(lua, elapsed).padStart(14)}` +
        `${perSec(stats.get(name) ?? 0, elapsed).padStart(9)}`,
    );
  }
  // The key's REST budget, as an operator reads it: the starter tier gives 10 points back in 30 s.
  console.log('');
  console.log(`${'REST call (signed)'.padEnd(24)}${'per 30 s'.padStart(9)}`);
  const calls = [...r.calls].filter(([, n]) => n > 0).sort((a, b) => b[1] - a[1]);
  for (const [endpoint, n] of calls) {
    console.log(`${endpoint.padEnd(24)}${((n * 30) / elapsed).toFixed(2).padStart(9)}`);
  }
  if (!r.args.keys) return;
  console.log('');
  console.log(`${'sent: command and key shape'.padEnd(60)}${'/s'.padStart(8)}`);
  const byKey = [...monitored.byKey].sort((a, b) => b[1] - a[1]);
  for (const [k, n] of byKey)
    console.log(`${k.slice(0, 59).padEnd(60)}${perSec(n, elapsed).padStart(8)}`);
}

main().catch((err: unknown) => {
  console.error(`bench:idle: ${errorMessage(err)}`);
  process.exitCode = 1;
});
