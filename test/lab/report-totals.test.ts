import assert from 'node:assert/strict';
import { test } from 'node:test';
import { inventoryStats, maxDrawdown, quoteTotals } from '../../src/lab/report/index.js';
import { renderPage } from '../../src/lab/report/html.js';
import { pageData } from '../../src/lab/report/page-data.js';
import { FIXTURE_PAIRS, fixtureReport } from './report-fixture.js';

test('the drawdown is the largest fall from an earlier high', () => {
  assert.equal(maxDrawdown([0, 5, 2, 7, 1, 6]), 6);
  assert.equal(maxDrawdown([0, 1, 2]), 0);
  assert.equal(maxDrawdown([]), 0);
});

test('inventory means are weighted by how long each position was held', () => {
  // 0 for 1 s, 2 for 3 s, -1 for 1 s (the last point has no weight).
  const stats = inventoryStats([0, 1000, 4000, 5000], [0, 2, -1, 9]);
  assert.deepEqual(stats, { min: -1, max: 9, mean: (2 * 3 - 1) / 5, meanAbs: (2 * 3 + 1) / 5 });
});

test('pairs sharing a quote currency are summed exactly, with one equity curve', () => {
  const report = fixtureReport(600);
  const [total] = report.totals;
  assert.equal(report.totals.length, 1);
  assert.equal(total?.quote, 'USD');
  assert.deepEqual(total?.pairs, ['XBTUSD', 'ETHUSD']);
  const [a, b] = report.pairs;
  const sum = Number(a?.summary.pnl.total) + Number(b?.summary.pnl.total);
  assert.ok(Math.abs(Number(total?.pnl.total) - sum) < 1e-9);
  assert.ok(
    Math.abs((total?.equity.total.at(-1) ?? 0) - sum) < 1e-6,
    'the curve ends at the total',
  );
  assert.equal(total?.maxDrawdown, maxDrawdown(total?.equity.total ?? []));
  assert.deepEqual(pageData(report).halts, [
    { start: report.halts[0]!.startMs / 1000, end: report.halts[0]!.endMs! / 1000 },
  ]);
});

test('pairs in two quote currencies get a total each, never one across them', () => {
  const eur = { ...FIXTURE_PAIRS[1]!, pair: 'ETHEUR', quote: 'EUR' };
  const report = fixtureReport(120, [FIXTURE_PAIRS[0]!, eur]);
  assert.deepEqual(
    quoteTotals(report.pairs).map((t) => [t.quote, t.pairs]),
    [
      ['USD', ['XBTUSD']],
      ['EUR', ['ETHEUR']],
    ],
  );
  const page = renderPage(report, pageData(report), {
    name: 'x',
    licence: 'MIT',
    script: '',
    style: '',
  });
  assert.match(page, /The pairs quote in USD and EUR: one total per currency, none across them\./);
});
