import type { Decimal } from '../core/index.js';
import { toWire, type Side } from '../core/index.js';
import { PairPnl } from '../pnl/index.js';
import type { FidelityFigures, FidelityRow } from './report/index.js';
import { differencePct as reportDifferencePct } from './report/figures.js';

/** One execution as the exchange's ledger holds it (TradesHistory, or the replay's engine). */
export interface LedgerTrade {
  readonly timeMs: number;
  readonly side: Side;
  readonly price: Decimal;
  readonly volume: Decimal;
  /** Quote currency. */
  readonly fee: Decimal;
}

/**
 * Why live and replay differ, for the report's fidelity block: what the replay cannot know of the
 * live session (docs/backtest.md, "Fidelity").
 */
export const FIDELITY_NOTE =
  'The replay sees the market only through the recorded polls: the book every Depth interval and ' +
  "the public trades every Trades interval, so a resting order's queue place comes from the " +
  'probabilistic queue rule (no Level3 recorded), recorded trades that hit our live orders are ' +
  'replayed against the replay’s orders only where they rest at that price then, and the live ' +
  "session's own order-entry round trips are replaced by the fixed --latency-ms. Both sides are " +
  "counted from the exchange's ledger over the replayed window, PnL marked at the replay's last mid.";

/**
 * Live and replay figures of one pair from the two ledgers, both within [fromMs, toMs]: trades,
 * quote volume, and PnL (cash flow + position × mark − fees) marked at the same `mark`, computed
 * by PairPnl as everywhere else.
 */
export function fidelityRow(
  pair: string,
  live: readonly LedgerTrade[],
  replay: readonly LedgerTrade[],
  window: { readonly fromMs: number; readonly toMs: number; readonly mark: Decimal },
): FidelityRow {
  return {
    pair,
    live: figures(live, window),
    replay: figures(replay, window),
  };
}

/**
 * (replay − live) / |live| in %, the figure the tolerance applies to (the report's, with a live
 * zero against a replayed trade as infinitely far).
 */
export function differencePct(live: string | number, replay: string | number): number {
  return reportDifferencePct(String(live), String(replay)) ?? Infinity;
}

function figures(
  trades: readonly LedgerTrade[],
  window: { readonly fromMs: number; readonly toMs: number; readonly mark: Decimal },
): FidelityFigures {
  const pnl = new PairPnl();
  const inWindow = trades
    .filter((t) => t.timeMs >= window.fromMs && t.timeMs <= window.toMs)
    .sort((a, b) => a.timeMs - b.timeMs);
  inWindow.forEach((t, i) =>
    pnl.fill({
      atMs: t.timeMs,
      side: t.side,
      price: t.price,
      volume: t.volume,
      fee: t.fee,
      id: String(i),
    }),
  );
  pnl.mid(window.toMs, window.mark);
  const summary = pnl.summary();
  return {
    fills: summary.fills,
    volume: toWire(summary.volumeQuote),
    realizedPnl: toWire(summary.pnl.total),
  };
}
