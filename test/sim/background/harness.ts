import { ManualClock } from '../../../src/core/index.js';
import { BackgroundMarket } from '../../../src/sim/background/background-market.js';
import { parseSimConfig, type SimConfig } from '../../../src/sim/config.js';
import { MatchingEngine } from '../../../src/sim/engine/matching-engine.js';
import type { PublicTrade } from '../../../src/sim/engine/types.js';
import { IdFactory } from '../../../src/sim/ids.js';
import { MarketRecorder } from '../../../src/sim/market-data/recorder.js';
import { Markets } from '../../../src/sim/markets.js';
import { Accounts } from '../../../src/sim/state/accounts.js';
import { PERMISSIONS } from '../../../src/sim/state/permissions.js';
import { StatusBoard } from '../../../src/sim/state/status.js';

export interface Harness {
  readonly clock: ManualClock;
  readonly config: SimConfig;
  readonly markets: Markets;
  readonly accounts: Accounts;
  readonly engine: MatchingEngine;
  readonly recorder: MarketRecorder;
  readonly status: StatusBoard;
  readonly background: BackgroundMarket;
  readonly prints: PublicTrade[];
  /**
   * Moves the clock in `stepMs` hops, letting the engine and the background act at each. The
   * background's first step ran when the harness was built.
   */
  run(ms: number, stepMs?: number): Promise<void>;
}

/** The engine, recorder and background market wired as the simulator wires them, no HTTP. */
export function harness(background: Record<string, unknown> = {}): Harness {
  const clock = new ManualClock();
  const config = parseSimConfig({ background: { enabled: true, ...background } });
  const ids = new IdFactory(7);
  const markets = new Markets(config.assets, config.pairs);
  const accounts = new Accounts(ids, PERMISSIONS);
  const status = new StatusBoard();
  const prints: PublicTrade[] = [];
  const late: { recorder?: MarketRecorder } = {};
  const engine = new MatchingEngine({
    clock,
    ids,
    markets,
    accounts,
    listeners: {
      trade: (t) => {
        prints.push(t);
        late.recorder?.onTrade(t);
      },
      book: (p) => late.recorder?.onBook(p),
    },
    canTrade: () => status.canTrade(),
  });
  const recorder = new MarketRecorder(markets, engine, clock);
  late.recorder = recorder;
  const bg = new BackgroundMarket({ clock, markets, engine, accounts, status }, config.background);
  // As the simulator does from its first tick: the market opens when the harness is built.
  bg.step(clock.now());
  return {
    clock,
    config,
    markets,
    accounts,
    engine,
    recorder,
    status,
    background: bg,
    prints,
    async run(ms, stepMs = 100) {
      for (let t = 0; t < ms; t += stepMs) {
        await clock.advance(stepMs);
        engine.tick(clock.now());
        bg.step(clock.now());
      }
    },
  };
}
