import { routesFor } from '../sim/endpoints/index.js';
import { toJson } from '../sim/http/json.js';
import { Router } from '../sim/http/router.js';
import { SimServer } from '../sim/http/server.js';
import { createSimContext } from '../sim/simulator.js';
import { ReplayClock } from './replay/replay-clock.js';
import type { RecordedEndpoint, RecordedRow } from '../recording/format.js';
import { RecordingWriter, type RecordingStats } from '../recording/recording-writer.js';

/** The paper config's cadence (config/paper.yaml), as a recorder beside it would poll. */
export const PAPER_INTERVALS_MS: Readonly<Partial<Record<RecordedEndpoint, number>>> = {
  Depth: 1_500,
  Trades: 10_000,
  SystemStatus: 5_000,
};
/** The simulated flow's default seed, so one command gives the same recording everywhere. */
export const DEFAULT_SIMULATED_SEED = 7;
/** Where a simulated recording starts by default: a fixed time, so the same seed gives the same files. */
export const DEFAULT_SIMULATED_START_MS = Date.UTC(2026, 0, 1);
/** Time from asking to the answer, as a recorder on a good link would see it. */
const ROUND_TRIP_MS = 20;
/** The simulator's background step (its `step_ms` default): the market moves this often. */
const STEP_MS = 250;
const HOUR_MS = 3_600_000;
/** Levels per side a Depth answer holds: the market config's `depth_levels` default. */
const DEPTH_LEVELS = 25;
/** The most prints one Trades answer holds at the exchange. */
const TRADES_CAP = 1_000;

export interface SimulatedMarketOptions {
  /** Pair altnames of the simulator (XBTUSD, ETHUSD, ...). */
  readonly pairs: readonly string[];
  readonly startMs?: number;
  readonly durationMs: number;
  /** Seed of the background market (and of the simulator's ids). */
  readonly seed?: number;
  /** Background takers per second (the simulator's default is 1.5). */
  readonly takersPerSec?: number;
  /** Prints asked for per Trades call; a full answer is asked again at once (default the cap). */
  readonly tradesCount?: number;
}

/**
 * The simulator's default flow as `makerd record` would record it: a source simulator with its
 * background market on, on its own clock, asked for AssetPairs at the start and each new hour, and
 * for Depth, Trades and SystemStatus at the paper config's cadence. Trades follow the exchange's
 * cursor from the tape's start (each call's `last` is the next call's `since`), and an answer
 * holding as many prints as asked for is asked again at once, so every print is recorded. Each answer's body is the text the
 * server sent. Rows go to `sink` in time order.
 */
export async function simulateMarket(
  options: SimulatedMarketOptions,
  sink: (row: RecordedRow) => void,
): Promise<void> {
  const startMs = options.startMs ?? DEFAULT_SIMULATED_START_MS;
  const seed = options.seed ?? DEFAULT_SIMULATED_SEED;
  const tradesCount = options.tradesCount ?? TRADES_CAP;
  const clock = new ReplayClock(startMs);
  const { ctx, runTicks } = createSimContext({
    clock,
    idSeed: seed,
    config: {
      background: {
        seed,
        ...(options.takersPerSec === undefined ? {} : { takers_per_sec: options.takersPerSec }),
      },
      enforce_limits: false,
    },
  });
  const router = new Router();
  router.add(routesFor(ctx));
  const server = new SimServer(ctx, router, runTicks);
  const ask = async (endpoint: RecordedEndpoint, query: string, pair?: string): Promise<string> => {
    const askedMs = clock.now();
    const answer = await server.handle({
      method: 'GET',
      target: `/0/public/${endpoint}${query}`,
      headers: { 'user-agent': 'makerd-simulated-recording' },
      rawBody: Buffer.alloc(0),
      clientId: 'simulated-recording',
      traceId: 'simulated-recording',
    });
    const body = toJson(answer.body);
    sink({ askedMs, receivedMs: askedMs + ROUND_TRIP_MS, endpoint, pair, body });
    return body;
  };
  // From the tape's start (since=0): the source simulator started with the recording.
  const since = new Map<string, string>();
  const trades = async (pair: string): Promise<void> => {
    for (;;) {
      const body = await ask(
        'Trades',
        `?pair=${pair}&count=${tradesCount}&since=${since.get(pair) ?? '0'}`,
        pair,
      );
      const result = (JSON.parse(body) as { result: Record<string, unknown> }).result;
      since.set(pair, String(result['last']));
      const prints = Object.entries(result).find(([key]) => key !== 'last')?.[1];
      if (!Array.isArray(prints) || prints.length < tradesCount) return;
    }
  };

  runTicks(clock.now());
  const endMs = startMs + options.durationMs;
  const due = new Map<string, number>();
  let rulesHour = -1;
  while (clock.now() < endMs) {
    const now = clock.now();
    const hour = Math.floor(now / HOUR_MS);
    if (hour !== rulesHour) {
      rulesHour = hour;
      await ask('AssetPairs', '');
    }
    for (const [endpoint, every] of Object.entries(PAPER_INTERVALS_MS)) {
      const targets = endpoint === 'SystemStatus' ? [undefined] : options.pairs;
      for (const pair of targets) {
        const id = `${endpoint}:${pair ?? ''}`;
        if ((due.get(id) ?? now) > now) continue;
        due.set(id, now + every);
        if (pair === undefined) await ask('SystemStatus', '');
        else if (endpoint === 'Depth')
          await ask('Depth', `?pair=${pair}&count=${DEPTH_LEVELS}`, pair);
        else await trades(pair);
      }
    }
    clock.jumpTo(now + STEP_MS);
    runTicks(clock.now());
  }
}

/**
 * Writes simulateMarket's rows as a recording in `dir` (created; files as `makerd record` writes
 * them, which `makerd backtest` reads).
 */
export async function writeSimulatedRecording(
  dir: string,
  options: SimulatedMarketOptions,
): Promise<RecordingStats> {
  const startMs = options.startMs ?? DEFAULT_SIMULATED_START_MS;
  const writer = await RecordingWriter.open({
    dir,
    // Rows carry their own times; this clock only names the files and never moves.
    clock: new ReplayClock(startMs),
    sessionStartMs: startMs,
    intervalsMs: PAPER_INTERVALS_MS,
    tier: 'starter',
  });
  try {
    await simulateMarket({ ...options, startMs }, writer.write);
  } finally {
    await writer.close();
  }
  if (writer.stopped !== undefined) throw writer.stopped;
  return writer.stats();
}
