/**
 * `npm run bench:flow`: what the simulator's background flow does to the makers that meet it.
 *
 * Markout of a fill at time t, side s, price p: sign(s) * (mid(t+h) - p) / p in bps at h = 1, 10
 * and 60 s (buy +1, sell -1; negative = adverse), the mid from the simulator engine's top of book
 * sampled at every tick. Two parts, each printed as a table with one column per model:
 *
 * 1. Background only, on a manual clock (runs much faster than real time): the background
 *    makers' passive fills over --sim-minutes (default 30) of simulated time, their markouts,
 *    the spread, and the same per volatility regime; for the old model (informed share 0, one
 *    regime, uniform sizes, no requotes), the new model with informed share 0, and the defaults.
 * 2. makerd itself, in real time: config/paper.yaml with the `spread` strategy of its XBTUSD
 *    entry on both pairs (ETHUSD at order_size 0.2), `makerd run` as a process (bin/makerd.js,
 *    the compiled dist/: `npm run build` first) against an in-process simulator, for
 *    --minutes (default 5); the old model and the defaults side by side, run at the same time.
 *    Our fills come from the simulator's engine, markouts as above, plus the paper account's
 *    balances and funds refusals at the end.
 *
 * Flags: --minutes M, --sim-minutes S, --seed N (background seed, default 1), --skip-makerd, and
 * --as-is to run config/paper.yaml unchanged (its ETHUSD pair is then avellaneda-stoikov).
 * Needs Redis at REDIS_URL (default redis://127.0.0.1:6379) for part 2.
 */
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { parse, stringify } from 'yaml';
import { deleteKeysUnder } from '../src/bus/redis-keys.js';
import { freePort } from '../src/core/free-port.js';
import { ManualClock, errorMessage } from '../src/core/index.js';
import {
  createSimContext,
  loadSimConfig,
  startSimulator,
  type SimContext,
  type Simulator,
} from '../src/sim/index.js';
import { markoutRow, type Fill, type MarkoutRow, type MidSeries } from './flow/markouts.js';
import { MODELS, type Model } from './flow/models.js';
import { FlowObserver, toFill } from './flow/observer.js';
import { markoutRows, printTable, type Rows } from './flow/table.js';
import { ROOT, startMakerd } from './soak/processes.js';
import { printHeader } from './support/run.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const SIM_CONFIG = join(ROOT, 'config/sim.yaml');
const PAPER_KEY = 'paper-key';
const TICK_MS = 100;
const REGIMES = ['calm', 'volatile'] as const;
const END_ASSETS = ['ZUSD', 'XXBT', 'XETH'];

interface Args {
  readonly minutes: number;
  readonly simMinutes: number;
  readonly seed: number;
  readonly skipMakerd: boolean;
  readonly asIs: boolean;
}

function parseArgs(argv: readonly string[]): Args {
  const args = { minutes: 5, simMinutes: 30, seed: 1, skipMakerd: false, asIs: false };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    if (flag === '--skip-makerd' || flag === '--as-is') {
      args[flag === '--as-is' ? 'asIs' : 'skipMakerd'] = true;
      continue;
    }
    const value = Number(argv[++i]);
    const name = { '--minutes': 'minutes', '--sim-minutes': 'simMinutes', '--seed': 'seed' }[
      flag ?? ''
    ] as 'minutes' | 'simMinutes' | 'seed' | undefined;
    if (name === undefined || !Number.isFinite(value) || value < 0) {
      throw new Error(
        `usage: bench:flow [--minutes M] [--sim-minutes S] [--seed N] [--skip-makerd] [--as-is] (got ${flag})`,
      );
    }
    args[name] = value;
  }
  return args;
}

interface Outcome {
  readonly observer: FlowObserver;
  readonly ours: readonly Fill[];
}

interface MakerdOutcome extends Outcome {
  /** Balances of END_ASSETS, then the order refusals. */
  readonly end: readonly string[];
}

/** Part 1: the background alone on a manual clock. */
async function backgroundOnly(model: Model, args: Args): Promise<Outcome> {
  const clock = new ManualClock(Date.parse('2026-01-01T00:00:00Z'));
  const { ctx, runTicks } = createSimContext({
    clock,
    config: { background: { ...model.background, enabled: true, seed: args.seed } },
    idSeed: 1,
  });
  const observer = new FlowObserver(ctx);
  runTicks(clock.now());
  const end = clock.now() + args.simMinutes * 60_000;
  while (clock.now() < end) {
    await clock.advance(TICK_MS);
    runTicks(clock.now());
    observer.sample(clock.now());
  }
  return { observer, ours: [] };
}

function regimeOf(series: ReadonlyMap<string, MidSeries>, fill: Fill): string | undefined {
  return series.get(fill.pair)?.at(fill.timeMs)?.regime;
}

function spreadBps(observer: FlowObserver, regime?: string): string {
  const all = [...observer.series.values()].flatMap((s) =>
    s.samples.filter((x) => regime === undefined || x.regime === regime),
  );
  if (all.length === 0) return '-';
  return (all.reduce((a, x) => a + x.spreadBps, 0) / all.length).toFixed(2);
}

function shareIn(observer: FlowObserver, regime: string): string {
  const all = [...observer.series.values()].flatMap((s) => s.samples);
  const n = all.filter((x) => x.regime === regime).length;
  return all.length === 0 ? '-' : `${((100 * n) / all.length).toFixed(0)} %`;
}

function flowRows(
  label: string,
  outcomes: readonly Outcome[],
  pick: (o: Outcome) => readonly Fill[],
): Rows {
  const row = (o: Outcome, regime?: string): MarkoutRow => {
    const fills = pick(o).filter(
      (f) => regime === undefined || regimeOf(o.observer.series, f) === regime,
    );
    return markoutRow(fills, o.observer.series);
  };
  return [
    ...markoutRows(
      label,
      outcomes.map((o) => row(o)),
    ),
    ...REGIMES.flatMap((r) =>
      markoutRows(
        `  ${r}: ${label}`,
        outcomes.map((o) => row(o, r)),
      ),
    ),
  ];
}

function marketRows(outcomes: readonly Outcome[]): Rows {
  return [
    ['spread, bps (time average, all pairs)', outcomes.map((o) => spreadBps(o.observer))],
    ...REGIMES.map((r): [string, string[]] => [
      `  ${r}: spread, bps`,
      outcomes.map((o) => spreadBps(o.observer, r)),
    ]),
    ...REGIMES.map((r): [string, string[]] => [
      `  time in ${r}`,
      outcomes.map((o) => shareIn(o.observer, r)),
    ]),
  ];
}

/** Part 2: `makerd run` against an in-process simulator, real time. */
async function withMakerd(model: Model, args: Args, dir: string): Promise<MakerdOutcome> {
  const base = loadSimConfig(SIM_CONFIG);
  const sim: Simulator = await startSimulator({
    config: {
      ...base,
      background: { ...merged(base.background, model.background), seed: args.seed },
    },
    port: 0,
  });
  const observer = new FlowObserver(sim.ctx);
  sim.ctx.onTick((nowMs) => observer.sample(nowMs));
  const prefix = `makerd-flow-${process.pid}-${model.name.replace(/\W+/g, '-')}`;
  const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
  const file = await writeConfig(dir, sim.url, prefix, model.name, args.asIs);
  const logFile = file.replace(/\.yaml$/, '.log');
  const makerd = startMakerd(file, logFile);
  try {
    let gone = false;
    void makerd.exited.then(() => (gone = true));
    const endMs = Date.now() + args.minutes * 60_000;
    while (Date.now() < endMs && !gone) await new Promise((r) => setTimeout(r, 1000));
    if (gone) throw new Error(`makerd (${model.name}) exited early; log ${logFile}`);
    const stale = makerd.stale();
    if (stale !== undefined) throw new Error(`${stale}\nrun \`npm run build\` first`);
  } finally {
    await makerd.stop();
    await sim.close();
    await redis.connect().then(() => deleteKeysUnder(redis, prefix));
    redis.disconnect();
  }
  return { observer, ours: ours(sim.ctx), end: endState(sim) };
}

/** `over` on top of `base`, one level deep: a model that sets `informed.share` keeps the rest. */
function merged(base: object, over: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const under = out[key];
    out[key] =
      typeof value === 'object' && typeof under === 'object' ? { ...under, ...value } : value;
  }
  return out;
}

function ours(ctx: SimContext): Fill[] {
  const account = ctx.accounts.get(PAPER_KEY);
  return account === undefined ? [] : ctx.engine.trades(account).map(toFill);
}

/** The paper account's balances and the simulator's refusals of its orders, a cell each. */
function endState(sim: Simulator): string[] {
  const account = sim.ctx.accounts.get(PAPER_KEY);
  const balance = (a: string) => account?.wallet.balance(a).toDecimalPlaces(4).toFixed() ?? '-';
  const refusals = [...sim.server.rejections].filter(([e]) => e.startsWith('EOrder:'));
  return [
    ...END_ASSETS.map(balance),
    refusals.length === 0 ? 'none' : refusals.map(([e, n]) => `${e} ${n}`).join(', '),
  ];
}

/**
 * config/paper.yaml against `simUrl`; unless `asIs`, with the spread strategy of its XBTUSD entry
 * on both pairs.
 */
async function writeConfig(
  dir: string,
  simUrl: string,
  prefix: string,
  name: string,
  asIs: boolean,
): Promise<string> {
  const config = parse(await readFile(join(ROOT, 'config/paper.yaml'), 'utf8')) as {
    exchange: { url: string; credentials: { sim_config: string } };
    redis: { url: string; prefix: string };
    pairs: { pair: string; strategy: { name: string; options: Record<string, unknown> } }[];
    http?: unknown;
  };
  config.exchange.url = simUrl;
  config.exchange.credentials.sim_config = SIM_CONFIG;
  config.redis = { url: REDIS_URL, prefix };
  const spread = config.pairs.find((p) => p.strategy.name === 'spread');
  if (spread === undefined) throw new Error('config/paper.yaml has no spread pair');
  if (!asIs) {
    config.pairs = [
      spread,
      {
        pair: 'ETHUSD',
        strategy: { name: 'spread', options: { ...spread.strategy.options, order_size: '0.2' } },
      },
    ];
  }
  config.http = { host: '127.0.0.1', port: await freePort() };
  const file = join(dir, `${name.replace(/\W+/g, '-')}.yaml`);
  await writeFile(file, stringify(config));
  return file;
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  printHeader('flow');
  const t0 = Date.now();
  const alone = [];
  for (const model of MODELS) alone.push(await backgroundOnly(model, args));
  const wallS = (Date.now() - t0) / 1000;
  printTable(
    `background only, ${args.simMinutes} simulated min a model (${wallS.toFixed(0)} s wall), seed ${args.seed}`,
    MODELS.map((m) => m.name),
    [...flowRows('background makers', alone, (o) => o.observer.makerFills), ...marketRows(alone)],
  );
  if (args.skipMakerd) return;

  const models = MODELS.filter((m) => m.name !== 'new, share 0');
  const dir = await mkdtemp(join(tmpdir(), 'makerd-flow-'));
  console.log(
    `\nmakerd run for ${args.minutes} min against each model at once (configs and logs in ${dir})`,
  );
  const runs = await Promise.all(models.map((m) => withMakerd(m, args, dir)));
  const pairs = [...new Set(runs.flatMap((r) => r.ours.map((f) => f.pair)))].sort();
  const perPair = pairs.flatMap((pair) =>
    markoutRows(
      `  ${pair}: our`,
      runs.map((o) =>
        markoutRow(
          o.ours.filter((f) => f.pair === pair),
          o.observer.series,
        ),
      ),
    ),
  );
  const endLabels = [...END_ASSETS.map((a) => `paper ${a} at the end`), 'order refusals'];
  printTable(
    `makerd (${args.asIs ? 'config/paper.yaml as is' : 'spread on both pairs'}), ${args.minutes} min real time, seed ${args.seed}`,
    models.map((m) => m.name),
    [
      ...flowRows('our', runs, (o) => o.ours),
      ...perPair,
      ...flowRows('background makers', runs, (o) => o.observer.makerFills),
      ...marketRows(runs),
      ...endLabels.map((label, i): [string, string[]] => [label, runs.map((r) => r.end[i] ?? '-')]),
    ],
  );
}

main().catch((err: unknown) => {
  console.error(`bench:flow: ${errorMessage(err)}`);
  process.exitCode = 1;
});
