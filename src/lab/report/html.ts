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
${line('Ratecount mean · max', (p) => `<td><span data-pair="${escapeHtml(p.pair)}" data-field="ratecount">${fixed(p.summary.ratecount.mean, 1)} · ${fixed(p.summary.ratecount.max, 1)}</span> <span class="unit">of ${p.series.ratecountMax}</span></td>`)}
</tbody>
</table></div>`;
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
