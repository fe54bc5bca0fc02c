import { Decimal } from '../../core/index.js';
import type { Dimension, SweepValue } from './grid.js';
import type { RunFigures } from './run-figures.js';
import type { RankBy } from './sweep-file.js';
import type { SweepPhase } from './sweep-job.js';

/** How one run of a combination went. */
export type RunResult =
  | { readonly status: 'ok'; readonly figures: RunFigures }
  | { readonly status: 'failed'; readonly error: string }
  | { readonly status: 'not run' };

/** One combination: its values, rank and runs (one, or in-sample and out-of-sample). */
export interface SweepRow {
  readonly id: string;
  readonly values: Readonly<Record<string, SweepValue>>;
  /** 1 = best by the rank figure of the ranked phase; undefined when that run did not succeed. */
  readonly rank?: number;
  /** Among the top settings run out of sample: their rank there (`--split`). */
  readonly outOfSampleRank?: number;
  readonly runs: Readonly<Partial<Record<SweepPhase, RunResult>>>;
}

/** sweep.json: what was swept and every combination's results, best first. */
export interface SweepResults {
  readonly makerd_sweep: 1;
  readonly id: string;
  readonly file: string;
  readonly config: string;
  readonly data: string;
  /** The recording's span, and where `--split` cut it. */
  readonly fromMs: number;
  readonly toMs: number;
  readonly splitMs?: number;
  readonly top?: number;
  readonly rankBy: RankBy;
  readonly dimensions: readonly Dimension[];
  readonly wallMs: number;
  /** Local worker processes (others may have joined). */
  readonly jobs: number;
  /** False when the sweep was stopped before every run finished. */
  readonly complete: boolean;
  readonly rows: readonly SweepRow[];
}

/** The phase that ranks: the whole recording, or its first part with `--split`. */
export function rankedPhase(split: boolean): SweepPhase {
  return split ? 'in_sample' : 'full';
}

/** The figure a run is ranked by (higher is better); undefined when it has none. */
export function rankFigure(run: RunResult | undefined, by: RankBy): number | undefined {
  if (run?.status !== 'ok') return undefined;
  if (by === 'pnl') return new Decimal(run.figures.pnl_total).toNumber();
  return run.figures.pnl_bps ?? undefined;
}

/**
 * The rows best first by `by` in `phase` (ties in grid order), unranked ones (failed, not run,
 * no figure) last; with out-of-sample runs, each of those ranked among themselves too.
 */
export function rankRows(rows: readonly SweepRow[], phase: SweepPhase, by: RankBy): SweepRow[] {
  const scored = rows.map((row, i) => ({ row, i, score: rankFigure(row.runs[phase], by) }));
  scored.sort((a, b) => {
    if (a.score === undefined || b.score === undefined) {
      return a.score === b.score ? a.i - b.i : a.score === undefined ? 1 : -1;
    }
    return b.score - a.score || a.i - b.i;
  });
  const outside = scored
    .map(({ row }) => ({ id: row.id, score: rankFigure(row.runs.out_of_sample, by) }))
    .filter((s): s is { id: string; score: number } => s.score !== undefined)
    .sort((a, b) => b.score - a.score);
  return scored.map(({ row, score }, i) => {
    const { rank: _rank, outOfSampleRank: _oos, ...rest } = row;
    const oos = outside.findIndex((s) => s.id === row.id);
    return {
      ...rest,
      ...(score === undefined ? {} : { rank: i + 1 }),
      ...(oos < 0 ? {} : { outOfSampleRank: oos + 1 }),
    };
  });
}

/** The pairs any run of the sweep traded, in first-seen order (the table's column groups). */
export function pairsOf(rows: readonly SweepRow[]): string[] {
  const pairs: string[] = [];
  for (const row of rows) {
    for (const run of Object.values(row.runs)) {
      if (run?.status !== 'ok') continue;
      for (const pair of Object.keys(run.figures.pairs))
        if (!pairs.includes(pair)) pairs.push(pair);
    }
  }
  return pairs;
}

/** The phases the sweep ran, in order. */
export function phasesOf(results: SweepResults): SweepPhase[] {
  return results.splitMs === undefined ? ['full'] : ['in_sample', 'out_of_sample'];
}
