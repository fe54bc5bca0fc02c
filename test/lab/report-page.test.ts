/**
 * What the report page is built from, without a browser: the chart data stays bounded however
 * long the run and keeps its spikes, text from a recording cannot become markup, and data that
 * would draw a wrong chart is refused with the field named.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { downsample } from '../../src/lab/report/downsample.js';
import { escapeHtml, jsonForScript } from '../../src/lab/report/html.js';
import { MAX_POINTS, pageData } from '../../src/lab/report/page-data.js';
import { checkReport, writeReport, type BacktestReport } from '../../src/lab/report/index.js';
import { FIXTURE_PAIRS, fixtureReport } from './report-fixture.js';

test('a day of 1 s points reaches the page as at most MAX_POINTS per series, peaks kept', () => {
  const day = fixtureReport(86_400, FIXTURE_PAIRS.slice(0, 1));
  const pair = day.pairs[0];
  assert.ok(pair !== undefined);
  const page = pageData(day).pairs[0];
  assert.ok(page !== undefined);
  for (const col of page.cols) assert.ok(col.length <= MAX_POINTS, `${col.length} points`);
  const peak = (xs: readonly (number | null)[]): number =>
    Math.max(...xs.filter((x): x is number => x !== null));
  const trough = (xs: readonly (number | null)[]): number =>
    Math.min(...xs.filter((x): x is number => x !== null));
  // The page keeps eight significant digits.
  const eight = (v: number): number => Number(v.toPrecision(8));
  // cols: time, mid, bid, ask, targetBid, targetAsk, position, spread, inventory, −fees, total, ratecount.
  assert.equal(peak(page.cols[11] ?? []), eight(peak(pair.series.ratecount)));
  assert.equal(trough(page.cols[10] ?? []), eight(trough(pair.series.pnlTotal)));
  assert.equal(page.cols[0]?.[0], (pair.series.tMs[0] as number) / 1000);
  assert.equal(page.cols[0]?.at(-1), (pair.series.tMs.at(-1) as number) / 1000);
});

test('downsample keeps each bucket’s minimum and maximum in the order they came', () => {
  const t = Array.from({ length: 12 }, (_, i) => i);
  const up = [0, 1, 9, 2, 3, 4, 5, 6, -7, 8, 9, 10];
  const gaps = [null, null, null, null, null, null, 1, null, 2, null, null, null];
  const { t: outT, cols } = downsample(t, [up, gaps], 6);
  assert.deepEqual(outT, [0, 3, 4, 7, 8, 11]);
  assert.deepEqual(cols[0], [0, 9, 3, 6, -7, 10]);
  assert.deepEqual(cols[1], [null, null, 1, 1, 2, 2]);
  assert.deepEqual(downsample(t, [up], 12).cols[0], up, 'short series pass unchanged');
});

test('text from a recording is escaped, and the embedded JSON cannot close its element', () => {
  const name = `X<img src=x onerror="alert(1)">'&`;
  assert.equal(escapeHtml(name), 'X&lt;img src=x onerror=&quot;alert(1)&quot;&gt;&#39;&amp;');
  const json = jsonForScript({ pair: '</script><!-- & \u2028' });
  assert.doesNotMatch(json, /[<>&\u2028]/);
  assert.deepEqual(JSON.parse(json), { pair: '</script><!-- & \u2028' });
});

test('a pair name with markup reaches the page only escaped', async () => {
  const data = fixtureReport(120);
  const [first, second] = data.pairs;
  assert.ok(first !== undefined && second !== undefined);
  const evil: BacktestReport = {
    ...data,
    strategy: '<b>bold</b>',
    pairs: [{ ...first, pair: 'XBT<script>alert(1)</script>' }, second],
  };
  const dir = await mkdtemp(join(tmpdir(), 'makerd-report-'));
  try {
    const html = await readFile((await writeReport(dir, evil)).html, 'utf8');
    assert.doesNotMatch(html, /<script>alert|<b>bold/);
    assert.match(html, /XBT&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
    assert.match(html, /"pair":"XBT\\u003cscript\\u003ealert\(1\)\\u003c\/script\\u003e"/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('data that would draw a wrong chart is refused, naming the field', () => {
  const data = fixtureReport(60);
  const [first, second] = data.pairs;
  assert.ok(first !== undefined && second !== undefined);
  const withPair = (pair: typeof first): BacktestReport => ({ ...data, pairs: [pair, second] });
  assert.throws(
    () => checkReport(withPair({ ...first, series: { ...first.series, mid: [1, 2] } })),
    { message: 'report.pairs[0].series.mid: has 2 points, tMs has 60' },
  );
  const back = [...first.series.tMs];
  back[5] = 0;
  assert.throws(() => checkReport(withPair({ ...first, series: { ...first.series, tMs: back } })), {
    message: 'report.pairs[0].series.tMs: goes back in time at point 5',
  });
  const pnl = { ...first.summary.pnl, total: '1e3' };
  assert.throws(() => checkReport(withPair({ ...first, summary: { ...first.summary, pnl } })), {
    message: 'report.pairs[0].summary.pnl.total: must be a decimal string, got "1e3"',
  });
  assert.throws(() => checkReport({ ...data, pairs: [first, first] }), {
    message: 'report.pairs[1].pair: XBTUSD appears twice',
  });
});
