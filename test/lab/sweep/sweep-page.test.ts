/**
 * The sweep's tables without a browser: ranking, CSV quoting, the page's heatmap and escaping, and
 * its sort script run against a stand-in for the few DOM calls it makes.
 */
import assert from 'node:assert/strict';
import { runInNewContext } from 'node:vm';
import { describe, it } from 'node:test';
import type { RunFigures, SweepResults, SweepRow } from '../../../src/lab/sweep/index.js';
import { rankRows, type RunResult } from '../../../src/lab/sweep/results.js';
import { sweepCsv } from '../../../src/lab/sweep/sweep-columns.js';
import { sweepPage } from '../../../src/lab/sweep/sweep-page.js';

function ok(pnl: string, bps: number | null, refusals = 0): RunResult {
  const figures: RunFigures = {
    pairs: {
      XBTUSD: {
        fills: 10,
        volume_base: '0.1',
        volume_quote: '6000',
        pnl_spread: pnl,
        pnl_inventory: '0',
        pnl_fees: '0',
        pnl_total: pnl,
        pnl_bps: bps,
        markout_10s_bps: -1.5,
        time_at_quote: 0.95,
        ratecount_mean_pct: 40,
        ratecount_max_pct: 80,
        rate_limit_refusals: refusals,
        engine_refusals: 0,
        queue_error: null,
        queue_shared: null,
      },
    },
    pnl_total: pnl,
    pnl_bps: bps,
    rate_limit_refusals: refusals,
    replayed_ms: 60_000,
    wall_ms: 1_000,
    worker: 'host:1',
    report: 'runs/x/report.html',
  };
  return { status: 'ok', figures };
}

const ROWS: SweepRow[] = [
  {
    id: '001',
    values: { strategy: 'a', fees: 'maker 0 %, taker 0.4 %' },
    runs: { full: ok('5', 8.3) },
  },
  { id: '002', values: { strategy: 'a', fees: 'x"<b>' }, runs: { full: ok('-2.5', -4.1) } },
  {
    id: '003',
    values: { strategy: 'b', fees: 'maker 0 %, taker 0.4 %' },
    runs: { full: { status: 'failed', error: 'boom, "badly"' } },
  },
  { id: '004', values: { strategy: 'b', fees: 'x"<b>' }, runs: { full: ok('12.25', 20, 2) } },
];

function results(rows: readonly SweepRow[]): SweepResults {
  return {
    makerd_sweep: 1,
    id: 'abcd1234',
    file: '/s.yaml',
    config: '/bot.yaml',
    data: '/rec',
    fromMs: Date.UTC(2026, 0, 1),
    toMs: Date.UTC(2026, 0, 1, 1),
    rankBy: 'pnl',
    dimensions: [
      { key: 'strategy', values: ['a', 'b'] },
      { key: 'fees', values: ['maker 0 %, taker 0.4 %', 'x"<b>'] },
    ],
    wallMs: 5_000,
    jobs: 2,
    complete: true,
    rows: rankRows(rows, 'full', 'pnl'),
  };
}

/** The page's sort script against stand-ins for the table it sorts. */
function sortable(html: string) {
  const table = /<table class="grid sortable"[\s\S]*?<\/table>/.exec(html)?.[0] ?? '';
  const heads = [...table.matchAll(/<th scope="col" data-numeric="(\d)"[^>]*>([^<]*)<\/th>/g)].map(
    (m) => {
      const listeners: (() => void)[] = [];
      const dataset: Record<string, string | undefined> = { numeric: m[1] };
      return {
        text: m[2] as string,
        dataset,
        addEventListener: (_: string, fn: () => void) => listeners.push(fn),
        click: () => listeners.forEach((fn) => fn()),
      };
    },
  );
  const rows = [...table.matchAll(/<tr data-id="([^"]*)">([\s\S]*?)<\/tr>/g)].map((m) => ({
    id: m[1] as string,
    cells: [...(m[2] as string).matchAll(/<td data-v="([^"]*)"/g)].map((c) => ({
      dataset: {
        v: (c[1] as string)
          .replace(/&quot;/g, '"')
          .replace(/&lt;/g, '<')
          .replace(/&gt;/g, '>')
          .replace(/&amp;/g, '&'),
      },
    })),
  }));
  const body = {
    rows,
    appendChild(row: (typeof rows)[number]) {
      rows.splice(rows.indexOf(row), 1);
      rows.push(row);
    },
  };
  const script = /<script>([\s\S]*?)<\/script>/.exec(html)?.[1] ?? '';
  runInNewContext(script, {
    document: {
      querySelectorAll: () => [{ tHead: { rows: [{ cells: heads }] }, tBodies: [body] }],
    },
  });
  return {
    click: (header: string) => heads.find((h) => h.text === header)?.click(),
    order: () => rows.map((r) => r.id),
    sortedAs: (header: string) => heads.find((h) => h.text === header)?.dataset.sort,
  };
}

describe('sweep results', () => {
  it('ranks by total PnL, runs without a figure last, and out-of-sample among themselves', () => {
    const ranked = rankRows(ROWS, 'full', 'pnl');
    assert.deepEqual(
      ranked.map((r) => [r.id, r.rank]),
      [
        ['004', 1],
        ['001', 2],
        ['002', 3],
        ['003', undefined],
      ],
    );
    const byBps = rankRows(ROWS, 'full', 'pnl_bps');
    assert.deepEqual(
      byBps.map((r) => r.id),
      ['004', '001', '002', '003'],
    );
    const split = rankRows(
      ROWS.map((r) => ({ ...r, runs: { in_sample: r.runs.full as RunResult } })).map((r) =>
        r.id === '001'
          ? { ...r, runs: { ...r.runs, out_of_sample: ok('3', 1) } }
          : r.id === '004'
            ? { ...r, runs: { ...r.runs, out_of_sample: ok('-1', -1) } }
            : r,
      ),
      'in_sample',
      'pnl',
    );
    assert.deepEqual(
      split.map((r) => [r.id, r.rank, r.outOfSampleRank]),
      [
        ['004', 1, 2],
        ['001', 2, 1],
        ['002', 3, undefined],
        ['003', undefined, undefined],
      ],
    );
  });

  it('writes CSV with quoted fields and a column per pair figure', () => {
    const lines = sweepCsv(results(ROWS)).split('\r\n');
    assert.match(
      lines[0] ?? '',
      /^rank,id,strategy,fees,status,error,pnl_total,pnl_bps,rate_limit_refusals,XBTUSD\.fills,/,
    );
    assert.match(lines[1] ?? '', /^1,004,b,"x""<b>",ok,,12\.25,20,2,10,/);
    assert.match(lines[4] ?? '', /^,003,b,"maker 0 %, taker 0\.4 %",failed,"boom, ""badly""",,/);
  });

  it('draws a heatmap over the two varying dimensions and escapes every value', () => {
    const html = sweepPage(results(ROWS));
    const heat =
      /<table class="grid heatmap" data-heatmap="pnl_total">[\s\S]*?<\/table>/.exec(html)?.[0] ??
      '';
    assert.match(
      heat,
      /<th>strategy \\ fees<\/th><th scope="col">maker 0 %, taker 0\.4 %<\/th><th scope="col">x&quot;&lt;b&gt;<\/th>/,
    );
    assert.match(
      heat,
      /<tr><th scope="row">a<\/th><td class="cell" data-v="5" [^>]*>5\.00<\/td><td class="cell" data-v="-2\.5" [^>]*>-2\.50<\/td><\/tr>/,
    );
    assert.match(
      heat,
      /<tr><th scope="row">b<\/th><td class="cell" data-v="">—<\/td><td class="cell" data-v="12\.25" /,
    );
    assert.doesNotMatch(html, /x"<b>/);
    assert.match(html, /Rate-limit refusals in 1 run\(s\): 004/);
    const oneVaries: SweepResults = {
      ...results(ROWS),
      dimensions: [
        { key: 'strategy', values: ['a'] },
        { key: 'fees', values: ['maker 0 %, taker 0.4 %', 'x"<b>'] },
      ],
    };
    assert.doesNotMatch(sweepPage(oneVaries), /data-heatmap/);
  });

  it('sorts the table by the clicked column: numbers high first, then low; empty cells last', () => {
    const table = sortable(sweepPage(results(ROWS)));
    assert.deepEqual(table.order(), ['004', '001', '002', '003']);
    table.click('pnl_bps');
    assert.equal(table.sortedAs('pnl_bps'), 'desc');
    assert.deepEqual(table.order(), ['004', '001', '002', '003']);
    table.click('pnl_bps');
    assert.equal(table.sortedAs('pnl_bps'), 'asc');
    assert.deepEqual(table.order(), ['002', '001', '004', '003']);
    table.click('id');
    assert.deepEqual(table.order(), ['001', '002', '003', '004']);
    table.click('id');
    assert.deepEqual(table.order(), ['004', '003', '002', '001']);
    table.click('fees');
    assert.deepEqual(table.order().slice(0, 2).sort(), ['001', '003']);
  });
});
