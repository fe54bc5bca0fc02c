/**
 * `npm run bench:queue`: how close each queue rule's estimate of our orders' places comes to the
 * exact queue, to pick market.queue.rule's default from figures (docs/backtest.md, "Fill model").
 *
 * Two markets, each on a manual clock (much faster than real time), pairs XBTUSD and ETHUSD:
 *
 * 1. The simulator's flow: its background market with config/sim.yaml's `background:` settings,
 *    our quoting bot (bench/queue/quoter.ts) resting one small order at each of the two best
 *    prices per side. The engine knows the exact queue.
 * 2. A Level3-mirrored replay: a second simulator (another seed) is the market being recorded; its
 *    Level3 answers (every 5 s) and its trades drive a replay's RecordedMarket, as `makerd backtest`
 *    replays a recording with Level3, and the same bot quotes in the replay. The replay's engine
 *    holds the mirrored queue exactly; cancels reach it at each Level3 answer.
 *
 * In both, every rule's estimator (the market feed's own QueueFeed) is fed what live trading sees
 * at config/paper.yaml's cadence: our resting orders, a Depth answer every 1.5 s per pair, the
 * trades every 10 s. At each Depth answer each resting order's estimated volume ahead is compared
 * with the exact one; at each of our orders' first fill, what the last estimate still had ahead of
 * it once the trades since are taken off (0 when the estimate saw the fill coming).
 *
 * Flags: --hours H (part 1, default 2), --replay-hours H (part 2, default 1), --seed N (default 1),
 * --trades-s S (Trades interval, default 10), --cancels-per-sec N (background cancel-and-replace
 * events per second per pair; default config/sim.yaml's).
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ManualClock, type PublicTrade, type QueuePosition } from '../src/core/index.js';
import { RecordedMarket } from '../src/lab/replay/recorded-market.js';
import { DEFAULT_QUEUE_RULE, parseQueueRule, QueueFeed } from '../src/market/index.js';
import { createSimContext, loadSimConfig, type SimContext } from '../src/sim/index.js';
import type { Account } from '../src/sim/state/accounts.js';
import { SimQueueView } from '../test/market/queue-lab.js';
import { Quoter } from './queue/quoter.js';
import { Scorer, type Score } from './queue/scorer.js';
import { printHeader } from './support/run.js';

const ROOT = join(fileURLToPath(import.meta.url), '..', '..');
const RULES = ['linear', 'power:2', 'power:3', 'log', 'risk-averse'] as const;
const PAIRS = ['XBTUSD', 'ETHUSD'] as const;
const START_MS = Date.UTC(2026, 0, 5, 9);
const TICK_MS = 100;
const DEPTH_MS = 1_500;
const LEVEL3_MS = 5_000;
/** config/default.yaml's market.stale_after_intervals. */
const STALE_AFTER_INTERVALS = 3;
/** Our orders' size: small beside the background's levels (20,000 USD each). */
const NOTIONAL_USD = 1_000;
/** Trades kept for the fill check: far longer than between two Depth answers. */
const TAPE_KEPT_MS = 60_000;
const OURS = 'bench-queue';

interface Args {
  readonly hours: number;
  readonly replayHours: number;
  readonly seed: number;
  /** The Trades poll's interval. */
  readonly tradesS: number;
  /** The background makers' cancel-and-replace events per second per pair; undefined: sim.yaml's. */
  readonly cancelsPerSec: number | undefined;
}

function parseArgs(argv: readonly string[]): Args {
  const args: { -readonly [K in keyof Args]: Args[K] } = {
    hours: 2,
    replayHours: 1,
    seed: 1,
    tradesS: 10,
    cancelsPerSec: undefined,
  };
  const names: Record<string, keyof Args> = {
    '--hours': 'hours',
    '--replay-hours': 'replayHours',
    '--seed': 'seed',
    '--trades-s': 'tradesS',
    '--cancels-per-sec': 'cancelsPerSec',
  };
  for (let i = 0; i < argv.length; i += 2) {
    const name = names[argv[i] ?? ''];
    const value = Number(argv[i + 1]);
    if (name === undefined || !Number.isFinite(value) || value < 0) {
      throw new Error(
        'usage: bench:queue [--hours H] [--replay-hours H] [--seed N] [--trades-s S] ' +
          `[--cancels-per-sec N] (got ${argv[i]})`,
      );
    }
    args[name] = value;
  }
  return args;
}

/** One pair of a market as our bot sees it, with what the run keeps about it. */
interface PairRun {
  readonly view: SimQueueView;
  readonly quoter: Quoter;
  /** Per rule, the estimator as the market feed runs it. */
  readonly feeds: Map<string, QueueFeed>;
  /** Trades since the last Trades poll, and the last minute of them for the fill check. */
  unpolled: PublicTrade[];
  tape: PublicTrade[];
}

interface Market {
  readonly ctx: SimContext;
  readonly runTicks: (nowMs: number) => void;
  /** Runs before the market's own ticks (part 2: the recorded market's events). */
  readonly before?: (nowMs: number) => void;
}

function fundedAccount(ctx: SimContext): Account {
  return ctx.accounts.upsert(
    {
      key: OURS,
      secret: Buffer.from(OURS).toString('base64'),
      tier: 'pro',
      balances: { ZUSD: '1000000000', XXBT: '100000', XETH: '1000000' },
    },
    ctx.clock.now(),
  );
}

/** The engine's exact places, as an estimate that cannot be wrong (the reference row). */
function exactPlaces(view: SimQueueView, nowMs: number): QueuePosition[] {
  return view.ourOrders().flatMap((o) => {
    const truth = view.exact(o.txid);
    if (truth === undefined) return [];
    const place: QueuePosition = {
      txid: o.txid,
      side: o.side,
      price: o.price,
      ahead: truth.ahead,
      behind: truth.behind,
      source: 'level3',
      rule: 'exact',
      asOfMs: nowMs,
    };
    return [place];
  });
}

async function session(
  clock: ManualClock,
  market: Market,
  durationMs: number,
  tradesMs: number,
): Promise<Map<string, Score>> {
  const ours = fundedAccount(market.ctx);
  const scorers = new Map<string, Scorer>(['exact', ...RULES].map((name) => [name, new Scorer()]));
  const runs: PairRun[] = PAIRS.map((name) => {
    const view = new SimQueueView(market.ctx, market.ctx.markets.requirePair(name), ours);
    const feeds = new Map(
      RULES.map((rule) => [
        rule,
        new QueueFeed(parseQueueRule(rule, 'rule'), tradesMs, STALE_AFTER_INTERVALS, () =>
          view.ourOrders(),
        ),
      ]),
    );
    return { view, quoter: new Quoter(view, NOTIONAL_USD), feeds, unpolled: [], tape: [] };
  });
  const filled = new Set<string>();
  let seenFills = 0;
  const endMs = clock.now() + durationMs;
  for (let step = 0; clock.now() < endMs; step++) {
    await clock.advance(TICK_MS);
    const now = clock.now();
    market.before?.(now);
    market.runTicks(now);
    for (const run of runs) {
      const fresh = run.view.newTrades();
      run.unpolled.push(...fresh);
      run.tape.push(...fresh);
      run.tape = run.tape.filter((t) => t.timeMs > now - TAPE_KEPT_MS);
    }
    // Our first fills: did the last estimate see them coming?
    const trades = market.ctx.engine.trades(ours);
    for (const t of trades.slice(seenFills)) {
      if (filled.has(t.ordertxid)) continue;
      filled.add(t.ordertxid);
      const run = runs.find((r) => r.view.pair.id === t.pair.id);
      if (run === undefined) continue;
      for (const scorer of scorers.values()) scorer.filled(t.ordertxid, t.timeMs, run.tape);
    }
    seenFills = trades.length;
    for (const [i, run] of runs.entries()) {
      const label = run.view.pair.altname;
      // The pairs' polls are spread out, as the planner spreads them.
      const sinceDepth = (step * TICK_MS + i * 700) % DEPTH_MS;
      if (sinceDepth === 0) {
        const depth = run.view.depth();
        for (const [rule, feed] of run.feeds) {
          feed.depth(depth, now);
          scorers.get(rule)?.sample(run.view, label, feed.positions(now), now);
        }
        scorers.get('exact')?.sample(run.view, label, exactPlaces(run.view, now), now);
      } else if (sinceDepth === TICK_MS) {
        // The bot answers the Depth answer before: orders join a moment after it.
        run.quoter.act();
      }
      if ((step * TICK_MS + i * 3_300) % tradesMs === 0) {
        for (const feed of run.feeds.values()) feed.trades(run.unpolled, now, now);
        run.unpolled = [];
      }
    }
  }
  return new Map([...scorers].map(([name, s]) => [name, s.score]));
}

/** Part 2: a source simulator's Level3 answers and trades mirrored into a replay's engine. */
function mirrored(clock: ManualClock, background: Record<string, unknown>): Market {
  const source = createSimContext({ clock, idSeed: 100, config: { background } });
  const replay = createSimContext({ clock, idSeed: 1, config: { background: { enabled: false } } });
  // Only Level3 answers and trades reach it: the rule for Depth answers is never used.
  const recorded = new RecordedMarket(replay.ctx, DEFAULT_QUEUE_RULE);
  const lastTrade = new Map<string, number>();
  let nextLevel3Ms = clock.now();
  return {
    ctx: replay.ctx,
    runTicks: replay.runTicks,
    before: (nowMs) => {
      source.runTicks(nowMs);
      for (const name of PAIRS) {
        const from = source.ctx.markets.requirePair(name);
        const to = replay.ctx.markets.requirePair(name);
        const last = lastTrade.get(name) ?? -1;
        for (const t of source.ctx.history.trades(from)) {
          if (t.tradeId <= last) continue;
          recorded.applyTrade(to, { price: t.price, volume: t.volume, side: t.side });
          lastTrade.set(name, t.tradeId);
        }
      }
      if (nowMs < nextLevel3Ms) return;
      nextLevel3Ms += LEVEL3_MS;
      for (const name of PAIRS) {
        const book = source.ctx.engine.book(source.ctx.markets.requirePair(name));
        const orders = (side: typeof book.bids) =>
          side.map((e) => ({ id: e.txid, price: e.price, volume: e.qty }));
        recorded.applyLevel3(
          replay.ctx.markets.requirePair(name),
          orders(book.bids),
          orders(book.asks),
        );
      }
    },
  };
}

function fmt(value: number, digits: number): string {
  return Number.isFinite(value) ? value.toFixed(digits) : '-';
}

function printTable(title: string, scores: Map<string, Score>): void {
  console.log(`\n${title}`);
  const head = [
    'rule',
    'places',
    'unknown',
    ...PAIRS.map((p) => `MAE ahead ${p}`),
    '|err|/level',
    'bias/level',
    'fills',
    'not seen coming',
    'ahead at fill/level',
  ];
  const rows = [...scores].map(([name, s]) => [
    name,
    String(s.samples),
    `${fmt((100 * s.unknown) / s.samples, 1)} %`,
    ...PAIRS.map((p) => fmt((s.absError.get(p) ?? 0) / (s.perPair.get(p) ?? NaN), 5)),
    `${fmt((100 * s.absShare) / s.shared, 1)} %`,
    `${fmt((100 * s.signedShare) / s.shared, 1)} %`,
    String(s.fills),
    `${fmt((100 * s.unseen) / s.fills, 1)} %`,
    `${fmt((100 * s.aheadAtFillShare) / s.fills, 1)} %`,
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  console.log(line(head));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const r of rows) console.log(line(r));
}

const args = parseArgs(process.argv.slice(2));
printHeader('queue');
const base = loadSimConfig(join(ROOT, 'config/sim.yaml'));
/** config/sim.yaml's background flow, with the seed and the cancel rate given. */
const background = (seed: number): Record<string, unknown> => ({
  ...base.background,
  seed,
  makers: {
    ...base.background.makers,
    cancels_per_sec: args.cancelsPerSec ?? base.background.makers.cancels_per_sec,
  },
});
const tradesMs = args.tradesS * 1000;
const cadence =
  `Depth every ${DEPTH_MS / 1000} s, Trades every ${args.tradesS} s, ` +
  `${base.background.makers.cancels_per_sec} background cancels/s per pair` +
  (args.cancelsPerSec === undefined ? '' : ` -> ${args.cancelsPerSec}`);

let started = performance.now();
const clock1 = new ManualClock(START_MS);
const flow = createSimContext({
  clock: clock1,
  idSeed: args.seed,
  config: { background: background(args.seed) },
});
const part1 = await session(clock1, flow, args.hours * 3_600_000, tradesMs);
printTable(
  `1. The simulator's flow: ${args.hours} h of ${PAIRS.join(' and ')}, seed ${args.seed}, ${cadence} ` +
    `(${((performance.now() - started) / 1000).toFixed(0)} s wall)`,
  part1,
);

started = performance.now();
const clock2 = new ManualClock(START_MS);
const replayed = mirrored(clock2, background(args.seed + 100));
const part2 = await session(clock2, replayed, args.replayHours * 3_600_000, tradesMs);
printTable(
  `2. Level3-mirrored replay (Level3 every ${LEVEL3_MS / 1000} s): ${args.replayHours} h, ` +
    `source seed ${args.seed + 100} (${((performance.now() - started) / 1000).toFixed(0)} s wall)`,
  part2,
);
console.log(
  '\nMAE ahead: mean |estimated - exact| volume ahead of our order (base units) at each Depth answer; ' +
    '|err|/level, bias/level: the error over the level’s other volume; not seen coming: our first ' +
    'fills for which the last estimate less the volume traded at our price since was still above 0.',
);
