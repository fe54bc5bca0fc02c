import { LATENCY_FROM, type BacktestResult } from '../lab/backtest-run.js';
import type { BacktestReport } from '../lab/report/index.js';

/**
 * What `makerd backtest` prints at the end: per pair the PnL split and the exchange's view, the
 * totals per quote currency, the risk and activity figures, halts, strategy errors and the
 * settings the run used.
 */
export function summaryTable(r: BacktestResult, report: BacktestReport): string {
  const pnlRows = [
    [
      'pair',
      'fills',
      'volume',
      'notional',
      'spread',
      'inventory',
      'fees',
      'pnl',
      'ratecount max',
      'refusals',
      'queue error',
    ],
    ...r.pairs.map((p) => [
      p.pair,
      String(p.fills),
      p.volume,
      round(p.notional),
      round(p.pnl.spread),
      round(p.pnl.inventory),
      round(p.pnl.fees),
      round(p.pnl.total),
      String(p.ratecountMax),
      String(Object.values(p.refusals).reduce((a, b) => a + b, 0)),
      queueError(r.reports.find((x) => x.pair === p.pair)?.queue?.meanPercent),
    ]),
    ...(report.pairs.length < 2
      ? []
      : report.totals.map((t) => [
          `total ${t.quote}`,
          String(
            report.pairs
              .filter((p) => p.quote === t.quote)
              .reduce((s, p) => s + p.summary.fills, 0),
          ),
          '',
          round(t.volumeQuote),
          round(t.pnl.spread),
          round(t.pnl.inventory),
          round(t.pnl.fees),
          round(t.pnl.total),
          '',
          '',
          '',
        ])),
  ];
  const riskRows = [
    [
      'pair',
      'pnl/volume',
      'max drawdown',
      'inventory min',
      'max',
      'mean',
      'mean |abs|',
      'orders',
      'edits',
      'cancels',
      'strategy errors',
    ],
    ...report.pairs.map((p) => {
      const s = p.summary;
      return [
        p.pair,
        bps(s.pnlPerVolumeBps),
        s.maxDrawdown.toFixed(2),
        fixed(s.inventory.min),
        fixed(s.inventory.max),
        fixed(s.inventory.mean),
        fixed(s.inventory.meanAbs),
        String(s.orderEntry.orders),
        String(s.orderEntry.edits),
        String(s.orderEntry.cancels),
        `${s.strategy.errors} of ${s.strategy.ticks}`,
      ];
    }),
    ...(report.pairs.length < 2
      ? []
      : report.totals.map((t) => [
          `total ${t.quote}`,
          bps(t.pnlPerVolumeBps),
          t.maxDrawdown.toFixed(2),
          ...Array<string>(8).fill(''),
        ])),
  ];
  const span = r.endMs - r.startMs;
  const quotes = report.totals.map((t) => t.quote);
  const lines = [
    table(pnlRows),
    `pnl = spread + inventory - fees (quote currency, marked at the last mid); queue error: the ` +
      `estimator's |ahead - exact| over the level's volume, mean`,
    table(riskRows),
    `pnl/volume: total pnl over the quote volume traded (bps); max drawdown: the largest fall of ` +
      `the pnl total from an earlier high; inventory in base, means weighted by time; orders, ` +
      `edits, cancels: as the replayed exchange received them`,
    ...(quotes.length > 1
      ? [`the pairs quote in ${quotes.join(' and ')}: one total per currency, none across them`]
      : []),
    ...report.halts.map(
      (h) =>
        `halt at ${iso(h.startMs)}${h.endMs === null ? ' (to the end)' : ` to ${iso(h.endMs)}`}: ` +
        `${h.reason} (by ${h.by}); CancelAll: ${typeof h.cancelled === 'number' ? `${h.cancelled} order(s) cancelled` : h.cancelled}`,
    ),
    `replayed ${formatDuration(span)} (${iso(r.startMs)} .. ${iso(r.endMs)}) ` +
      `in ${formatDuration(r.wallMs)}: ${(span / Math.max(1, r.wallMs)).toFixed(0)}x real time, ` +
      `${r.events} events, latency ${r.latencyMs} ms a call (${LATENCY_FROM[r.latencyFrom]})`,
    `fees at the start: ${r.fees.map((f) => `${f.pair} maker ${f.makerPct} %, taker ${f.takerPct} %`).join('; ')} ` +
      `(30-day volume ${r.fees[0]?.volumeUsd ?? '0'} USD); queue rule ${r.queueRule}; config ${report.settings.config}`,
  ];
  return `${lines.join('\n')}\n`;
}

export function formatDuration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

function table(rows: readonly (readonly string[])[]): string {
  const widths =
    rows[0]?.map((_, i) => Math.max(...rows.map((row) => (row[i] ?? '').length))) ?? [];
  return rows
    .map((row) =>
      row
        .map((cell, i) => cell.padEnd(widths[i] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

function queueError(percent: number | null | undefined): string {
  return percent === null || percent === undefined ? '-' : `${percent.toFixed(1)} %`;
}

function bps(value: number | null): string {
  return value === null ? '-' : `${value.toFixed(2)} bps`;
}

/** Base amounts: as many decimals as a lot has, without float noise. */
function fixed(value: number): string {
  return String(Number(value.toPrecision(8)));
}

function round(text: string): string {
  return Number(text).toFixed(2);
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}
