import { toWire, type Decimal, type PairInfo } from '../core/index.js';
import type { FillRecord, PnlSummary, SeriesPoint } from '../pnl/index.js';
import type { RecordingProblem } from './recording/index.js';
import type { DataProblem, PairReport } from './report/index.js';

/** What PairPnl knows of one pair at the end of a replay. */
export interface PairPnlResult {
  readonly summary: PnlSummary;
  readonly series: readonly SeriesPoint[];
  /** Every fill, oldest first: the settled ones and those still pending at the end. */
  readonly fills: readonly FillRecord[];
}

/**
 * One pair's part of the report, from the same PairPnl that /status shows live. `ratecountMax`
 * is the tier's maximum: PairPnl keeps the ratecount as a share of it, the charts as a level.
 */
export function pairReport(pair: PairInfo, pnl: PairPnlResult, ratecountMax: number): PairReport {
  const { summary, series } = pnl;
  const num = (text: string | undefined): number | null =>
    text === undefined ? null : Number(text);
  const buys = pnl.fills.filter((f) => f.side === 'buy').length;
  return {
    pair: pair.altname,
    base: assetName(pair.base),
    quote: assetName(pair.quote),
    summary: {
      fills: summary.fills,
      buys,
      sells: summary.fills - buys,
      volumeBase: toWire(summary.volumeBase),
      volumeQuote: toWire(summary.volumeQuote),
      pnl: {
        spread: toWire(summary.pnl.spread),
        inventory: toWire(summary.pnl.inventory),
        fees: toWire(summary.pnl.fees),
        total: toWire(summary.pnl.total),
      },
      fillRatePerHour: summary.fillRatePerHour ?? null,
      timeAtQuote: summary.timeAtQuote.both,
      quoteDistanceBps: summary.quoteDistanceBps.mean ?? null,
      ratecount: {
        mean: (summary.ratecountUse.mean ?? 0) * ratecountMax,
        max: (summary.ratecountUse.max ?? 0) * ratecountMax,
      },
    },
    series: {
      tMs: series.map((p) => p.atMs),
      mid: series.map((p) => num(p.mid)),
      bid: series.map((p) => num(p.bid)),
      ask: series.map((p) => num(p.ask)),
      targetBid: series.map((p) => num(p.targetBid)),
      targetAsk: series.map((p) => num(p.targetAsk)),
      position: series.map((p) => Number(p.position)),
      pnlSpread: series.map((p) => Number(p.spread)),
      pnlInventory: series.map((p) => Number(p.inventory)),
      pnlFees: series.map((p) => Number(p.fees)),
      pnlTotal: series.map((p) => Number(p.total)),
      ratecount: series.map((p) => (p.ratecount ?? 0) * ratecountMax),
      ratecountMax,
    },
    fills: pnl.fills.map((f) => ({
      tMs: f.atMs,
      side: f.side,
      price: toWire(f.price),
      volume: toWire(f.volume),
      fee: toWire(f.fee),
    })),
    markouts: {
      horizonsMs: summary.markouts.map((m) => m.horizonMs),
      buy: summary.markouts.map((m) => bps(m.buyMeanBps)),
      sell: summary.markouts.map((m) => bps(m.sellMeanBps)),
      all: summary.markouts.map((m) => bps(m.meanBps)),
    },
  };
}

/** The reader's problems as the report lists them. */
export function dataProblems(problems: readonly RecordingProblem[]): DataProblem[] {
  return problems.map((p) => ({
    kind: p.kind,
    ...(p.pair === undefined ? {} : { pair: p.pair }),
    ...(p.fromMs === undefined ? {} : { fromMs: p.fromMs }),
    ...(p.toMs === undefined ? {} : { toMs: p.toMs }),
    text: p.message,
  }));
}

/** XXBT -> XBT, ZUSD -> USD: the exchange's four-letter legacy ids, as people write them. */
function assetName(id: string): string {
  return id.length === 4 && /^[XZ]/.test(id) ? id.slice(1) : id;
}

function bps(value: Decimal | undefined): number | null {
  return value === undefined ? null : Number(value.toFixed(2));
}
