import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Decimal } from '../../core/index.js';
import { duration } from '../report/index.js';
import type { RunResult, SweepResults, SweepRow } from './results.js';
import { sweepCsv } from './sweep-columns.js';
import { sweepPage } from './sweep-page.js';

export interface SweepFiles {
  readonly csv: string;
  readonly json: string;
  readonly html: string;
}

/** Writes sweep.csv, sweep.json and sweep.html into the sweep's folder. */
export async function writeSweepResults(dir: string, results: SweepResults): Promise<SweepFiles> {
  await mkdir(dir, { recursive: true });
  const files = {
    csv: join(dir, 'sweep.csv'),
    json: join(dir, 'sweep.json'),
    html: join(dir, 'sweep.html'),
  };
  await writeFile(files.csv, sweepCsv(results));
  await writeFile(files.json, `${JSON.stringify(results, null, 2)}\n`);
  await writeFile(files.html, sweepPage(results));
  return files;
}

/** Rows the printed summary shows; sweep.csv and sweep.html have them all. */
const PRINTED_ROWS = 20;

/**
 * The summary on stdout: the best combinations with the values that vary, total PnL, PnL in bps,
 * fills and rate-limit refusals; with `--split`, in-sample and out-of-sample side by side.
 */
export function sweepSummary(r: SweepResults): string {
  const split = r.splitMs !== undefined;
  const varying = r.dimensions.filter((d) => d.values.length > 1).map((d) => d.key);
  const keys = varying.length > 0 ? varying : r.dimensions.map((d) => d.key);
  const shown = split
    ? r.rows.filter((row) => row.runs.out_of_sample !== undefined)
    : r.rows.slice(0, PRINTED_ROWS);
  const phases = split ? (['in_sample', 'out_of_sample'] as const) : (['full'] as const);
  const header = [
    'rank',
    'id',
    ...keys,
    ...phases.flatMap((p) => {
      const tag = p === 'full' ? '' : p === 'in_sample' ? 'in-sample ' : 'out-of-sample ';
      return [`${tag}pnl`, `${tag}bps`, `${tag}fills`, `${tag}refusals`];
    }),
    ...(split ? ['out-of-sample rank'] : []),
  ];
  const lines = shown.map((row) => [
    row.rank === undefined ? '-' : String(row.rank),
    row.id,
    ...keys.map((k) => String(row.values[k] ?? '')),
    ...phases.flatMap((p) => runCells(row.runs[p])),
    ...(split ? [row.outOfSampleRank === undefined ? '-' : String(row.outOfSampleRank)] : []),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => (l[i] ?? '').length)));
  const text = [header, ...lines]
    .map((cells) =>
      cells
        .map((c, i) => c.padEnd(widths[i] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
  const failed = r.rows.filter((row) => failures(row).length > 0);
  const notes = [
    ...(split
      ? [
          `ranked on the first part of the recording (to ${new Date(r.splitMs ?? 0).toISOString()}); ` +
            `the top ${shown.length} replayed on the rest: a setting that leads in sample and falls back out of sample is fitted to noise`,
        ]
      : r.rows.length > shown.length
        ? [`the best ${shown.length} of ${r.rows.length}; every combination is in sweep.csv`]
        : []),
    `pnl = spread + inventory - fees, summed over the pairs (quote currency); ranked by ${r.rankBy}`,
    ...failed.map((row) => `run ${row.id} failed: ${failures(row).join('; ')}`),
    ...(r.complete ? [] : ['the sweep was stopped: runs not finished are listed as "not run"']),
    `${r.rows.length} combination(s) in ${duration(r.wallMs)} with ${r.jobs} local worker(s)`,
  ];
  return `${text}\n${notes.join('\n')}\n`;
}

function runCells(run: RunResult | undefined): string[] {
  if (run === undefined) return ['', '', '', ''];
  if (run.status !== 'ok') return [run.status, '', '', ''];
  const f = run.figures;
  const fills = Object.values(f.pairs).reduce((n, p) => n + p.fills, 0);
  const refusals = f.rate_limit_refusals > 0 ? `${f.rate_limit_refusals} (!)` : '0';
  return [
    new Decimal(f.pnl_total).toFixed(2),
    f.pnl_bps === null ? '-' : f.pnl_bps.toFixed(2),
    String(fills),
    refusals,
  ];
}

function failures(row: SweepRow): string[] {
  return Object.entries(row.runs).flatMap(([phase, run]) =>
    run?.status === 'failed' ? [`${phase}: ${run.error}`] : [],
  );
}
