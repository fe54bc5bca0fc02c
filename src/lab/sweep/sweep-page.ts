import { Decimal } from '../../core/index.js';
import { duration, escapeHtml, PAGE_STYLE, percent, utcSpan } from '../report/index.js';
import type { Dimension } from './grid.js';
import { leadPhase, sweepColumns, type Cell, type Column } from './sweep-columns.js';
import type { SweepResults, SweepRow } from './results.js';

/**
 * sweep.html: one self-contained page (no script or style from elsewhere): what was swept, a
 * heatmap of total PnL and of PnL in bps when exactly two dimensions vary, and the results table,
 * sorted by a click on a column's header. Every text from the sweep goes through escapeHtml; each
 * cell carries its exact value in `data-v`, which the sort compares.
 */
export function sweepPage(results: SweepResults): string {
  const title = `Sweep ${results.id}`;
  const varying = results.dimensions.filter((d) => d.values.length > 1);
  const heatmaps =
    varying.length === 2
      ? [
          heatmap(results, varying as [Dimension, Dimension], 'pnl_total', 'Total PnL'),
          heatmap(results, varying as [Dimension, Dimension], 'pnl_bps', 'PnL, bps of volume'),
        ].join('\n')
      : '';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${PAGE_STYLE}${SWEEP_STYLE}</style>
</head>
<body>
<header>
<h1>${escapeHtml(title)}</h1>
<p class="sub">${escapeHtml(summaryLine(results))}</p>
</header>
<main>
<section class="summary">
${refusalWarning(results)}
${heatmaps}
<h2>Runs</h2>
<p class="note">Ranked by ${results.rankBy === 'pnl' ? 'total PnL' : 'PnL in bps of volume'}${results.splitMs === undefined ? '' : ' in sample'}; click a column's header to sort by it. Each run's report: the report column.</p>
${resultsTable(results)}
</section>
</main>
<footer>Written by makerd.</footer>
<script>${SORT_SCRIPT}</script>
</body>
</html>
`;
}

function summaryLine(r: SweepResults): string {
  const runs = r.rows.length;
  const failed = r.rows.filter((row) =>
    Object.values(row.runs).some((run) => run?.status === 'failed'),
  ).length;
  return [
    r.data,
    utcSpan(r.fromMs, r.toMs),
    ...(r.splitMs === undefined
      ? []
      : [
          `in sample to ${new Date(r.splitMs).toISOString().slice(11, 19)} UTC, top ${r.top ?? 0} out of sample`,
        ]),
    `${runs} combination${runs === 1 ? '' : 's'}${failed > 0 ? `, ${failed} failed` : ''}`,
    `${duration(r.wallMs)} with ${r.jobs} local worker${r.jobs === 1 ? '' : 's'}`,
    ...(r.complete ? [] : ['stopped before the end']),
  ].join(' · ');
}

function refusalWarning(r: SweepResults): string {
  const refused = r.rows.filter((row) =>
    Object.values(row.runs).some(
      (run) => run?.status === 'ok' && run.figures.rate_limit_refusals > 0,
    ),
  );
  if (refused.length === 0) return '';
  return `<p class="off">Rate-limit refusals in ${refused.length} run(s): ${escapeHtml(refused.map((row) => row.id).join(', '))}. The bot must never earn one.</p>`;
}

/** Total PnL (or bps) of the lead phase over the two varying dimensions, coloured by sign. */
function heatmap(
  r: SweepResults,
  [down, across]: [Dimension, Dimension],
  figure: 'pnl_total' | 'pnl_bps',
  caption: string,
): string {
  const phase = leadPhase(r);
  const valueAt = (row: SweepRow | undefined): number | null => {
    const run = row?.runs[phase];
    if (run?.status !== 'ok') return null;
    return figure === 'pnl_total'
      ? new Decimal(run.figures.pnl_total).toNumber()
      : run.figures.pnl_bps;
  };
  const find = (a: unknown, b: unknown): SweepRow | undefined =>
    r.rows.find((row) => row.values[down.key] === a && row.values[across.key] === b);
  const all = down.values.flatMap((a) => across.values.map((b) => valueAt(find(a, b))));
  const scale = Math.max(...all.map((v) => Math.abs(v ?? 0)), Number.MIN_VALUE);
  const body = down.values
    .map((a) => {
      const cells = across.values.map((b) => {
        const v = valueAt(find(a, b));
        if (v === null) return '<td class="cell" data-v="">—</td>';
        const alpha = (0.12 + 0.68 * Math.min(1, Math.abs(v) / scale)).toFixed(2);
        const colour = v >= 0 ? `rgba(26,127,55,${alpha})` : `rgba(180,35,24,${alpha})`;
        return `<td class="cell" data-v="${v}" style="background:${colour}">${escapeHtml(v.toFixed(2))}</td>`;
      });
      return `<tr><th scope="row">${escapeHtml(String(a))}</th>${cells.join('')}</tr>`;
    })
    .join('\n');
  return `<h2>${escapeHtml(caption)}${phase === 'full' ? '' : ' (in sample)'}</h2>
<div class="scroll"><table class="grid heatmap" data-heatmap="${figure}">
<thead><tr><th>${escapeHtml(down.key)} \\ ${escapeHtml(across.key)}</th>${across.values.map((b) => `<th scope="col">${escapeHtml(String(b))}</th>`).join('')}</tr></thead>
<tbody>
${body}
</tbody>
</table></div>`;
}

function resultsTable(r: SweepResults): string {
  const columns = sweepColumns(r);
  const head = columns
    .map(
      (c) =>
        `<th scope="col" data-numeric="${c.numeric ? '1' : '0'}" title="sort">${escapeHtml(c.header)}</th>`,
    )
    .join('');
  const rows = r.rows
    .map(
      (row) =>
        `<tr data-id="${escapeHtml(row.id)}">${columns.map((c) => td(c, row)).join('')}</tr>`,
    )
    .join('\n');
  return `<div class="scroll"><table class="grid sortable" data-table="sweep">
<thead><tr>${head}</tr></thead>
<tbody>
${rows}
</tbody>
</table></div>`;
}

function td(column: Column, row: SweepRow): string {
  const value = column.cell(row);
  const raw = value === null ? '' : String(value);
  const shown = display(column, value);
  const text =
    column.header.endsWith('report') && value !== null
      ? `<a href="${escapeHtml(raw)}">report</a>`
      : escapeHtml(shown);
  const flag =
    column.header.endsWith('rate_limit_refusals') && Number(value) > 0 ? ' class="off"' : '';
  const neg = column.numeric && raw.startsWith('-') ? ' class="neg"' : '';
  return `<td data-v="${escapeHtml(raw)}"${flag || neg}>${text}</td>`;
}

function display(column: Column, value: Cell): string {
  if (value === null) return '';
  if (column.header.endsWith('time_at_quote')) return percent(Number(value));
  if (!column.numeric || typeof value !== 'string' || column.header.endsWith('volume_base')) {
    return String(value);
  }
  return Number(value).toFixed(2);
}

const SWEEP_STYLE = `
table.sortable thead th { cursor: pointer; user-select: none; }
table.sortable thead th[data-sort="asc"]::after { content: " ▲"; }
table.sortable thead th[data-sort="desc"]::after { content: " ▼"; }
table.sortable td { white-space: nowrap; }
table.heatmap td.cell { text-align: right; min-width: 5em; }
`;

/**
 * Sorts a table by the clicked column: numbers (data-numeric) as numbers, the rest as text; a
 * second click reverses; empty cells stay last either way.
 */
const SORT_SCRIPT = `
for (const table of document.querySelectorAll('table.sortable')) {
  const heads = Array.from(table.tHead.rows[0].cells);
  heads.forEach((th, col) => {
    th.addEventListener('click', () => {
      const numeric = th.dataset.numeric === '1';
      const dir = th.dataset.sort === (numeric ? 'desc' : 'asc') ? -1 : 1;
      const first = numeric ? -dir : dir;
      heads.forEach((h) => delete h.dataset.sort);
      th.dataset.sort = first === 1 ? 'asc' : 'desc';
      const body = table.tBodies[0];
      const rows = Array.from(body.rows);
      const key = (row) => row.cells[col].dataset.v;
      rows.sort((a, b) => {
        const x = key(a), y = key(b);
        if (x === '' || y === '') return x === y ? 0 : x === '' ? 1 : -1;
        const c = numeric ? Number(x) - Number(y) : x.localeCompare(y);
        return c * first;
      });
      for (const row of rows) body.appendChild(row);
    });
  });
}
`;
