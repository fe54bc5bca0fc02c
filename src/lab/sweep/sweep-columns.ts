import type { PairFigures, RunFigures } from './run-figures.js';
import { pairsOf, phasesOf, type SweepResults, type SweepRow } from './results.js';
import type { SweepPhase } from './sweep-job.js';

export type Cell = string | number | null;

/** One column of sweep.csv and sweep.html. */
export interface Column {
  readonly header: string;
  /** Sorted as numbers (exact decimals included). */
  readonly numeric: boolean;
  readonly cell: (row: SweepRow) => Cell;
}

/** Every pair figure, in the order the columns show them. */
export const PAIR_FIGURES: readonly (keyof PairFigures)[] = [
  'fills',
  'volume_base',
  'volume_quote',
  'pnl_total',
  'pnl_spread',
  'pnl_inventory',
  'pnl_fees',
  'pnl_bps',
  'markout_10s_bps',
  'time_at_quote',
  'ratecount_mean_pct',
  'ratecount_max_pct',
  'rate_limit_refusals',
  'engine_refusals',
  'queue_error',
  'queue_shared',
];

/**
 * The results' columns: rank, id, the grid's values, then per phase the run's status, its totals
 * and each pair's figures (headed `XBTUSD.fills`, or `in_sample.XBTUSD.fills` with `--split`).
 */
export function sweepColumns(results: SweepResults): Column[] {
  const phases = phasesOf(results);
  const pairs = pairsOf(results.rows);
  const columns: Column[] = [
    { header: 'rank', numeric: true, cell: (r) => r.rank ?? null },
    ...(results.splitMs === undefined
      ? []
      : [
          {
            header: 'out_of_sample.rank',
            numeric: true,
            cell: (r: SweepRow) => r.outOfSampleRank ?? null,
          },
        ]),
    { header: 'id', numeric: false, cell: (r) => r.id },
    ...results.dimensions.map((d) => ({
      header: d.key,
      numeric: d.values.every((v) => typeof v === 'number'),
      cell: (r: SweepRow) => {
        const v = r.values[d.key];
        return v === undefined ? null : typeof v === 'boolean' ? String(v) : v;
      },
    })),
  ];
  for (const phase of phases) {
    const head = (name: string): string => (phase === 'full' ? name : `${phase}.${name}`);
    const figures = (r: SweepRow): RunFigures | undefined => {
      const run = r.runs[phase];
      return run?.status === 'ok' ? run.figures : undefined;
    };
    columns.push(
      { header: head('status'), numeric: false, cell: (r) => r.runs[phase]?.status ?? null },
      {
        header: head('error'),
        numeric: false,
        cell: (r) => {
          const run = r.runs[phase];
          return run?.status === 'failed' ? run.error : null;
        },
      },
      { header: head('pnl_total'), numeric: true, cell: (r) => figures(r)?.pnl_total ?? null },
      { header: head('pnl_bps'), numeric: true, cell: (r) => figures(r)?.pnl_bps ?? null },
      {
        header: head('rate_limit_refusals'),
        numeric: true,
        cell: (r) => figures(r)?.rate_limit_refusals ?? null,
      },
    );
    for (const pair of pairs) {
      for (const key of PAIR_FIGURES) {
        columns.push({
          header: head(`${pair}.${key}`),
          numeric: true,
          cell: (r) => figures(r)?.pairs[pair]?.[key] ?? null,
        });
      }
    }
    columns.push(
      { header: head('wall_ms'), numeric: true, cell: (r) => figures(r)?.wall_ms ?? null },
      { header: head('worker'), numeric: false, cell: (r) => figures(r)?.worker ?? null },
      { header: head('report'), numeric: false, cell: (r) => figures(r)?.report ?? null },
    );
  }
  return columns;
}

/** sweep.csv: a header line, then one line per combination, best first (RFC 4180 quoting). */
export function sweepCsv(results: SweepResults): string {
  const columns = sweepColumns(results);
  const line = (cells: readonly Cell[]): string => cells.map(csvField).join(',');
  return [
    line(columns.map((c) => c.header)),
    ...results.rows.map((row) => line(columns.map((c) => c.cell(row)))),
  ]
    .map((l) => `${l}\r\n`)
    .join('');
}

function csvField(cell: Cell): string {
  if (cell === null) return '';
  const text = String(cell);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** The phase whose figures the summary leads with. */
export function leadPhase(results: SweepResults): SweepPhase {
  return results.splitMs === undefined ? 'full' : 'in_sample';
}
