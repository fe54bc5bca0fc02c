/**
 * The backtest report in a real browser: Debian's chromium driven by playwright-core opens
 * report.html from file:// with every network request refused, and the test reads what a person
 * would see: the charts drawn, the run's figures in the tables, the page fitting a phone. Skips
 * without /usr/bin/chromium unless MAKERD_REQUIRE_TOOLS=1 makes that a failure.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { colouredPixels, launchChromium, needBrowser } from '../support/chromium.js';
import { writeReport } from '../../src/lab/report/index.js';
import { fixtureReport } from './report-fixture.js';

const CHART_KINDS = ['price', 'position', 'pnl', 'markouts', 'ratecount'];

const data = fixtureReport();
let dir: string;
let reportUrl: string;
let browser: Browser | undefined;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'makerd-report-'));
  reportUrl = pathToFileURL((await writeReport(dir, data)).html).href;
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  // Kept when asked, to look at the screenshots.
  if (process.env.MAKERD_KEEP_REPORT !== '1') await rm(dir, { recursive: true, force: true });
});

interface Opened {
  readonly page: Page;
  /** Console errors, page errors and failed requests, as they happened. */
  readonly problems: string[];
  /** Requests for anything not under file://, each refused. */
  readonly network: string[];
}

async function open(b: Browser, width: number, height: number): Promise<Opened> {
  const context = await b.newContext({ viewport: { width, height } });
  const page = await context.newPage();
  const problems: string[] = [];
  const network: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()}`));
  await page.route('**/*', async (route) => {
    const url = route.request().url();
    if (url.startsWith('file://')) return route.continue();
    network.push(url);
    return route.abort('blockedbyclient');
  });
  await page.goto(reportUrl);
  // The page's script marks the body once it has created every chart.
  const charts = data.pairs.length * CHART_KINDS.length + data.totals.length;
  await page.waitForSelector(`body[data-charts="${charts}"]`);
  return { page, problems, network };
}

function text(page: Page, selector: string): Promise<string | null> {
  return page.locator(selector).textContent();
}

for (const [name, width, height] of [
  ['desktop', 1280, 900],
  ['phone', 390, 844],
] as const) {
  test(`report.html at ${name} width draws every chart with no network and shows the run's figures`, async (t) => {
    const b = needBrowser(t, browser);
    if (b === undefined) return;
    const { page, problems, network } = await open(b, width, height);

    assert.deepEqual(network, [], 'the page asked for something beyond file://');
    assert.deepEqual(problems, []);

    for (const p of data.pairs) {
      for (const kind of CHART_KINDS) {
        const n = await colouredPixels(
          page,
          `section.pair[data-pair=${JSON.stringify(p.pair)}] figure[data-chart=${JSON.stringify(kind)}] canvas`,
        );
        assert.ok(n > 200, `${p.pair} ${kind}: ${n} coloured pixels, the chart did not draw`);
      }
      const section = `section.pair[data-pair="${p.pair}"]`;
      assert.equal(
        await page.getAttribute(`${section} figure[data-chart="price"]`, 'data-fills-drawn'),
        String(p.fills.length),
        `${p.pair}: fill markers drawn`,
      );
      const cell = (field: string): string =>
        `[data-table="pairs"] [data-pair="${p.pair}"][data-field="${field}"]`;
      assert.equal(await text(page, cell('fills')), String(p.summary.fills));
      assert.equal(await text(page, cell('pnl-total')), p.summary.pnl.total);
      assert.equal(await text(page, cell('pnl-spread')), p.summary.pnl.spread);
    }
    // The equity curve of both pairs (one quote currency), the halt shaded on it.
    assert.equal(data.totals.length, 1);
    const equity = await colouredPixels(page, 'figure[data-chart="equity"] canvas');
    assert.ok(equity > 200, `equity: ${equity} coloured pixels, the chart did not draw`);
    assert.equal(
      await page.getAttribute('figure[data-chart="equity"] .uplot', 'data-halts-drawn'),
      '1',
      'the halt is shaded on the equity curve',
    );
    const total = data.totals[0];
    assert.equal(
      await text(page, '[data-table="totals"] [data-field="total-pnl"]'),
      total?.pnl.total,
    );
    assert.equal(
      await text(page, '[data-table="totals"] [data-field="total-drawdown"]'),
      total?.maxDrawdown.toFixed(2),
    );
    assert.match(
      (await text(page, '[data-table="halts"]')) ?? '',
      /max_order_notional 5000; 4 order/,
    );
    assert.equal(await text(page, '[data-table="run"] [data-field="strategy-errors"]'), '3');
    assert.equal(await text(page, '[data-field="queue-rule"]'), 'log');
    assert.equal(await text(page, '[data-field="simulated"]'), '1 h 00 min 00 s');
    assert.equal(await text(page, '[data-field="speed"]'), '800× real time');
    assert.equal(
      await page.title(),
      'Backtest: spread-only v1 on XBTUSD, ETHUSD',
      'the title names the strategy and pairs',
    );

    // The problem's text came from a recording: shown as text, never run.
    const problem = data.run.problems[0]?.text ?? '';
    assert.equal(await text(page, '[data-table="problems"] .what'), problem);
    assert.equal(await page.evaluate('window.__injected'), undefined);
    assert.ok(
      ((await text(page, '[data-table="fidelity"]')) ?? '').includes('-5.0 %'),
      'fidelity shows the fills difference (96 vs 101)',
    );

    const overflow = await page.evaluate(
      'document.documentElement.scrollWidth - document.documentElement.clientWidth',
    );
    assert.equal(overflow, 0, `the page is wider than the ${name} screen`);

    const shot = join(dir, `report-${name}.png`);
    await page.screenshot({ path: shot, fullPage: true });
    t.diagnostic(`screenshot: ${shot}`);
    await page.context().close();
  });
}

test('report.json holds the data object as given', async () => {
  const back: unknown = JSON.parse(await readFile(join(dir, 'report.json'), 'utf8'));
  assert.deepEqual(back, data);
});
