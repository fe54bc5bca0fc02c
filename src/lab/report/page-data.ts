import { downsample, thin } from './downsample.js';
import { horizon } from './figures.js';
import type { BacktestReport, PairReport } from './report-data.js';

/** Rows per chart series on the page: enough for any screen, small enough to stay quick. */
export const MAX_POINTS = 4000;
/** Fill markers per pair on the page; beyond this they would cover the line anyway. */
export const MAX_FILLS = 4000;

/** What the page's script draws: per pair, columns on one time axis in seconds (uPlot's unit). */
export interface PageData {
  readonly pairs: readonly PagePair[];
  /** The equity curve per quote currency: time (s) and the pairs' summed PnL total. */
  readonly totals: readonly {
    readonly quote: string;
    readonly cols: readonly (readonly (number | null)[])[];
  }[];
  /** Halts as shaded spans on every chart over time (s); end null: to the end of the run. */
  readonly halts: readonly { readonly start: number; readonly end: number | null }[];
}

export interface PagePair {
  readonly pair: string;
  readonly base: string;
  readonly quote: string;
  /** Time (s) then mid, bid, ask, targetBid, targetAsk, position, spread, inventory, −fees, total, ratecount. */
  readonly cols: readonly (readonly (number | null)[])[];
  readonly hasTarget: boolean;
  readonly ratecountMax: number;
  /** Fill markers: time (s), price, 1 for a buy and 0 for a sell. */
  readonly fills: { readonly t: number[]; readonly price: number[]; readonly buy: number[] };
  readonly fillsTotal: number;
  readonly markouts: {
    readonly horizonsS: number[];
    /** As the summary table writes them: 1 s, 10 s, 1 min. */
    readonly labels: string[];
    readonly buy: readonly (number | null)[];
    readonly sell: readonly (number | null)[];
    readonly all: readonly (number | null)[];
  };
}

export function pageData(data: BacktestReport): PageData {
  return {
    pairs: data.pairs.map(pagePair),
    totals: data.totals.map((t) => {
      const thinned = downsample(t.equity.tMs, [t.equity.total], MAX_POINTS);
      return {
        quote: t.quote,
        cols: [thinned.t.map(seconds), ...thinned.cols.map((c) => c.map(compact))],
      };
    }),
    halts: data.halts.map((h) => ({
      start: seconds(h.startMs),
      end: h.endMs === null ? null : seconds(h.endMs),
    })),
  };
}

function pagePair(p: PairReport): PagePair {
  const s = p.series;
  const none = s.tMs.map(() => null);
  const hasTarget = s.targetBid !== undefined || s.targetAsk !== undefined;
  // Fees are a cost: drawn negative, the components add up to the total line.
  const fees = s.pnlFees.map((f) => (f === 0 ? 0 : -f));
  const thinned = downsample(
    s.tMs,
    [
      s.mid,
      s.bid,
      s.ask,
      s.targetBid ?? none,
      s.targetAsk ?? none,
      s.position,
      s.pnlSpread,
      s.pnlInventory,
      fees,
      s.pnlTotal,
      s.ratecount,
    ],
    MAX_POINTS,
  );
  const fills = thin(p.fills, MAX_FILLS);
  return {
    pair: p.pair,
    base: p.base,
    quote: p.quote,
    cols: [thinned.t.map(seconds), ...thinned.cols.map((c) => c.map(compact))],
    hasTarget,
    ratecountMax: s.ratecountMax,
    fills: {
      t: fills.map((f) => seconds(f.tMs)),
      price: fills.map((f) => Number(f.price)),
      buy: fills.map((f) => (f.side === 'buy' ? 1 : 0)),
    },
    fillsTotal: p.summary.fills,
    markouts: {
      horizonsS: p.markouts.horizonsMs.map(seconds),
      labels: p.markouts.horizonsMs.map(horizon),
      buy: p.markouts.buy,
      sell: p.markouts.sell,
      all: p.markouts.all,
    },
  };
}

const seconds = (ms: number): number => ms / 1000;

/** Eight significant digits: more than a chart can show, and no float noise in the page. */
const compact = (v: number | null): number | null => (v === null ? null : Number(v.toPrecision(8)));
