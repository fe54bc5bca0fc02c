import { assetName, dec, toWire, type Decimal, type PairInfo } from '../core/index.js';
import type { FillRecord, PnlSummary, SeriesPoint } from '../pnl/index.js';
import type { RecordingProblem } from '../recording/index.js';
import {
  inventoryStats,
  maxDrawdown,
  pnlPerVolumeBps,
  type DataProblem,
  type FillPoint,
  type PairReport,
  type PairSummary,
} from './report/index.js';

/** Fills a pair's report keeps for its chart: beyond this, every other one goes (see ReportFills). */
export const REPORT_FILLS_KEPT = 4_000;

/** What PairPnl knows of one pair at the end of a replay. */
export interface PairPnlResult {
  readonly summary: PnlSummary;
  readonly series: readonly SeriesPoint[];
  readonly fills: ReportFills;
}

/**
 * One pair's fills as the report keeps them, oldest first: at most `max`, evenly spread over the
 * run (when full, every other one goes and from then on only every 2nd, 4th... is kept), so a
 * replay's memory stays flat however many fills it makes. fills.jsonl has every one.
 */
export class ReportFills {
  readonly #max: number;
  #kept: FillPoint[] = [];
  #every = 1;
  #seen = 0;
  buys = 0;

  constructor(max = REPORT_FILLS_KEPT) {
    if (!(max >= 2)) throw new RangeError(`ReportFills keeps at least 2, got ${max}`);
    this.#max = max;
  }

  add(fill: FillRecord): void {
    if (fill.side === 'buy') this.buys += 1;
    const index = this.#seen++;
    if (index % this.#every !== 0) return;
    if (this.#kept.length >= this.#max) {
      this.#kept = this.#kept.filter((_, i) => i % 2 === 0);
      this.#every *= 2;
      if (index % this.#every !== 0) return;
    }
    this.#kept.push({
      tMs: fill.atMs,
      side: fill.side,
      price: toWire(fill.price),
      volume: toWire(fill.volume),
      fee: toWire(fill.fee),
    });
  }

  get count(): number {
    return this.#seen;
  }

  kept(): readonly FillPoint[] {
    return this.#kept;
  }
}

/**
 * One line of fills.jsonl: a fill with the mid its spread was measured against and its markouts,
 * exact decimal strings (a markout still pending when the run ended is null).
 */
export function fillLine(pair: string, fill: FillRecord): string {
  const wire = (d: Decimal | undefined): string | null => (d === undefined ? null : toWire(d));
  return `${JSON.stringify({
    pair,
    tMs: fill.atMs,
    side: fill.side,
    price: toWire(fill.price),
    volume: toWire(fill.volume),
    fee: toWire(fill.fee),
    mid: toWire(fill.mid),
    spread: toWire(fill.spread),
    markouts: fill.markouts.map((m) => ({
      horizonMs: m.horizonMs,
      value: wire(m.value),
      bps: wire(m.bps),
      mid: wire(m.mid),
    })),
  })}\n`;
}

/**
 * One pair's part of the report, from the same PairPnl that /status shows live. `ratecountMax`
 * is the tier's maximum: PairPnl keeps the ratecount as a share of it, the charts as a level.
 */
export function pairReport(
  pair: PairInfo,
  pnl: PairPnlResult,
  ratecountMax: number,
  watched: Pick<PairSummary, 'orderEntry' | 'strategy'>,
): PairReport {
  const { summary } = pnl;
  const series = endingAtSummary(pnl.series, summary);
  const tMs = series.map((p) => p.atMs);
  const position = series.map((p) => Number(p.position));
  const pnlTotal = series.map((p) => Number(p.total));
  const total = toWire(summary.pnl.total);
  const volumeQuote = toWire(summary.volumeQuote);
  const num = (text: string | undefined): number | null =>
    text === undefined ? null : Number(text);
  const buys = pnl.fills.buys;
  return {
    pair: pair.altname,
    base: assetName(pair.base),
    quote: assetName(pair.quote),
    summary: {
      fills: summary.fills,
      buys,
      sells: summary.fills - buys,
      volumeBase: toWire(summary.volumeBase),
      volumeQuote,
      pnl: {
        spread: toWire(summary.pnl.spread),
        inventory: toWire(summary.pnl.inventory),
        fees: toWire(summary.pnl.fees),
        total,
      },
      fillRatePerHour: summary.fillRatePerHour ?? null,
      timeAtQuote: summary.timeAtQuote.both,
      timeAtQuoteAny: summary.timeAtQuote.any,
      quoteDistanceBps: summary.quoteDistanceBps.mean ?? null,
      ratecount: {
        mean: (summary.ratecountUse.mean ?? 0) * ratecountMax,
        max: (summary.ratecountUse.max ?? 0) * ratecountMax,
      },
      pnlPerVolumeBps: pnlPerVolumeBps(total, volumeQuote),
      maxDrawdown: maxDrawdown(pnlTotal),
      inventory: inventoryStats(tMs, position),
      ...watched,
    },
    series: {
      tMs,
      mid: series.map((p) => num(p.mid)),
      bid: series.map((p) => num(p.bid)),
      ask: series.map((p) => num(p.ask)),
      targetBid: series.map((p) => num(p.targetBid)),
      targetAsk: series.map((p) => num(p.targetAsk)),
      position,
      pnlSpread: series.map((p) => Number(p.spread)),
      pnlInventory: series.map((p) => Number(p.inventory)),
      pnlFees: series.map((p) => Number(p.fees)),
      pnlTotal,
      ratecount: series.map((p) => (p.ratecount ?? 0) * ratecountMax),
      ratecountMax,
    },
    fills: pnl.fills.kept(),
    markouts: {
      horizonsMs: summary.markouts.map((m) => m.horizonMs),
      buy: summary.markouts.map((m) => bps(m.buyMeanBps)),
      sell: summary.markouts.map((m) => bps(m.sellMeanBps)),
      all: summary.markouts.map((m) => bps(m.meanBps)),
    },
  };
}

/**
 * The series with a last point at the summary's state when it ended elsewhere: the replay's last
 * sync hands on fills after the series' last point (each point is taken at most once a second,
 * and a fill counts at its own, earlier, time), and the charts must end where the tables do.
 */
function endingAtSummary(series: readonly SeriesPoint[], summary: PnlSummary): SeriesPoint[] {
  const last = series.at(-1);
  if (last === undefined) return [];
  const { pnl, position } = summary;
  if (dec(last.total).eq(pnl.total) && dec(last.position).eq(position)) return [...series];
  return [
    ...series,
    {
      ...last,
      atMs: Math.max(last.atMs, summary.asOfMs ?? last.atMs),
      position: toWire(position),
      total: toWire(pnl.total),
      spread: toWire(pnl.spread),
      inventory: toWire(pnl.inventory),
      fees: toWire(pnl.fees),
    },
  ];
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

function bps(value: Decimal | undefined): number | null {
  return value === undefined ? null : Number(value.toFixed(2));
}
