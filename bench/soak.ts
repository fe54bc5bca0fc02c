/**
 * `npm run bench:soak`: makerd's memory over a long run, set up as an operator runs it.
 *
 * Starts `makerd sim` (config/sim.yaml, background market on) and `makerd run` in processes of
 * their own, through bin/makerd.js on the compiled dist/ as the image does (refused when dist/ is
 * stale: `npm run build`), with config/paper.yaml cut or extended to N pairs and pointed at that
 * simulator, a fresh Redis prefix (deleted afterwards) and a free HTTP port. Every few seconds it
 * samples the makerd process: its resident set from /proc/<pid>/status (VmRSS) and its V8 heap
 * from its own /metrics (prom-client's nodejs_heap_size_used_bytes & co.). Prints a progress line
 * a minute, then the table: RSS min/median/p95/max, the least-squares slope of RSS after the
 * first minute (a leak shows as a steady positive slope), the largest heap used and total, and
 * the heap at the RSS peak (how much of the peak is live data).
 *
 * Flags: --pairs N (1-3, default 2), --minutes M (default 20), --every S (sampling interval,
 * default 5). Needs Redis at REDIS_URL (default redis://127.0.0.1:6379). The simulator shares the
 * machine: on two cores the figures are memory, not latency.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { deleteKeysUnder } from '../src/bus/redis-keys.js';
import { errorMessage } from '../src/core/index.js';
import { SIM_CONFIG, untilReady, writePaperConfig } from './soak/paper-config.js';
import { startMakerd, startSim } from './soak/processes.js';
import { readHeapMb, readRssMb, summarize, type Sample } from './soak/samples.js';
import { printHeader } from './support/run.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

interface Args {
  readonly pairs: number;
  readonly minutes: number;
  readonly every: number;
}

function parseArgs(argv: readonly string[]): Args {
  const args = { pairs: 2, minutes: 20, every: 5 };
  for (let i = 0; i < argv.length; i += 2) {
    const flag = argv[i]?.replace(/^--/, '');
    const value = Number(argv[i + 1]);
    if (flag === undefined || !(flag in args) || !(value > 0)) {
      throw new Error(`usage: bench:soak [--pairs 1-3] [--minutes M] [--every S] (got ${argv[i]})`);
    }
    args[flag as keyof Args] = value;
  }
  if (!Number.isInteger(args.pairs) || args.pairs > 3) throw new Error('--pairs: 1, 2 or 3');
  return args;
}

const mb = (n: number) => n.toFixed(0);

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  printHeader('soak');
  const dir = await mkdtemp(join(tmpdir(), 'makerd-soak-'));
  const prefix = `makerd-soak-${process.pid}`;
  const sim = await startSim(SIM_CONFIG);
  const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    const { file, metricsUrl } = await writePaperConfig({
      dir,
      simUrl: sim.url,
      redisUrl: REDIS_URL,
      pairs: args.pairs,
      prefix,
    });
    const logFile = join(dir, 'makerd.log');
    const makerd = startMakerd(file, logFile);
    console.log(`${args.pairs} pairs, ${args.minutes} min; simulator ${sim.url} (pid ${sim.pid});`);
    console.log(`makerd pid ${makerd.pid}, config ${file}, log ${logFile}`);
    try {
      await untilReady(metricsUrl, makerd.exited);
      const stale = makerd.stale();
      if (stale !== undefined) throw new Error(`${stale}\nrun \`npm run build\` first`);
      const samples = await sample(makerd.pid, metricsUrl, args, makerd.exited);
      report(args, samples);
    } finally {
      const code = await makerd.stop();
      if (code !== 0) console.error(`makerd exited with code ${code} (log: ${logFile})`);
    }
  } finally {
    await sim.stop();
    await redis.connect().then(() => deleteKeysUnder(redis, prefix));
    redis.disconnect();
  }
}

async function sample(
  pid: number,
  metricsUrl: string,
  args: Args,
  exited: Promise<unknown>,
): Promise<Sample[]> {
  let gone = false;
  void exited.then(() => (gone = true));
  const start = Date.now();
  const end = start + args.minutes * 60_000;
  const samples: Sample[] = [];
  let nextProgress = 60;
  while (Date.now() < end) {
    if (gone) throw new Error('makerd exited during the soak');
    const heap = await readHeapMb(metricsUrl).catch(() => ({
      heapUsed: Number.NaN,
      heapTotal: Number.NaN,
      external: Number.NaN,
    }));
    const s: Sample = { t: (Date.now() - start) / 1000, rss: await readRssMb(pid), ...heap };
    samples.push(s);
    if (s.t >= nextProgress) {
      nextProgress += 60;
      const rss = samples.map((x) => x.rss);
      console.log(
        `${(s.t / 60).toFixed(0).padStart(4)} min  RSS ${mb(s.rss)} MB ` +
          `(min ${mb(Math.min(...rss))}, max ${mb(Math.max(...rss))})  ` +
          `heap used ${mb(s.heapUsed)} of ${mb(s.heapTotal)} MB, external ${mb(s.external)} MB`,
      );
    }
    await new Promise((r) =>
      setTimeout(r, Math.min(args.every * 1000, Math.max(0, end - Date.now()))),
    );
  }
  return samples;
}

function report(args: Args, samples: readonly Sample[]): void {
  const s = summarize(samples);
  const rows: [string, string][] = [
    ['duration', `${s.minutes.toFixed(1)} min (${samples.length} samples)`],
    ['pairs', String(args.pairs)],
    [
      'RSS min / median / p95 / max',
      `${[s.rss.min, s.rss.median, s.rss.p95, s.rss.max].map(mb).join(' / ')} MB`,
    ],
    ['RSS slope after the first minute', `${s.slope.toFixed(3)} MB/min`],
    ['heap used max / heap total max', `${mb(s.heapUsedMax)} / ${mb(s.heapTotalMax)} MB`],
    [
      'at the RSS peak: heap used / total / external',
      `${mb(s.atPeak.heapUsed)} / ${mb(s.atPeak.heapTotal)} / ${mb(s.atPeak.external)} MB`,
    ],
  ];
  const width = Math.max(...rows.map(([k]) => k.length));
  console.log('');
  for (const [k, v] of rows) console.log(`${k.padEnd(width)}  ${v}`);
}

main().catch((err: unknown) => {
  console.error(`bench:soak: ${errorMessage(err)}`);
  process.exitCode = 1;
});
