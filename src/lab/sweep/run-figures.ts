import { Decimal } from '../../core/index.js';
import type { PairReport } from '../report/index.js';
import type { SweepRunOutcome } from './sweep-job.js';

/** One pair's figures of one run: a row's cells in sweep.csv, sweep.json and sweep.html. */
export interface PairFigures {
  readonly fills: number;
  /** Traded volume, base and quote (exact decimals). */
  readonly volume_base: string;
  readonly volume_quote: string;
  /** PnL split, quote currency: total = spread + inventory - fees. */
  readonly pnl_spread: string;
  readonly pnl_inventory: string;
  readonly pnl_fees: string;
  readonly pnl_total: string;
  /** Total PnL in bps of the quote volume; null without volume. */
  readonly pnl_bps: number | null;
  /** Volume-weighted mean 10 s markout of the fills, bps; null without one. */
  readonly markout_10s_bps: number | null;
  /** Share of the run (0..1) with at least one side quoted. */
  readonly time_at_quote: number;
  /** The matching engine's ratecount, time-weighted mean and peak, in % of the tier's maximum. */
  readonly ratecount_mean_pct: number;
  readonly ratecount_max_pct: number;
  /** Order-entry calls the exchange refused for its rate limits: must be 0. */
  readonly rate_limit_refusals: number;
  /** Order-entry calls the exchange refused for anything else (post-only, funds...). */
  readonly engine_refusals: number;
  /**
   * The live queue estimator against the replayed exchange's exact queue: mean |ahead error| over
   * the level's volume, percent (src/lab/replay/queue-check.ts); null without a sample.
   */
  readonly queue_error: number | null;
  /** Share (0..1) of those samples where other orders rested at ours' price; null without any. */
  readonly queue_shared: number | null;
}

/** One run's figures, its pairs summed where a sum means something. */
export interface RunFigures {
  readonly pairs: Readonly<Record<string, PairFigures>>;
  /** Sum over the pairs (each in its quote currency: a total when they share one). */
  readonly pnl_total: string;
  readonly pnl_bps: number | null;
  readonly rate_limit_refusals: number;
  readonly replayed_ms: number;
  readonly wall_ms: number;
  /** host:pid of the worker that ran it. */
  readonly worker: string;
  /** The run's report.html, relative to the sweep's folder. */
  readonly report: string;
}

const RATE_LIMIT = /rate limit/i;
const MARKOUT_MS = 10_000;

/** A finished run's figures, from its report and the refusals the replay's exchange counted. */
export function runFigures(
  outcome: SweepRunOutcome,
  run: { readonly wallMs: number; readonly worker: string; readonly report: string },
): RunFigures {
  const pairs: Record<string, PairFigures> = {};
  let total = new Decimal(0);
  let volume = new Decimal(0);
  let rateLimited = 0;
  for (const p of outcome.report.pairs) {
    const figures = pairFigures(p, outcome.refusals[p.pair] ?? {});
    pairs[p.pair] = figures;
    total = total.plus(figures.pnl_total);
    volume = volume.plus(figures.volume_quote);
    rateLimited += figures.rate_limit_refusals;
  }
  return {
    pairs,
    pnl_total: total.toFixed(),
    pnl_bps: bpsOf(total, volume),
    rate_limit_refusals: rateLimited,
    replayed_ms: outcome.report.run.simulatedMs,
    wall_ms: Math.round(run.wallMs),
    worker: run.worker,
    report: run.report,
  };
}

function pairFigures(p: PairReport, refusals: Readonly<Record<string, number>>): PairFigures {
  const s = p.summary;
  const markout = p.markouts.all[p.markouts.horizonsMs.indexOf(MARKOUT_MS)] ?? null;
  const max = p.series.ratecountMax;
  let rateLimited = 0;
  let other = 0;
  for (const [error, n] of Object.entries(refusals)) {
    if (RATE_LIMIT.test(error)) rateLimited += n;
    else other += n;
  }
  const queueError = p.queue?.meanPercent;
  return {
    fills: s.fills,
    volume_base: s.volumeBase,
    volume_quote: s.volumeQuote,
    pnl_spread: s.pnl.spread,
    pnl_inventory: s.pnl.inventory,
    pnl_fees: s.pnl.fees,
    pnl_total: s.pnl.total,
    pnl_bps: bpsOf(new Decimal(s.pnl.total), new Decimal(s.volumeQuote)),
    markout_10s_bps: markout,
    time_at_quote: round(s.timeAtQuoteAny, 4),
    ratecount_mean_pct: max > 0 ? round((s.ratecount.mean / max) * 100, 1) : 0,
    ratecount_max_pct: max > 0 ? round((s.ratecount.max / max) * 100, 1) : 0,
    rate_limit_refusals: rateLimited,
    engine_refusals: other,
    queue_error: queueError ?? null,
    queue_shared:
      p.queue === undefined || p.queue.samples === 0
        ? null
        : round(p.queue.shared / p.queue.samples, 4),
  };
}

function bpsOf(pnl: Decimal, volume: Decimal): number | null {
  return volume.isZero() ? null : round(pnl.div(volume).times(10_000).toNumber(), 2);
}

function round(x: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}
