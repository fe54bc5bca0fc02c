import {
  differencePct,
  duration,
  fixed,
  horizon,
  percent,
  signedPct,
  speed,
  utcSpan,
  utcTime,
} from './figures.js';
import type { PageData } from './page-data.js';
import { PAGE_SCRIPT } from './page-script.js';
import { PAGE_STYLE } from './page-style.js';
import type { BacktestReport, DataProblem, Fidelity, PairReport } from './report-data.js';

/** The charting library's code and stylesheet, inlined so that the page needs no network. */
export interface ChartLibrary {
  readonly name: string;
  readonly licence: string;
  readonly script: string;
  readonly style: string;
}

/**
 * The whole page. Every text that came from the data (a recording's pair names, a problem's
 * text, the strategy's name) goes through escapeHtml; the chart data rides as JSON in a
 * non-executed script element, with `<` escaped so it cannot close that element.
 */
export function renderPage(data: BacktestReport, page: PageData, lib: ChartLibrary): string {
  const pairs = data.pairs.map((p) => p.pair).join(', ');
  const title = `Backtest: ${data.strategy} on ${pairs}`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${inline(lib.style, 'style')}</style>
<style>${PAGE_STYLE}</style>
</head>
<body>
<header>
<h1>Backtest: ${escapeHtml(data.strategy)}</h1>
<p class="sub">${escapeHtml(pairs)} · ${escapeHtml(utcTime(data.run.fromMs))} to ${escapeHtml(utcTime(data.run.toMs))}</p>
</header>
<main>
<section class="summary">
<h2>Run</h2>
${runTable(data)}
${problemsList(data.run.problems)}
${haltsList(data.halts)}
<h2>Total</h2>
${totalsTable(data)}
<h2>Pairs</h2>
${pairsTable(data.pairs)}
${data.fidelity === undefined ? '' : fidelityTable(data.fidelity)}
</section>
${data.pairs.map(pairSection).join('\n')}
</main>
<footer>Written by makerd. Charts drawn with ${escapeHtml(lib.name)} (${escapeHtml(lib.licence)} licence), included in this file.</footer>
<script>${inline(lib.script, 'script')}</script>
<script type="application/json" id="report-data">${jsonForScript(page)}</script>
<script>${PAGE_SCRIPT}</script>
</body>
</html>
`;
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ENTITIES[c] as string);
}

const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** JSON that cannot end its script element or open a comment: <, > and & as \u escapes. */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** A library file inlined as is; one that could close its element would break the page. */
function inline(code: string, element: 'script' | 'style'): string {
  if (code.toLowerCase().includes(`</${element}`)) {
    throw new Error(`the charting library's ${element} contains </${element}: cannot inline it`);
  }
  return code;
}

function row(label: string, value: string): string {
  return `<tr><th scope="row">${escapeHtml(label)}</th><td>${value}</td></tr>`;
}

function runTable(data: BacktestReport): string {
  const r = data.run;
  const problems = r.problems.length === 0 ? 'none' : `${r.problems.length} (listed below)`;
  return `<table class="kv" data-table="run">
${row('Strategy', escapeHtml(data.strategy))}
${row('Data', `<code>${escapeHtml(r.dataDir)}</code>`)}
${row('From', escapeHtml(utcTime(r.fromMs)))}
${row('To', escapeHtml(utcTime(r.toMs)))}
${row('Simulated', `<span data-field="simulated">${escapeHtml(duration(r.simulatedMs))}</span>`)}
${row('Replay took', `${escapeHtml(duration(r.wallMs))}, <span data-field="speed">${escapeHtml(speed(r.simulatedMs, r.wallMs))}</span>`)}
${row('Data problems', `<span data-field="problems">${problems}</span>`)}
${row('Halts', `<span data-field="halts">${data.halts.length === 0 ? 'none' : `${data.halts.length} (listed below)`}</span>`)}
${row('Strategy errors', `<span data-field="strategy-errors">${r.strategyErrors}</span>`)}
${row('Config', `<code>${escapeHtml(data.settings.config)}</code>`)}
${row('Latency', `<span data-field="latency">${data.settings.latencyMs} ms</span> a call (${escapeHtml(data.settings.latencyFrom)})`)}
${row('Queue rule', `<span data-field="queue-rule">${escapeHtml(data.settings.queueRule)}</span>`)}
${row('Fees at the start', escapeHtml(data.settings.fees.map((f) => `${f.pair}: maker ${f.makerPct} %, taker ${f.takerPct} %`).join('; ') + ` (30-day volume ${data.settings.fees[0]?.volumeUsd ?? '0'} USD)`))}
</table>`;
}

function problemsList(problems: readonly DataProblem[]): string {
  if (problems.length === 0) return '';
  const items = problems.map((p) => {
    const where = [p.pair ?? 'all pairs'];
    if (p.fromMs !== undefined) where.push(utcSpan(p.fromMs, p.toMs ?? p.fromMs));
    return (
      `<li><b>${escapeHtml(p.kind)}</b> <span class="unit">${escapeHtml(where.join(', '))}</span>` +
      `<br><span class="what">${escapeHtml(p.text)}</span></li>`
    );
  });
  return `<ul class="problems" data-table="problems">\n${items.join('\n')}\n</ul>`;
}

function haltsList(halts: BacktestReport['halts']): string {
  if (halts.length === 0) return '';
  const items = halts.map((h) => {
    const cancelled =
      typeof h.cancelled === 'number' ? `${h.cancelled} order(s) cancelled` : h.cancelled;
    const span =
      h.endMs === null ? `${utcTime(h.startMs)} to the end` : utcSpan(h.startMs, h.endMs);
    return (
      `<li><b>halt</b> <span class="unit">${escapeHtml(span)}, by ${escapeHtml(h.by)}</span>` +
      `<br><span class="what">${escapeHtml(h.reason)}; ${escapeHtml(cancelled)}</span></li>`
    );
  });
  return `<ul class="problems" data-table="halts">\n${items.join('\n')}\n</ul>`;
}

/** The pairs summed per quote currency, each with its equity curve. */
function totalsTable(data: BacktestReport): string {
  const totals = data.totals;
  const note =
    totals.length > 1
      ? `<p class="note">The pairs quote in ${escapeHtml(totals.map((t) => t.quote).join(' and '))}: one total per currency, none across them.</p>`
      : '';
  const cell = (quote: string, field: string, value: string, unit = ''): string =>
    `<td><span data-quote="${escapeHtml(quote)}" data-field="${field}"${signClass(value)}>${escapeHtml(value)}</span>` +
    `${unit === '' ? '' : ` <span class="unit">${escapeHtml(unit)}</span>`}</td>`;
  const line = (label: string, cells: (t: (typeof totals)[number]) => string): string =>
    `<tr><th scope="row">${escapeHtml(label)}</th>${totals.map(cells).join('')}</tr>`;
  const charts = totals.map(
    (t, i) =>
      `<figure class="chart chart-equity" data-chart="equity" data-index="${i}"><figcaption>Equity: PnL total of ${escapeHtml(t.pairs.join(', '))} (${escapeHtml(t.quote)}); halts shaded</figcaption><div class="plot"></div></figure>`,
  );
  return `<div class="scroll"><table class="grid" data-table="totals">
<thead><tr><th></th>${totals.map((t) => `<th scope="col">${escapeHtml(t.quote)}</th>`).join('')}</tr></thead>
<tbody>
${line('Pairs', (t) => `<td>${escapeHtml(t.pairs.join(', '))}</td>`)}
${line('PnL total', (t) => cell(t.quote, 'total-pnl', t.pnl.total, t.quote))}
${line('· spread capture', (t) => cell(t.quote, 'total-spread', t.pnl.spread))}
${line('· inventory', (t) => cell(t.quote, 'total-inventory', t.pnl.inventory))}
${line('· fees paid', (t) => cell(t.quote, 'total-fees', t.pnl.fees))}
${line('Volume', (t) => cell(t.quote, 'total-volume', t.volumeQuote, t.quote))}
${line('PnL per volume', (t) => cell(t.quote, 'total-pnl-bps', fixed(t.pnlPerVolumeBps, 2), 'bps'))}
${line('Maximum drawdown', (t) => cell(t.quote, 'total-drawdown', t.maxDrawdown.toFixed(2), t.quote))}
</tbody>
</table></div>
${note}
<div class="charts">
${charts.join('\n')}
</div>`;
}

/** One row per figure, one column per pair: reads well on a phone for a few pairs. */
function pairsTable(pairs: readonly PairReport[]): string {
  // One quote currency for all pairs (the usual case) goes in the row label, not in every cell.
  const quotes = new Set(pairs.map((p) => p.quote));
  const shared = quotes.size === 1 ? ` (${[...quotes][0] as string})` : '';
  const quoteUnit = (p: PairReport): string => (shared === '' ? p.quote : '');
  const cell = (p: PairReport, field: string, value: string, unit = ''): string =>
    `<td><span data-pair="${escapeHtml(p.pair)}" data-field="${field}"${signClass(value)}>` +
    `${escapeHtml(value)}</span>${unit === '' ? '' : ` <span class="unit">${escapeHtml(unit)}</span>`}</td>`;
  const line = (label: string, cells: (p: PairReport) => string): string =>
    `<tr><th scope="row">${escapeHtml(label)}</th>${pairs.map(cells).join('')}</tr>`;
  const horizons = pairs[0]?.markouts.horizonsMs ?? [];
  const markoutLines = horizons.map((h, i) =>
    line(`· ${horizon(h)}`, (p) => {
      const m = p.markouts;
      const v = (side: 'all' | 'buy' | 'sell'): string => fixed(m[side][i] ?? null, 2);
      return (
        `<td><span data-pair="${escapeHtml(p.pair)}" data-field="markout-${h}"${signClass(v('all'))}>` +
        `${escapeHtml(v('all'))}</span> <span class="unit">${escapeHtml(v('buy'))} · ${escapeHtml(v('sell'))}</span></td>`
      );
    }),
  );
  return `<div class="scroll"><table class="grid" data-table="pairs">
<thead><tr><th></th>${pairs.map((p) => `<th scope="col">${escapeHtml(p.pair)}</th>`).join('')}</tr></thead>
<tbody>
${line('Fills', (p) => cell(p, 'fills', String(p.summary.fills)))}
${line('Buys · sells', (p) => `<td>${p.summary.buys} · ${p.summary.sells}</td>`)}
${line('Volume', (p) => cell(p, 'volume-base', p.summary.volumeBase, p.base))}
${line(`Volume${shared}`, (p) => cell(p, 'volume-quote', p.summary.volumeQuote, quoteUnit(p)))}
${line(`PnL total${shared}`, (p) => cell(p, 'pnl-total', p.summary.pnl.total, quoteUnit(p)))}
${line('· spread capture', (p) => cell(p, 'pnl-spread', p.summary.pnl.spread, quoteUnit(p)))}
${line('· inventory', (p) => cell(p, 'pnl-inventory', p.summary.pnl.inventory, quoteUnit(p)))}
${line('· fees paid', (p) => cell(p, 'pnl-fees', p.summary.pnl.fees, quoteUnit(p)))}
${line('Markout, bps: all (buy · sell)', () => '<td></td>')}
${markoutLines.join('\n')}
${line('Fill rate', (p) => cell(p, 'fill-rate', fixed(p.summary.fillRatePerHour, 1), 'per hour'))}
${line('Time at quote (both sides)', (p) => cell(p, 'time-at-quote', percent(p.summary.timeAtQuote)))}
${line('Time at quote (either side)', (p) => cell(p, 'time-at-quote-any', percent(p.summary.timeAtQuoteAny)))}
${line('Quote distance to target', (p) => cell(p, 'quote-distance', fixed(p.summary.quoteDistanceBps, 2), 'bps'))}
${line('PnL per volume', (p) => cell(p, 'pnl-bps', fixed(p.summary.pnlPerVolumeBps, 2), 'bps'))}
${line(`Maximum drawdown${shared}`, (p) => cell(p, 'drawdown', p.summary.maxDrawdown.toFixed(2), quoteUnit(p)))}
${line('Inventory min · max', (p) => `<td><span data-pair="${escapeHtml(p.pair)}" data-field="inventory-range">${num(p.summary.inventory.min)} · ${num(p.summary.inventory.max)}</span> <span class="unit">${escapeHtml(p.base)}</span></td>`)}
${line('Inventory mean · mean |abs|', (p) => `<td><span data-pair="${escapeHtml(p.pair)}" data-field="inventory-mean">${num(p.summary.inventory.mean)} · ${num(p.summary.inventory.meanAbs)}</span> <span class="unit">${escapeHtml(p.base)}, by time</span></td>`)}
${line('Orders · edits · cancels', (p) => `<td><span data-pair="${escapeHtml(p.pair)}" data-field="order-entry">${p.summary.orderEntry.orders} · ${p.summary.orderEntry.edits} · ${p.summary.orderEntry.cancels}</span></td>`)}
${line('Strategy errors', (p) => `<td><span data-pair="${escapeHtml(p.pair)}" data-field="strategy-errors">${p.summary.strategy.errors}</span> <span class="unit">of ${p.summary.strategy.ticks} ticks</span></td>`)}
${line('Ratecount mean · max', (p) => `<td><span data-pair="${escapeHtml(p.pair)}" data-field="ratecount">${fixed(p.summary.ratecount.mean, 1)} · ${fixed(p.summary.ratecount.max, 1)}</span> <span class="unit">of ${p.series.ratecountMax}</span></td>`)}
</tbody>
</table></div>`;
}

/** A base amount without float noise. */
function num(value: number): string {
  return escapeHtml(String(Number(value.toPrecision(8))));
}

function signClass(value: string): string {
  return value.startsWith('-') ? ' class="neg"' : '';
}

function fidelityTable(f: Fidelity): string {
  const metrics = [
    ['Fills', (x: Fidelity['rows'][number]['live']) => String(x.fills)],
    ['Volume', (x: Fidelity['rows'][number]['live']) => x.volume],
    ['Realized PnL', (x: Fidelity['rows'][number]['live']) => x.realizedPnl],
  ] as const;
  const rows = f.rows.flatMap((r) =>
    metrics.map(([name, get]) => {
      const diff = differencePct(get(r.live), get(r.replay));
      const ok = diff !== undefined && Math.abs(diff) <= f.tolerancePct;
      return (
        `<tr><td>${escapeHtml(r.pair)}</td><td>${name}</td><td>${escapeHtml(get(r.live))}</td>` +
        `<td>${escapeHtml(get(r.replay))}</td>` +
        `<td class="${ok ? 'ok' : 'off'}">${escapeHtml(signedPct(diff))}${ok ? '' : ' (outside)'}</td></tr>`
      );
    }),
  );
  return `<h2>Fidelity: live vs replay</h2>
<p class="sub">Live: ${escapeHtml(f.live)}. Aim: within ${escapeHtml(String(f.tolerancePct))} %.</p>
<div class="scroll"><table class="grid" data-table="fidelity">
<thead><tr><th>Pair</th><th>Figure</th><th>Live</th><th>Replay</th><th>Difference</th></tr></thead>
<tbody>${rows.join('\n')}</tbody>
</table></div>
<p class="note">${escapeHtml(f.note)}</p>`;
}

const CHARTS = [
  ['price', 'Mid and our quotes; fills: <b class="buy">▲ buy</b> <b class="sell">▼ sell</b>'],
  ['position', 'Inventory (position)'],
  ['pnl', 'Cumulative PnL by component'],
  ['markouts', 'Markouts: mean after a fill, by horizon (bps)'],
  ['ratecount', 'Ratecount against its maximum'],
] as const;

function pairSection(p: PairReport, index: number): string {
  const figures = CHARTS.map(
    ([kind, caption]) =>
      `<figure class="chart chart-${kind}" data-chart="${kind}"><figcaption>${caption}</figcaption><div class="plot"></div></figure>`,
  );
  return `<section class="pair" data-pair="${escapeHtml(p.pair)}" data-index="${index}">
<h2>${escapeHtml(p.pair)} <span class="sub">${escapeHtml(p.base)}/${escapeHtml(p.quote)} · ${p.summary.fills} fills</span></h2>
<div class="charts">
${figures.join('\n')}
</div>
</section>`;
}
