import { HORIZONS_S, type MarkoutRow, type Mean } from './markouts.js';

export type Rows = [label: string, cells: string[]][];

export function printTable(title: string, columns: readonly string[], rows: Rows): void {
  const width = Math.max(...rows.map(([label]) => label.length));
  const widths = columns.map((c, i) =>
    Math.max(c.length, ...rows.map(([, r]) => (r[i] ?? '').length)),
  );
  const line = (label: string, cells: readonly string[]) =>
    `${label.padEnd(width)}  ${cells.map((c, i) => c.padStart(widths[i] ?? 0)).join('  ')}`;
  console.log(`\n${title}`);
  console.log(line('', columns));
  for (const [label, cells] of rows) console.log(line(label, cells));
}

export function fmtMean(m: Mean): string {
  if (m.count === 0) return '-';
  return `${m.mean >= 0 ? '+' : ''}${m.mean.toFixed(2)} (${m.count})`;
}

/** Rows `<prefix> fills` and `<prefix> markout N s` for one MarkoutRow per column. */
export function markoutRows(prefix: string, cols: readonly MarkoutRow[]): Rows {
  return [
    [`${prefix} fills`, cols.map((c) => String(c.fills))],
    ...HORIZONS_S.map((h, i): [string, string[]] => [
      `${prefix} markout ${h} s, bps (n)`,
      cols.map((c) => fmtMean(c.byHorizon[i] as Mean)),
    ]),
  ];
}
