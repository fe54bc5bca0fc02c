import { randomBytes, randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { Registry } from 'prom-client';
import { deleteKeysUnder } from '../bus/index.js';
import { InvalidInputError, type Clock, type PairInfo } from '../core/index.js';
import {
  InProcessNonceSource,
  MATCHING_ENGINE,
  SpotClient,
  type CredentialsInput,
} from '../exchange/index.js';
import { pairReport, ReportFills } from './backtest-report.js';
import type { LedgerTrade } from './fidelity.js';
import type { RecordedRow } from '../recording/format.js';
import type { DataProblem, PairReport } from './report/index.js';
import {
  CountingRedis,
  DEFAULT_LATENCY_MS,
  ReplayBus,
  ReplayClock,
  ReplayDriver,
  QueueCheck,
  storeTrips,
  type InFlight,
  RecordedEvents,
  createReplayVenue,
  scanRecording,
  type DriverProgress,
  type EventCounts,
  type RecordedMarketStats,
  type ReplayAccount,
  type ReplayFees,
  type ReplayVenue,
  OrderEntryCounts,
  type StrategyTickCount,
} from './replay/index.js';
import { BacktestWatch, type WatchedRun } from './backtest-watch.js';
import { loadPairs, parseQueueRule } from '../market/index.js';
import type { Logger } from '../obs/index.js';
import type { FillRecord } from '../pnl/index.js';
import { DEFAULT_PAIRS } from '../sim/defaults.js';
import { loadSimConfig } from '../sim/config.js';
import type { Account } from '../sim/state/accounts.js';
import type { BotSettings } from '../daemon/bot-config.js';
import { resolveCredentials } from '../daemon/credentials.js';
import { packageFile } from '../daemon/package-file.js';
import { startExecutorRole, type ExecutorRole } from '../daemon/executor-role.js';
import type { RoleBase } from '../daemon/role-base.js';
import { startRunnerRole, type RunnerRole } from '../daemon/runner-role.js';
import { memoryStores, redisStores, sharedStores, type Stores } from '../daemon/stores.js';

/** The report's chart resolution at first (PairPnl halves it as the run grows long). */
const SERIES_EVERY_MS = 1_000;
/**
 * Rows are read this far ahead of the clock: the trades of a Trades answer reach back as far as
 * the recording feed lagged behind the tape, at most its lag limit (stale_after_intervals Trades
 * intervals; further behind, it jumps to the newest trades). 60 s covers Trades intervals up to
 * 20 s at the default 3; a trade from further back is applied late (when its answer is read),
 * never lost.
 */
const LOOKAHEAD_MS = 60_000;

export interface BacktestOptions {
  readonly settings: BotSettings;
  readonly configDir: string;
  /** The recording, from its start, each time it is called (a scan, then the replay). */
  readonly rows: () => AsyncIterable<RecordedRow>;
  readonly fromMs?: number;
  readonly toMs?: number;
  /** Each call's round trip; default the recording's median (DEFAULT_LATENCY_MS if untimed). */
  readonly latencyMs?: number;
  /** Fees instead of the recording's ladders, or the key's 30-day volume on them. */
  readonly fees?: ReplayFees;
  /** Stops the replay early; the run then cleans up and rejects with the signal's reason. */
  readonly signal?: AbortSignal;
  readonly log: Logger;
  readonly strategiesDir: string;
  readonly onProgress?: (progress: DriverProgress) => void;
  /**
   * Told each fill (pair altname) once its markouts are known, and at the end those still
   * pending: the command writes them to fills.jsonl. The run itself keeps only a sample.
   */
  readonly onFill?: (pair: string, fill: FillRecord) => void;
  /**
   * Where the bot's shared state lives: in memory (default), or in Redis under a fresh prefix as
   * live (`redis.url`), to check that both give the same run.
   */
  readonly stores?: StoreKind;
  /** Told the replay's clock once it exists (the command's log lines take their time from it). */
  readonly onClock?: (clock: Clock) => void;
  /** Told each data problem only the replay sees (refused levels, data ending early). */
  readonly onDataProblem?: (problem: DataProblem) => void;
}

export type StoreKind = 'memory' | 'redis';

/** One pair's figures for the summary table; the rest is in `reports`. */
export interface PairResult {
  readonly pair: string;
  /** Fills as the bot learnt of them (an order's executions between two looks are one). */
  readonly fills: number;
  /** Base volume traded. */
  readonly volume: string;
  /** Quote volume traded. */
  readonly notional: string;
  /** PairPnl's split (quote currency): total = spread + inventory − fees. */
  readonly pnl: {
    readonly spread: string;
    readonly inventory: string;
    readonly fees: string;
    readonly total: string;
  };
  /** The highest ratecount level the exchange counted. */
  readonly ratecountMax: number;
  /** Order-entry refusals by the exchange's error string. */
  readonly refusals: Readonly<Record<string, number>>;
  /** The last mid the bot saw (what PnL is marked at). */
  readonly mark: string | undefined;
  /** Base held at the end, as PnL counted it (the fresh run's tracker starts at 0). */
  readonly position: string;
  /** Our executions as the replay's exchange booked them (for the fidelity comparison). */
  readonly ledger: readonly LedgerTrade[];
}

export type LatencySource = 'option' | 'recording' | 'default';

/** Where the latency came from, in words (the report and the summary). */
export const LATENCY_FROM: Readonly<Record<LatencySource, string>> = {
  option: '--latency-ms',
  recording: "the recording's median round trip",
  default: 'default: the recording timed no call',
};

/** What the replayed exchange charged a pair at the start (percent), from its ladders. */
export interface StartFees {
  readonly pair: string;
  readonly makerPct: string;
  readonly takerPct: string;
  /** The key's 30-day volume the ladders were read at (USD). */
  readonly volumeUsd: string;
}

export interface BacktestResult {
  readonly startMs: number;
  readonly endMs: number;
  readonly wallMs: number;
  readonly events: number;
  readonly latencyMs: number;
  /** Where the latency came from: --latency-ms, the recording's round trips, or the default. */
  readonly latencyFrom: LatencySource;
  readonly fees: readonly StartFees[];
  /** market.queue.rule: the fill model's (and the live estimator's) queue rule. */
  readonly queueRule: string;
  readonly pairs: readonly PairResult[];
  /** Each pair's report part: PnL split, series, a sample of fills, markouts (src/lab/report). */
  readonly reports: readonly PairReport[];
  /** The strategies traded, for the report's title. */
  readonly strategy: string;
  readonly market: RecordedMarketStats;
  readonly rows: EventCounts;
  readonly calls: Readonly<Record<string, number>>;
  readonly stepErrors: number;
  /** Where the bot's state lived. */
  readonly stores: StoreKind;
  /** Redis commands the bot sent (each a round trip the replay waits for); 0 in memory. */
  readonly redisCommands: number;
  /** Halts, order-entry counts, strategy errors and the replay's own data problems. */
  readonly watched: WatchedRun;
}

/**
 * `makerd backtest`'s run: the recording drives the simulator's engine on a replay clock, and the
 * bot of the config file (the runner and executor roles as `makerd run` builds them, on the
 * replay's clock, client and stores) trades against it. The stores are in memory; with
 * `stores: 'redis'` they are the live ones under a fresh prefix, deleted at the end.
 */
export async function runBacktest(o: BacktestOptions): Promise<BacktestResult> {
  const wallStart = performance.now();
  const scan = await scanRecording(o.rows(), o.fromMs, o.toMs);
  const pairNames = o.settings.pairs.map((p, i) => recordedName(p.pair, i, scan.pairs));
  const latencyMs = o.latencyMs ?? scan.roundTripMs ?? DEFAULT_LATENCY_MS;
  const latencyFrom: LatencySource =
    o.latencyMs !== undefined ? 'option' : scan.roundTripMs !== undefined ? 'recording' : 'default';
  const clock = new ReplayClock(scan.firstMs);
  o.onClock?.(clock);
  const { credentials, account } = replayAccount(o.settings, o.configDir);
  const venue = createReplayVenue({
    scan,
    pairs: pairNames,
    account,
    clock,
    latencyMs,
    queueRule: parseQueueRule(o.settings.market.queue.rule, 'market.queue.rule'),
    ...(o.fees === undefined ? {} : { fees: o.fees }),
  });
  const prefix = `${o.settings.redis.prefix}:backtest:${randomUUID().slice(0, 8)}`;
  const settings: BotSettings = { ...o.settings, redis: { ...o.settings.redis, prefix } };
  const storeKind = o.stores ?? 'memory';
  const redis = storeKind === 'redis' ? await connectRedis(settings.redis.url) : undefined;
  // The work the driver waits for before time moves: Redis commands, or the memory stores' calls.
  const inFlight: InFlight = redis?.inFlight ?? { count: 0, sent: 0 };
  const client = new SpotClient({
    baseUrl: 'http://backtest.invalid',
    credentials,
    tier: settings.exchange.tier,
    restHeadroom: settings.exchange.rest_headroom,
    nonceSource: new InProcessNonceSource({ clock }),
    nonceWindow: settings.exchange.nonce_window,
    clock,
    transport: venue.transport,
  });
  const stores: Stores =
    redis === undefined
      ? memoryStores(prefix, settings.exchange.tier, clock, storeTrips(inFlight))
      : redisStores({
          redis,
          prefix,
          // Under the run's prefix: the key's live model (makerd:ratecount:...) is not the replay's.
          ratecountKey: `${prefix}:ratecount`,
          tier: settings.exchange.tier,
          clock,
          bus: new ReplayBus({ connection: redis, prefix, clock }),
          // Polled on the replay's clock only: its flag changes are its own.
          subscribe: false,
        });
  const registry = new Registry();
  const events = new RecordedEvents({
    rows: o.rows(),
    markets: venue.ctx.markets,
    market: venue.market,
    startMs: scan.firstMs,
    endMs: scan.lastMs,
    lookaheadMs: LOOKAHEAD_MS,
  });
  const simAccount = venue.ctx.accounts.get(account.key) as Account;
  const simPairs = pairNames.map((n) => venue.ctx.markets.requirePair(n));
  const queueChecks = new Map(simPairs.map((p) => [p.id, new QueueCheck(account.key)]));
  const startVolume = venue.ctx.engine.volumeUsd(simAccount);
  const fees = simPairs.map((p) => ({
    pair: p.altname,
    makerPct: venue.ctx.markets.feePercent(p, startVolume, true).toFixed(),
    takerPct: venue.ctx.markets.feePercent(p, startVolume, false).toFixed(),
    volumeUsd: startVolume.toFixed(),
  }));
  const ratecountMax = new Map<string, number>();
  const watch = new BacktestWatch({
    pairs: simPairs,
    scan,
    market: venue.market,
    halts: {
      flags: stores.flags,
      client,
      clock,
      sweepMs: settings.supervisor.halt_sweep_ms,
      log: o.log.child({ component: 'supervisor' }),
    },
    orders: orderEntryCounts(venue),
    clock,
    log: o.log,
    ...(o.onDataProblem === undefined ? {} : { onProblem: o.onDataProblem }),
  });
  const driver = new ReplayDriver({
    clock,
    events,
    redis: inFlight,
    startMs: scan.firstMs,
    endMs: scan.lastMs,
    simTick: venue.runTicks,
    ...(o.signal === undefined ? {} : { signal: o.signal }),
    onStep: (progress) => {
      watch.step(progress.nowMs);
      for (const pair of simPairs) {
        const level = venue.ctx.limits.ratecount(simAccount, pair).level(progress.nowMs);
        if (level > (ratecountMax.get(pair.altname) ?? 0)) ratecountMax.set(pair.altname, level);
      }
      o.onProgress?.(progress);
    },
  });

  const fills = new Map(simPairs.map((p) => [p.id, new ReportFills()]));
  const onFill = (pairId: string, fill: FillRecord): void => {
    fills.get(pairId)?.add(fill);
    const altname = simPairs.find((p) => p.id === pairId)?.altname ?? pairId;
    o.onFill?.(altname, fill);
  };
  let executor: ExecutorRole | undefined;
  let runner: RunnerRole | undefined;
  const startBot = async (): Promise<void> => {
    await stores.flags.watch(1_000, clock);
    const pairs: PairInfo[] = await loadPairs(client, pairNames);
    const base: RoleBase = {
      ...sharedStores(stores),
      clock,
      redis: undefined,
      client,
      apiKey: credentials.apiKey,
      pairs,
      own: () => undefined,
      close: () => Promise.resolve(),
    };
    const parts = { settings, log: o.log, registry, base };
    executor = await startExecutorRole({ ...parts, owner: 'backtest', beaconDir: false });
    const started = await startRunnerRole({
      ...parts,
      strategiesDir: o.strategiesDir,
      clock,
      replayPnl: {
        seriesEveryMs: SERIES_EVERY_MS,
        onFillSettled: onFill,
      },
    });
    started.runner.onTick((report) => watch.tick(report));
    started.runner.onTick((report) => {
      const simPair = simPairs.find((p) => p.id === report.pair);
      if (simPair === undefined) return;
      queueChecks
        .get(simPair.id)
        ?.observe(report.snapshot.queue, () => venue.ctx.engine.book(simPair));
    });
    runner = started;
  };
  try {
    venue.transport.latencyMs = 0;
    await startBot();
    venue.transport.latencyMs = latencyMs;
    await driver.run();
    await driver.drain(
      (async () => {
        // Quoting stops first, so the last sync finds every fill there will be.
        await runner?.runner.stop();
        await watch.settled();
        await executor?.executor.finalSync();
        await runner?.checkFills();
        await runner?.stop();
        await executor?.stop();
        await stores.flags.unwatch();
      })(),
    );
  } finally {
    await stores.close();
    if (redis !== undefined) {
      await deleteKeysUnder(redis, prefix);
      redis.disconnect();
    }
  }
  o.signal?.throwIfAborted();

  const role = runner as RunnerRole;
  const watched = watch.result();
  const marks: (string | undefined)[] = [];
  const positions: string[] = [];
  const reports = simPairs.map((simPair) => {
    const pair = pairInfoOf(role, simPair.id);
    const pnl = role.pnl.pairPnl(simPair.id);
    if (pnl === undefined) throw new Error(`no PnL for ${simPair.altname}`);
    // Fills whose 60 s markout was still pending at the end go in with what is known; they are
    // the newest, so the report's fills stay oldest first.
    for (const f of pnl.fills()) {
      if (f.markouts.some((m) => m.value === undefined)) onFill(simPair.id, f);
    }
    const summary = pnl.summary();
    marks.push(summary.mark?.toFixed());
    positions.push(summary.position.toFixed());
    return {
      ...pairReport(
        pair,
        { summary, series: pnl.series(), fills: fills.get(simPair.id) ?? new ReportFills() },
        MATCHING_ENGINE[settings.exchange.tier].max,
        {
          orderEntry: watched.orders.get(simPair.altname) ?? { orders: 0, edits: 0, cancels: 0 },
          strategy: strategyOf(watched.strategy.get(simPair.altname)),
        },
      ),
      queue: (queueChecks.get(simPair.id) as QueueCheck).figures(),
    };
  });
  return {
    startMs: scan.firstMs,
    endMs: scan.lastMs,
    wallMs: performance.now() - wallStart,
    events: driver.events,
    latencyMs,
    latencyFrom,
    fees,
    queueRule: settings.market.queue.rule,
    pairs: reports.map((r, i) => {
      const simPair = simPairs[i] as (typeof simPairs)[number];
      const refusals =
        venue.transport.refusals.get(simPair.id) ??
        venue.transport.refusals.get(simPair.altname) ??
        new Map<string, number>();
      return {
        pair: r.pair,
        fills: r.summary.fills,
        volume: r.summary.volumeBase,
        notional: r.summary.volumeQuote,
        pnl: r.summary.pnl,
        ratecountMax: Math.round((ratecountMax.get(simPair.altname) ?? 0) * 100) / 100,
        refusals: Object.fromEntries(refusals),
        mark: marks[i],
        position: positions[i] ?? '0',
        ledger: venue.ctx.engine
          .trades(simAccount)
          .filter((t) => t.pair.id === simPair.id)
          .map((t) => ({
            timeMs: t.timeMs,
            side: t.side,
            price: t.price,
            volume: t.vol,
            fee: t.feeAsset === t.pair.base ? t.fee.times(t.price) : t.fee,
          })),
      };
    }),
    reports,
    strategy: [...new Set(settings.pairs.map((p) => p.strategy.name))].join(', '),
    market: venue.market.stats,
    rows: events.counts,
    calls: Object.fromEntries(venue.transport.calls),
    stepErrors: executor?.executor.stepErrors ?? 0,
    stores: storeKind,
    redisCommands: redis === undefined ? 0 : inFlight.sent,
    watched,
  };
}

/** The Redis-store replay's connection, or one line naming redis.url. */
async function connectRedis(url: string): Promise<CountingRedis> {
  const redis = new CountingRedis({ url, maxRetriesPerRequest: null });
  try {
    await redis.connect();
    return redis;
  } catch (err) {
    redis.disconnect();
    throw new InvalidInputError('redis.url', `cannot connect: ${(err as Error).message}`);
  }
}

function strategyOf(count: StrategyTickCount | undefined): { ticks: number; errors: number } {
  return { ticks: count?.ran ?? 0, errors: count?.errors ?? 0 };
}

/** The venue's order-entry calls counted by pair, as the bot sent them. */
function orderEntryCounts(venue: ReplayVenue): OrderEntryCounts {
  const counts = new OrderEntryCounts(
    (sent) => venue.ctx.markets.pair(sent)?.altname,
    (txid) => venue.ctx.engine.order(txid)?.pair.altname,
  );
  venue.transport.onRequest = (endpoint, body) => counts.note(endpoint, body);
  return counts;
}

function pairInfoOf(runner: RunnerRole, pairId: string): PairInfo {
  const info = runner.feed.pairs.find((p) => p.id === pairId);
  if (info === undefined) throw new Error(`the runner has no pair ${pairId}`);
  return info;
}

/** The config's pair as the recording names it (its altname), or the one-line refusal. */
export function recordedName(name: string, index: number, present: readonly string[]): string {
  const known = DEFAULT_PAIRS.find((p) => [p.id, p.altname, p.wsname].includes(name));
  const altname = known?.altname ?? name;
  if (present.includes(altname)) return altname;
  throw new InvalidInputError(
    `pairs[${index}].pair`,
    `${name} is not in the recording (it holds ${present.length === 0 ? 'no pair' : present.join(', ')})`,
  );
}

/**
 * The bot's key at the replay's exchange: the config's simulator account (key, tier, balances)
 * when it names one, else a key made for the run with the paper account's balances.
 */
function replayAccount(
  settings: BotSettings,
  configDir: string,
): { credentials: CredentialsInput; account: ReplayAccount } {
  const source = settings.exchange.credentials;
  let credentials: CredentialsInput;
  let simFile: string | undefined;
  let accountKey: string;
  if (source.from === 'simulator') {
    credentials = resolveCredentials(
      { ...settings.exchange, url: 'http://127.0.0.1' },
      process.env,
      configDir,
    );
    simFile = resolve(configDir, source.sim_config);
    accountKey = source.account;
  } else {
    credentials = { apiKey: 'backtest-key', apiSecret: randomBytes(32).toString('base64') };
    simFile = packageFile('config', 'sim.yaml');
    accountKey = 'paper-key';
  }
  const simAccount =
    simFile === undefined
      ? undefined
      : loadSimConfig(simFile).accounts.find((a) => a.key === accountKey);
  return {
    credentials,
    account: {
      key: credentials.apiKey,
      secret: credentials.apiSecret,
      tier: settings.exchange.tier,
      balances: simAccount?.balances ?? {},
      nonceWindow: settings.exchange.nonce_window,
    },
  };
}
