import { systemClock, type Clock } from '../core/index.js';
import { BackgroundMarket } from './background/background-market.js';
import { parseSimConfig, type SimConfig } from './config.js';
import type { SimContext } from './context.js';
import { MatchingEngine } from './engine/matching-engine.js';
import { routesFor } from './endpoints/index.js';
import { Router } from './http/router.js';
import { SimServer } from './http/server.js';
import { IdFactory } from './ids.js';
import { MarketRecorder } from './market-data/recorder.js';
import { Markets } from './markets.js';
import { Accounts } from './state/accounts.js';
import { DeadmanTimers } from './state/deadman.js';
import { Faults } from './state/faults.js';
import { SimLimits } from './state/limits.js';
import { PERMISSIONS } from './state/permissions.js';
import { StatusBoard } from './state/status.js';

export interface SimulatorOptions {
  /** A config object (validated, defaults filled) or an already parsed SimConfig. */
  readonly config?: unknown;
  readonly clock?: Clock;
  /** Overrides config.port (0 = a free port). */
  readonly port?: number;
  readonly host?: string;
  /** Seed for ids; random when absent. */
  readonly idSeed?: number;
  /** Bounds each user account's kept history (EngineOptions.userHistoryKept); backtests set it. */
  readonly userHistoryKept?: number;
}

export interface Simulator {
  readonly url: string;
  readonly port: number;
  readonly ctx: SimContext;
  readonly server: SimServer;
  /** Runs due time-driven work now (tests under ManualClock call it after advancing). */
  tick(): void;
  close(): Promise<void>;
}

/** Builds every part of the simulator without listening (the benchmark drives it in-process). */
export function createSimContext(options: SimulatorOptions = {}): {
  ctx: SimContext;
  runTicks: (nowMs: number) => void;
} {
  const config: SimConfig = parseSimConfig(options.config ?? {});
  const clock = options.clock ?? systemClock;
  const ids = new IdFactory(options.idSeed);
  const markets = new Markets(config.assets, config.pairs);
  const accounts = new Accounts(ids, PERMISSIONS);
  const status = new StatusBoard();
  const limits = new SimLimits({
    restrictionMs: config.rate_limit_restriction_ms,
    publicLimit: config.public_limit,
    enforce: config.enforce_limits,
  });
  const faults = new Faults();
  const tickers: ((nowMs: number) => void)[] = [];

  // The recorder and the background market need the engine and the engine reports to them:
  // late-bound through these holders so construction stays one-way.
  const late: { history?: MarketRecorder; background?: BackgroundMarket } = {};
  const engine = new MatchingEngine({
    clock,
    ids,
    markets,
    accounts,
    listeners: {
      trade: (t) => late.history?.onTrade(t),
      book: (p) => late.history?.onBook(p),
    },
    canTrade: () => status.canTrade(),
    indexPrice: (pair) => late.background?.indexPrice(pair.id),
    ...(options.userHistoryKept === undefined ? {} : { userHistoryKept: options.userHistoryKept }),
  });
  const history = new MarketRecorder(markets, engine, clock);
  late.history = history;
  const deadman = new DeadmanTimers(engine, limits, (key) => accounts.get(key));

  const ctxBase = {
    clock,
    config,
    ids,
    markets,
    accounts,
    engine,
    history,
    limits,
    status,
    deadman,
    faults,
    onTick: (work: (nowMs: number) => void) => {
      tickers.push(work);
    },
  };
  const background = new BackgroundMarket(ctxBase, config.background);
  late.background = background;
  const ctx: SimContext = { ...ctxBase, background };

  for (const a of config.accounts) {
    accounts.upsert(
      {
        key: a.key,
        secret: a.secret,
        tier: a.tier,
        permissions: a.permissions,
        balances: a.balances,
        nonceWindow: a.nonce_window,
        ...(a.otp === undefined ? {} : { otp: a.otp }),
      },
      clock.now(),
    );
  }
  status.onModeChange((from) => {
    if (from === 'maintenance') deadman.fireAllArmed(clock.now());
  });

  let lastTick = -1;
  const runTicks = (nowMs: number): void => {
    if (nowMs === lastTick) return;
    lastTick = nowMs;
    engine.tick(nowMs);
    deadman.tick(nowMs);
    background.step(nowMs);
    for (const t of tickers) t(nowMs);
  };
  return { ctx, runTicks };
}

/** Starts the simulator's HTTP server and its tick loop. */
export async function startSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  const { ctx, runTicks } = createSimContext(options);
  const router = new Router();
  router.add(routesFor(ctx));
  const server = new SimServer(ctx, router, runTicks);
  const host = options.host ?? ctx.config.host;
  const port = options.port ?? ctx.config.port;
  const url = await server.listen(port, host);
  const stop = new AbortController();
  const loop = async (): Promise<void> => {
    while (!stop.signal.aborted) {
      try {
        await ctx.clock.sleep(ctx.config.tick_ms, stop.signal);
      } catch {
        return;
      }
      runTicks(ctx.clock.now());
    }
  };
  const looping = loop();
  return {
    url,
    port: Number(new URL(url).port),
    ctx,
    server,
    tick: () => runTicks(ctx.clock.now()),
    close: async () => {
      stop.abort();
      await looping;
      await server.close();
    },
  };
}
