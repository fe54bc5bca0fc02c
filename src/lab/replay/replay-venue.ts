import { Decimal, InvalidInputError } from '../../core/index.js';
import type { QueueRule } from '../../market/index.js';
import { DEFAULT_ASSETS, DEFAULT_PAIRS } from '../../sim/defaults.js';
import type { PairConfig } from '../../sim/config.js';
import type { SimContext } from '../../sim/context.js';
import { routesFor } from '../../sim/endpoints/index.js';
import { Router } from '../../sim/http/router.js';
import { SimServer } from '../../sim/http/server.js';
import { createSimContext } from '../../sim/simulator.js';
import type { ReplayClock } from './replay-clock.js';
import type { RecordingScan } from './recording-scan.js';
import { RecordedMarket } from './recorded-market.js';
import { SimTransport } from './sim-transport.js';

export interface ReplayAccount {
  readonly key: string;
  readonly secret: string;
  readonly tier: string;
  readonly balances: Readonly<Record<string, string>>;
  readonly nonceWindow: number;
}

/**
 * What the replayed exchange charges instead of the recording's fee ladders: `makerPct` and
 * `takerPct` replace the maker and taker ladders of every replayed pair with one rung (percent);
 * `volumeUsd` is the key's 30-day volume at the start, which places it on the ladders. The bot
 * learns the result from TradeVolume, as it would live.
 */
export interface ReplayFees {
  readonly makerPct?: number;
  readonly takerPct?: number;
  readonly volumeUsd?: number;
}

export interface ReplayVenue {
  readonly ctx: SimContext;
  readonly server: SimServer;
  readonly transport: SimTransport;
  readonly market: RecordedMarket;
  readonly runTicks: (nowMs: number) => void;
}

/**
 * The simulator of a backtest, in-process on the replay clock: the recording's pairs (its
 * AssetPairs answer's rules and fees, else the simulator's defaults of the same name), no
 * background market, limits enforced, one account for the bot; its server answered through a
 * SimTransport, its engine driven by a RecordedMarket.
 */
/**
 * Closed orders, fills and ledger entries of the bot's key the replay's venue keeps (the newest,
 * trimmed at twice this): about 35 minutes of the paper config's two pairs, far beyond the
 * reconcile's look-back. The report's fills come from PnL attribution; the fidelity check's
 * replayed ledger reads the venue's, so it compares sessions shorter than that.
 */
export const REPLAY_HISTORY_KEPT = 2_000;

export function createReplayVenue(options: {
  readonly scan: RecordingScan;
  readonly pairs: readonly string[];
  readonly account: ReplayAccount;
  readonly clock: ReplayClock;
  readonly latencyMs: number;
  /** How the Depth-only fill model splits a level's unexplained decreases around our orders. */
  readonly queueRule: QueueRule;
  readonly fees?: ReplayFees;
}): ReplayVenue {
  const { scan, account, clock } = options;
  const fees = options.fees ?? {};
  const { ctx, runTicks } = createSimContext({
    clock,
    idSeed: 1,
    // The bot asks about its last minutes only; a day of its orders would grow without bound.
    userHistoryKept: REPLAY_HISTORY_KEPT,
    config: {
      assets: DEFAULT_ASSETS,
      pairs: options.pairs.map((name) => withFees(pairConfig(scan, name), fees)),
      accounts: [
        {
          key: account.key,
          secret: account.secret,
          tier: account.tier,
          balances: account.balances,
          nonce_window: account.nonceWindow,
        },
      ],
      background: { enabled: false },
      enforce_limits: true,
    },
  });
  if (fees.volumeUsd !== undefined && fees.volumeUsd > 0) {
    ctx.engine.creditVolumeUsd(ctx.accounts.require(account.key), new Decimal(fees.volumeUsd));
  }
  const router = new Router();
  router.add(routesFor(ctx));
  const server = new SimServer(ctx, router, runTicks);
  const transport = new SimTransport(server, clock, options.latencyMs);
  return { ctx, server, transport, market: new RecordedMarket(ctx, options.queueRule), runTicks };
}

function withFees(pair: PairConfig, fees: ReplayFees): PairConfig {
  return {
    ...pair,
    ...(fees.takerPct === undefined ? {} : { fees: [[0, fees.takerPct]] }),
    ...(fees.makerPct === undefined ? {} : { fees_maker: [[0, fees.makerPct]] }),
  };
}

/** A pair's rules from the recorded AssetPairs answer, else the simulator's default of that name. */
function pairConfig(scan: RecordingScan, altname: string): PairConfig {
  const initial = scan.firstMid.get(altname);
  const recorded = Object.entries(scan.assetPairs ?? {}).find(([, p]) => p['altname'] === altname);
  if (recorded !== undefined) {
    const [id, p] = recorded;
    const known = new Set(DEFAULT_ASSETS.map((a) => a.id));
    for (const asset of [p['base'], p['quote']]) {
      if (!known.has(String(asset))) {
        throw new InvalidInputError(
          '--data',
          `pair ${altname} trades asset ${String(asset)}, which the replay does not know (known: ${[...known].join(', ')})`,
        );
      }
    }
    return {
      id,
      altname,
      wsname: String(p['wsname']),
      base: String(p['base']),
      quote: String(p['quote']),
      pair_decimals: Number(p['pair_decimals']),
      lot_decimals: Number(p['lot_decimals']),
      cost_decimals: Number(p['cost_decimals']),
      ordermin: String(p['ordermin']),
      costmin: String(p['costmin']),
      tick_size: String(p['tick_size']),
      fees: p['fees'] as [number, number][],
      fees_maker: p['fees_maker'] as [number, number][],
      initial_price: initial ?? '1',
    };
  }
  const fallback = DEFAULT_PAIRS.find((p) => p.altname === altname);
  if (fallback === undefined) {
    throw new InvalidInputError(
      '--data',
      `pair ${altname}: the recording holds no AssetPairs answer and the simulator has no such pair`,
    );
  }
  return initial === undefined ? fallback : { ...fallback, initial_price: initial };
}
