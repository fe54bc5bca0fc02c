/**
 * `npm run bench:executor`: makerd's order entry against a naive baseline.
 *
 * For each tier, two contenders one after the other (never in parallel: latency is measured), each
 * on a fresh simulator in a child process of its own (as a remote exchange would be: it does not
 * share this process's event loop) with the background market on and the same seed, quoting a
 * strategy that moves every quote on every snapshot (bench/executor/chase-strategy.ts):
 *
 *   makerd — MarketFeed + Runner + IntentBus + Executor (BullMQ workers) in this process, on real
 *            Redis (a fresh prefix per run, deleted afterwards);
 *   naive  — the same feed and strategy; every second, per slot, CancelOrder then AddOrder.
 *
 * Printed per run: order-entry calls, ratecount points the simulator charged against the points
 * the tier made available (budget utilization), rate-limit and other rejections, quote distance
 * from target, tick-to-wire p50/p99 to the client call and to the order open at the engine,
 * (makerd) intent age at send, duplicate and unknown orders; then a verdict per tier.
 *
 * Flags: --seconds N (per run, default 300: the issue asks for several minutes), --tiers
 * starter,intermediate,pro (default all), --levels N (quotes per side, default 2), --contenders
 * makerd,naive (default both; makerd alone while tuning it), --pin on|off (default on: the
 * simulator on the last CPU, this process's main thread alone on the first, its other threads on
 * the rest, see support/cpu-pinning.ts). Needs Redis
 * at REDIS_URL (default redis://127.0.0.1:6379). All tiers, both contenders: about 32 minutes.
 */
import { TIERS, parseTier, type Tier } from '../src/exchange/index.js';
import { MATCHING_ENGINE } from '../src/exchange/limits/index.js';
import { runMakerd } from './executor/makerd.js';
import { NAIVE_INTERVAL_MS, runNaive } from './executor/naive.js';
import { NOTES, TARGETS, calls, stealLine, table, verdict } from './executor/report.js';
import type { RunOptions, RunResult } from './executor/result.js';
import {
  REDIS_URL,
  SIM_SEED,
  checkRedis,
  type RedisFacts,
  executorConfig,
  marketConfig,
  planFor,
  runnerConfig,
} from './executor/setup.js';
import { fmtMs } from './executor/stats.js';
import { planPinning, pinSelf, type Pinning } from './support/cpu-pinning.js';
import { readSteal, stallsOf, startStealSampler, stealShare } from './support/host-steal.js';
import { printHeader, startWatchdog } from './support/run.js';
import { errorMessage } from '../src/core/index.js';

interface Args {
  readonly seconds: number;
  readonly tiers: readonly Tier[];
  readonly levels: number;
  readonly contenders: readonly Contender[];
  readonly pin: boolean;
}

const CONTENDERS = { makerd: runMakerd, naive: runNaive } as const;
type Contender = keyof typeof CONTENDERS;

function parseContender(name: string): Contender {
  if (name === 'makerd' || name === 'naive') return name;
  throw new Error(`--contenders: unknown contender ${JSON.stringify(name)} (makerd, naive)`);
}

function parseArgs(argv: readonly string[]): Args {
  let seconds = 300;
  let tiers: readonly Tier[] = TIERS;
  let levels = 2;
  let contenders: readonly Contender[] = ['makerd', 'naive'];
  let pin = true;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    const [flag, inline] = arg.includes('=') ? arg.split('=', 2) : [arg, undefined];
    const value = (): string => {
      const v = inline ?? argv[++i];
      if (v === undefined) throw new Error(`${flag} needs a value`);
      return v;
    };
    switch (flag) {
      case '--seconds':
        seconds = positive(flag, value());
        break;
      case '--tiers':
        tiers = value()
          .split(',')
          .map((t) => t.trim())
          .filter((t) => t !== '')
          .map(parseTier);
        break;
      case '--levels':
        levels = positive(flag, value());
        break;
      case '--contenders':
        contenders = value()
          .split(',')
          .map((t) => t.trim())
          .filter((t) => t !== '')
          .map(parseContender);
        break;
      case '--pin': {
        const v = value();
        if (v !== 'on' && v !== 'off') throw new Error(`--pin must be on or off, got ${v}`);
        pin = v === 'on';
        break;
      }
      default:
        throw new Error(
          `unknown argument ${JSON.stringify(arg)}; flags: --seconds N, --tiers a,b, --levels N, --contenders a,b, --pin on|off`,
        );
    }
  }
  if (tiers.length === 0) throw new Error('--tiers: name at least one tier');
  if (contenders.length === 0) throw new Error('--contenders: name at least one contender');
  return { seconds, tiers, levels, contenders, pin };
}

function positive(flag: string | undefined, v: string): number {
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${flag} must be a positive number, got ${v}`);
  return n;
}

function describeSetup(args: Args, redis: RedisFacts, pinning: Pinning | string): void {
  console.log(
    typeof pinning === 'string'
      ? `CPUs: not pinned (${pinning})`
      : `CPUs: simulator pinned to ${pinning.sim}, this process's main thread to ${pinning.main} ` +
          `alone and its other threads (GC, compiler, libuv) to ${pinning.helpers} (taskset; a remote ` +
          `exchange does not share makerd's cores), Redis where the system puts it`,
  );
  console.log(
    `Redis ${REDIS_URL}: PING p50 ${fmtMs(redis.pingMs)} ms back to back, ${fmtMs(redis.idlePingMs)} ms after 50 ms idle`,
  );
  console.log(
    `simulator in its own process (as a remote exchange would be), background market ` +
      `seed ${SIM_SEED}; pairs XBTUSD, ETHUSD; ${args.levels} levels per side (${4 * args.levels} slots), ` +
      `${args.seconds} s per run`,
  );
  console.log(
    `feed: Depth every ${marketConfig.polls.depth.interval_ms} ms per pair (public), OpenOrders/BalanceEx as ` +
      `planned for the tier; runner: price_tolerance_bps ${runnerConfig.price_tolerance_bps}, volume_tolerance ` +
      `${runnerConfig.volume_tolerance}, min_tick_interval_ms ${runnerConfig.min_tick_interval_ms}; executor: ` +
      `defaults but max_calls_in_flight ${executorConfig.max_calls_in_flight} (headroom_points ${executorConfig.headroom_points}); ` +
      `naive: every ${NAIVE_INTERVAL_MS} ms`,
  );
  for (const tier of args.tiers) {
    const m = MATCHING_ENGINE[tier];
    const plan = planFor(tier, []);
    const every = (id: string): string =>
      `${((plan.polls.find((p) => p.id === id)?.intervalMs ?? Number.NaN) / 1000).toFixed(1)} s`;
    console.log(
      `  ${tier}: ratecount max ${m.max}, decay ${m.decayPerSec}/s per pair; REST budget for polls ` +
        `${plan.private.availablePerSec.toFixed(3)}/s → OpenOrders every ${every('openOrders')}, ` +
        `BalanceEx every ${every('balance')}`,
    );
  }
  console.log('');
}

async function main(): Promise<void> {
  let args: Args;
  try {
    args = parseArgs(process.argv.slice(2));
  } catch (err) {
    console.error(errorMessage(err));
    process.exitCode = 2;
    return;
  }
  const runs = args.tiers.length * args.contenders.length;
  const disarm = startWatchdog((runs * (args.seconds + 30) + 60) * 1000, () => undefined);
  printHeader('executor');
  let redis: RedisFacts;
  try {
    redis = await checkRedis();
  } catch (err) {
    console.error(errorMessage(err));
    disarm();
    process.exitCode = 1;
    return;
  }
  const pinning = args.pin ? planPinning() : '--pin off';
  if (typeof pinning !== 'string') pinSelf(pinning);
  describeSetup(args, redis, pinning);

  const sampler = startStealSampler(typeof pinning === 'string' ? undefined : pinning.sim);
  // makerd's main thread: the CPU whose steal stalls its way to the wire (any, when unpinned).
  const mainCpu = typeof pinning === 'string' ? undefined : Number(pinning.main);
  const results: RunResult[] = [];
  for (const tier of args.tiers) {
    const opts: RunOptions = {
      tier,
      seconds: args.seconds,
      levels: args.levels,
      simCpus: typeof pinning === 'string' ? undefined : pinning.sim,
    };
    for (const name of args.contenders) {
      const run = CONTENDERS[name];
      process.stdout.write(`running ${tier} / ${name} for ${args.seconds} s ... `);
      const before = readSteal();
      const fromMs = performance.timeOrigin + performance.now();
      const ran = await run(opts);
      const after = readSteal();
      const ended = ran.tickToWire.endedAtMs;
      const r = {
        ...ran,
        hostSteal: before && after ? stealShare(before, after) : undefined,
        hostStalls:
          ended === undefined || before === undefined
            ? undefined
            : stallsOf(
                ran.tickToWire.samples,
                ended,
                sampler.events(fromMs, performance.timeOrigin + performance.now()),
                mainCpu,
                TARGETS.p99Ms,
              ),
      };
      results.push(r);
      console.log(`${calls(r)} order-entry calls`);
    }
  }
  sampler.close();

  console.log('');
  console.log(table(results));
  console.log('');
  for (const n of NOTES) console.log(`- ${n}`);
  console.log('');
  console.log(
    `makerd against the targets (utilization ≥ ${TARGETS.utilization * 100} % with zero rate-limit ` +
      `rejections; tick-to-wire p50 ≤ ${TARGETS.p50Ms} ms and p99 ≤ ${TARGETS.p99Ms} ms; no duplicate ` +
      `or unknown order):`,
  );
  for (const r of results) if (r.contender === 'makerd') console.log(`  ${verdict(r)}`);
  console.log('');
  console.log('details:');
  for (const r of results) {
    const byEndpoint = [...r.orderEntry].map(([k, v]) => `${k} ${v}`).join(', ') || 'none';
    const rest = [...r.restCalls].map(([k, v]) => `${k} ${v}`).join(', ') || 'none';
    console.log(
      `  ${r.tier} / ${r.contender}: calls ${byEndpoint}; charged by pair ${fmtCharged(r)}`,
    );
    console.log(`    private REST calls signed (all clients of the key): ${rest}`);
    console.log(
      `    distance ${r.distance.meanPresentBps.toFixed(2)} bps over slots with an order, ` +
        `${r.distance.samples} samples; ${r.sim.openOrders} orders open at the end, ${r.sim.trades} fills`,
    );
    if (r.hostSteal !== undefined) console.log(`    ${stealLine(r.hostSteal)}`);
    for (const d of r.details) console.log(`    ${d}`);
  }
  disarm();
}

function fmtCharged(r: RunResult): string {
  return Object.entries(r.sim.chargedByPair)
    .map(([pair, v]) => `${pair} ${v.toFixed(1)}`)
    .join(', ');
}

await main();
