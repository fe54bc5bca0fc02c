/**
 * The operator console in a real browser: Debian's chromium driven by playwright-core opens the
 * built page (dist/console) from a fixture server standing in for makerd, and the test does what
 * an operator would: gives the token, reads both pairs' figures and charts, halts and resumes,
 * pulls and restores a pair, sees a refusal's error line, and watches the page reconnect, at
 * phone and desktop widths. Skips without /usr/bin/chromium unless MAKERD_REQUIRE_TOOLS=1.
 *
 * MAKERD_CONSOLE_SHOTS=DIR also saves phone.png and desktop.png there, to look at.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test, type TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { colouredPixels, launchChromium, needBrowser } from '../support/chromium.js';
import { startFixtureServer, type FixtureServer } from './fixture-server.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DIST = join(ROOT, 'dist/console');
const TOKEN = 'fixture-token-8d1f2c';
const SHOTS = process.env.MAKERD_CONSOLE_SHOTS;

let server: FixtureServer;
let browser: Browser | undefined;

before(async () => {
  if (!existsSync(join(DIST, 'app.js'))) {
    const built = spawnSync(process.execPath, [join(ROOT, 'scripts/build.js')], {
      stdio: 'inherit',
    });
    assert.equal(built.status, 0, 'npm run build failed');
  }
  // States four times a second: the page does not depend on the pace, and the test waits less.
  server = await startFixtureServer({ dist: DIST, token: TOKEN, intervalMs: 250 });
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  await server.close();
});

interface Opened {
  readonly page: Page;
  /** Console errors, page errors and failed requests, as they happened. */
  readonly problems: string[];
  /** Every URL the page requested. */
  readonly requests: string[];
}

async function open(b: Browser, width: number, height: number, token?: string): Promise<Opened> {
  const context = await b.newContext({ viewport: { width, height } });
  if (token !== undefined) {
    // As if entered earlier in this tab.
    await context.addInitScript(
      `sessionStorage.setItem('makerd.console.token', ${JSON.stringify(token)})`,
    );
  }
  const page = await context.newPage();
  const problems: string[] = [];
  const requests: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') problems.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('requestfailed', (r) =>
    problems.push(`request failed: ${r.url()} ${r.failure()?.errorText}`),
  );
  page.on('request', (r) => requests.push(r.url()));
  await page.goto(`${server.url}/console`);
  return { page, problems, requests };
}

async function ready(page: Page): Promise<void> {
  await page.waitForSelector('body[data-ready][data-link="live"]');
  // Each chart drawn, fill markers included (a text predicate would need eval, which the page's
  // CSP forbids, so selectors).
  for (const pair of Object.keys(EXPECTED)) {
    await page.waitForSelector(
      `article[data-pair="${pair}"] figure[data-chart="price"][data-fills-drawn]`,
    );
  }
}

/** A ready page with the token given, `check` run on it, and no console error meanwhile. */
async function onReadyPage(
  t: TestContext,
  [width, height]: readonly [number, number],
  check: (page: Page) => Promise<void>,
): Promise<void> {
  const b = needBrowser(t, browser);
  if (b === undefined) return;
  const { page, problems } = await open(b, width, height, TOKEN);
  await ready(page);
  await check(page);
  assert.deepEqual(problems, []);
  await page.context().close();
}

function text(page: Page, selector: string): Promise<string> {
  return page.locator(selector).first().innerText();
}

const inPair = (pair: string, field: string): string =>
  `article[data-pair="${pair}"] [data-field="${field}"]`;

/** Elements reaching past the viewport's right edge: what would scroll sideways on a phone. */
function overflowing(page: Page): Promise<string[]> {
  return page.evaluate(`(() => {
    const out = [];
    if (document.documentElement.scrollWidth > innerWidth) out.push('document ' + document.documentElement.scrollWidth);
    for (const e of document.querySelectorAll('body *')) {
      const r = e.getBoundingClientRect();
      if (r.width > 0 && r.right > innerWidth + 0.5) out.push(e.tagName + '.' + e.className + ' ' + Math.round(r.right));
    }
    return out;
  })()`);
}

async function checkPairs(page: Page): Promise<void> {
  const history = server.deployment.history();
  for (const [pair, figures] of Object.entries(EXPECTED)) {
    for (const [field, value] of Object.entries(figures)) {
      assert.equal(await text(page, inPair(pair, field)), value, `${pair} ${field}`);
    }
    const fills = history.pairs.find((p) => p.pair === pair)?.fills.length ?? 0;
    assert.ok(fills > 10);
    assert.equal(
      await page.getAttribute(
        `article[data-pair="${pair}"] figure[data-chart="price"]`,
        'data-fills-drawn',
      ),
      String(fills),
      `${pair}: a marker for each fill of the hour`,
    );
    const figure = `article[data-pair="${pair}"] figure[data-chart="price"]`;
    const points = Number(await page.getAttribute(figure, 'data-points'));
    assert.ok(points > 3500, `${pair}: ${points} points, not the hour's history`);
    // Clear colour: our bid and ask lines and the fill markers.
    const pixels = await colouredPixels(
      page,
      `article[data-pair="${pair}"] figure[data-chart="price"] canvas`,
    );
    assert.ok(pixels > 500, `${pair}: ${pixels} coloured pixels, the chart did not draw`);
  }
  assert.equal(
    await page.locator('article[data-pair="XBTUSD"] tbody[data-field="orders"] tr').count(),
    4,
  );
  assert.equal(
    await text(page, 'article[data-pair="XBTUSD"] tbody[data-field="orders"] tr:nth-child(2)'),
    'SELL\t0\t91251.5\t0.01\t0.254',
    'asks farthest first down to the best, with the queue ahead (Level3: exact)',
  );
  assert.equal(
    await text(page, 'article[data-pair="ETHUSD"] tbody[data-field="orders"] tr:nth-child(1)'),
    'SELL\t0\t3120.31\t0.2\t~3.1',
    'an estimated queue place is marked as one',
  );
}

/** The tone (data-tone) of what `selector` finds. */
function tone(page: Page, selector: string): Promise<string | null> {
  return page.locator(selector).first().getAttribute('data-tone');
}

const EXPECTED: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  XBTUSD: {
    bid: '91249.0',
    mid: '91250.25',
    ask: '91251.5',
    mode: 'online',
    'pnl-total': '+12.3457',
    'pnl-spread': '+15.20',
    'pnl-inventory': '\u22121.43212',
    'pnl-fees': '\u22121.4222',
    'pnl-fills': '42',
    markout: '+1.8 bps',
    'inventory-base': '0.0625 XBT / 0.1',
    ratecount: '37.5 / 125',
    fees: '25.0 bps / 40.0 bps',
    floor: '27.3 bps',
    'floor-adverse': '0.3 bps (12 fills)',
    'floor-edge': '2.0 bps',
    'model-A': '1.235',
    'model-fit': 'ok',
  },
  ETHUSD: {
    bid: '3119.84',
    ask: '3120.31',
    'pnl-total': '\u22123.05',
    'pnl-fees': '\u22120.65',
    markout: '\u22120.6 bps',
    'inventory-base': '\u22121.2 ETH / 5 · short',
    ratecount: '114 / 125',
  },
};

test('desktop: asks for the token, refuses a wrong one, then shows the deployment and both pairs', async (t) => {
  const b = needBrowser(t, browser);
  if (b === undefined) return;
  const { page, problems, requests } = await open(b, 1280, 800);

  const token = page.locator('dialog[data-dialog="token"]');
  await token.locator('input').fill('not-the-token');
  await token.locator('button[type="submit"]').click();
  await page.locator('dialog[data-dialog="token"]', { hasText: 'refused' }).waitFor();
  await token.locator('input').fill(TOKEN);
  await token.locator('button[type="submit"]').click();
  await ready(page);
  // The refused stream's 401 is logged by the browser itself; nothing else may be.
  assert.deepEqual(
    problems.filter((p) => !/status of 401/.test(p)),
    [],
  );
  problems.length = 0;

  await checkPairs(page);
  assert.equal(await text(page, '[data-field="instance"]'), 'paper-eu-1');
  assert.equal(await text(page, '[data-field="halt"]'), 'RUNNING');
  assert.match(await text(page, '[data-field="dead-man"]'), /^0:[0-5]\d$/);
  assert.match(await text(page, '[data-field="maintenance"]'), /^in 4 h 5\d min$/);
  assert.equal(await text(page, '[data-field="rest"]'), '4.3 / 15');
  assert.equal(await page.title(), 'paper-eu-1 · makerd');

  // An event's text comes from the daemon's logs: shown as text, never as markup.
  const events = page.locator('[data-field="events"]');
  assert.match(await events.innerText(), /Insufficient funds <b>\(retried\)<\/b>/);
  assert.equal(await events.locator('b').count(), 0);
  // Control actions have a list of their own, their text never markup either.
  const audit = page.locator('[data-field="audit"]');
  assert.match(await audit.innerText(), /bob@desk via cli/);
  assert.match(
    await audit.innerText(),
    /resumed; was halted by supervisor for risk: <b>max loss<\/b>/,
  );
  assert.equal(await audit.locator('b').count(), 0);
  assert.doesNotMatch(await events.innerText(), /bob@desk/);

  assert.deepEqual(await overflowing(page), []);
  assert.deepEqual(
    requests.filter((url) => !url.startsWith(`${server.url}/`)),
    [],
    'the page asked for something beyond the daemon',
  );
  assert.ok(
    requests.every((url) => !url.includes(TOKEN)),
    'the token went into a URL',
  );
  if (SHOTS !== undefined)
    await page.screenshot({ path: join(SHOTS, 'desktop.png'), fullPage: true });
  assert.deepEqual(problems, []);
  await page.context().close();
});

test('phone: one column that reads whole, nothing wider than the screen', async (t) => {
  const b = needBrowser(t, browser);
  if (b === undefined) return;
  const { page, problems } = await open(b, 390, 844, TOKEN);
  await ready(page);
  await checkPairs(page);
  assert.deepEqual(await overflowing(page), []);
  const first = await page.locator('article[data-pair="XBTUSD"]').boundingBox();
  const second = await page.locator('article[data-pair="ETHUSD"]').boundingBox();
  assert.ok(first !== null && second !== null && second.y >= first.y + first.height, 'cards stack');
  // The halt button is on the first screen, within reach.
  const halt = await page.locator('button[data-action="halt"]').boundingBox();
  assert.ok(halt !== null && halt.y + halt.height < 844 && halt.x + halt.width <= 390);
  if (SHOTS !== undefined)
    await page.screenshot({ path: join(SHOTS, 'phone.png'), fullPage: true });
  assert.deepEqual(problems, []);
  await page.context().close();
});

test('halting asks first, needs a reason, posts with the CSRF header and token, and shows HALTED', async (t) => {
  const b = needBrowser(t, browser);
  if (b === undefined) return;
  const { page, problems } = await open(b, 390, 844, TOKEN);
  await ready(page);
  const posts = server.posts.length;
  const dialog = page.locator('dialog[data-dialog="confirm"]');

  // Escape backs out without a word sent.
  await page.locator('button[data-action="halt"]').click();
  await dialog.waitFor();
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'detached' });

  await page.locator('button[data-action="halt"]').click();
  await dialog.locator('input[name="operator"]').fill('alice');
  await dialog.locator('button[type="submit"]').click();
  assert.match(await dialog.locator('[data-field="error"]').innerText(), /Say why/);
  assert.equal(server.posts.length, posts, 'no reason, no halt');

  await dialog.locator('input[name="reason"]').fill('spread too wide on XBTUSD');
  await dialog.locator('button[type="submit"]').click();
  await page.locator('[data-field="halt"]', { hasText: 'HALTED' }).waitFor();
  const sent = server.posts.slice(posts);
  assert.equal(sent.length, 1);
  const [halt] = sent;
  assert.equal(halt?.path, '/console/halt');
  assert.equal(halt.headers['x-makerd-csrf'], server.csrf);
  assert.equal(halt.headers.authorization, `Bearer ${TOKEN}`);
  assert.equal(halt.headers['content-type'], 'application/json');
  assert.deepEqual(halt.body, { reason: 'spread too wide on XBTUSD', operator: 'alice' });
  assert.match(
    await text(page, '[data-field="halt-detail"]'),
    /spread too wide on XBTUSD · by operator:console \(alice\)/,
  );
  assert.equal(await page.title(), 'HALTED · paper-eu-1 · makerd');
  await page
    .locator('[data-field="audit"] li[data-action="halt"]', { hasText: 'alice via console' })
    .waitFor();

  // Resume: the name is remembered; a refusal's line is shown and the dialog stays for a retry.
  await page.locator('button[data-action="resume"]').click();
  assert.equal(await dialog.locator('input[name="operator"]').inputValue(), 'alice');
  server.refuseNext(409, 'resume refused: the supervisor holds an emergency halt');
  await dialog.locator('button[type="submit"]').click();
  await dialog.locator('[data-field="error"]', { hasText: 'emergency halt' }).waitFor();
  assert.equal(await text(page, '[data-field="halt"]'), 'HALTED');
  await dialog.locator('button[type="submit"]').click();
  await page.locator('[data-field="halt"]', { hasText: 'RUNNING' }).waitFor();
  assert.deepEqual(
    server.posts.slice(posts + 1).map((p) => [p.path, p.body]),
    [
      ['/console/resume', { operator: 'alice' }],
      ['/console/resume', { operator: 'alice' }],
    ],
  );
  // The browser logs the refused POST's 409 itself.
  assert.deepEqual(
    problems.filter((p) => !/status of 409/.test(p)),
    [],
  );
  await page.context().close();
});

test('pulling a pair asks first, stops its quotes on the page, and restoring brings them back', async (t) => {
  const b = needBrowser(t, browser);
  if (b === undefined) return;
  const { page, problems } = await open(b, 1280, 800, TOKEN);
  await ready(page);
  const posts = server.posts.length;
  const dialog = page.locator('dialog[data-dialog="confirm"]');
  await page.locator('article[data-pair="ETHUSD"] button[data-action="pull"]').click();
  assert.match(await dialog.innerText(), /Cancels every order of ETHUSD/);
  await dialog.locator('input[name="operator"]').fill('carol');
  await dialog.locator('button[type="submit"]').click();
  await page.locator('article[data-pair="ETHUSD"][data-pulled="true"]').waitFor();
  assert.equal(await text(page, inPair('ETHUSD', 'mode')), 'pulled');
  assert.equal(await text(page, inPair('ETHUSD', 'orders')), 'no resting orders');
  assert.equal(await text(page, inPair('XBTUSD', 'mode')), 'online', 'the other pair quotes on');

  await page.locator('article[data-pair="ETHUSD"] button[data-action="restore"]').click();
  await dialog.locator('button[type="submit"]').click();
  await page.locator('article[data-pair="ETHUSD"][data-pulled="false"]').waitFor();
  assert.deepEqual(
    server.posts.slice(posts).map((p) => [p.path, p.body, p.headers['x-makerd-csrf']]),
    [
      ['/console/pull', { pair: 'ETHUSD', operator: 'carol' }, server.csrf],
      ['/console/restore', { pair: 'ETHUSD', operator: 'carol' }, server.csrf],
    ],
  );
  assert.deepEqual(problems, []);
  await page.context().close();
});

test('a dropped stream shows "reconnecting" and the page comes back live by itself', async (t) => {
  const b = needBrowser(t, browser);
  if (b === undefined) return;
  const { page, problems } = await open(b, 1280, 800, TOKEN);
  await ready(page);
  server.dropStreams();
  await page.waitForSelector('body[data-link="retrying"]');
  // The daemon is gone: what the page last knew is greyed and no countdown runs.
  assert.equal(await tone(page, '[data-field="halt-band"]'), 'off');
  assert.equal(await text(page, '[data-field="dead-man"]'), 'unknown: no link');
  assert.match(
    await text(page, '[data-field="banner-text"]'),
    /Reconnecting in .*Figures below are from \d\d:\d\d:\d\d UTC/,
  );
  await page.waitForSelector('body[data-link="live"]', { timeout: 10_000 });
  assert.ok(await page.locator('[data-field="banner-text"]').isHidden());
  await checkPairs(page);
  // The browser reports the cut stream (as a failed request, or on its console); nothing else.
  assert.deepEqual(
    problems.filter((p) => !/\/console\/stream|ERR_INCOMPLETE_CHUNKED_ENCODING/.test(p)),
    [],
  );
  await page.context().close();
});

test('a short position fills its meter leftwards from the middle, a long one rightwards', (t) =>
  onReadyPage(t, [1280, 800], async (page) => {
    const bar = async (pair: string) => {
      const meter = `article[data-pair="${pair}"] .meter:has([data-field="inventory-base"])`;
      const track = await page.locator(`${meter} .meter-track`).boundingBox();
      const fill = await page.locator(`${meter} .meter-fill`).boundingBox();
      assert.ok(track !== null && fill !== null);
      const middle = track.x + track.width / 2;
      return {
        left: (fill.x - middle) / (track.width / 2),
        right: (fill.x + fill.width - middle) / (track.width / 2),
      };
    };
    // ETHUSD holds -1.2 ETH against max_base 5: 24 % of the way to the limit, short.
    const short = await bar('ETHUSD');
    assert.ok(Math.abs(short.left + 0.24) < 0.02, `short fill starts at ${short.left}`);
    assert.ok(Math.abs(short.right) < 0.02, `short fill ends at ${short.right}, not the middle`);
    // XBTUSD holds 0.0625 XBT against 0.1: 62.5 % (drawn to the percent), long.
    const long = await bar('XBTUSD');
    assert.ok(
      Math.abs(long.left) < 0.02 && Math.abs(long.right - 0.62) < 0.03,
      JSON.stringify(long),
    );
  }));

test("events show the pair, the call and the exchange's error; ten in a row are one row ×10", (t) =>
  onReadyPage(t, [1280, 800], async (page) => {
    const refused = page.locator('[data-field="events"] li', { hasText: 'order entry refused' });
    assert.equal(await refused.count(), 1);
    assert.equal(await refused.locator('.pair').innerText(), 'ETHUSD');
    assert.equal(await refused.locator('.call').innerText(), 'AddOrder');
    assert.match(await refused.locator('.reason').innerText(), /EOrder:Insufficient funds/);
    assert.equal(await refused.locator('[data-field="count"]').innerText(), '×10');
    assert.equal(await refused.locator('time').innerText(), '13:59:31–13:59:40');
  }));

test('the ratecount is green where the executor plans to run; data ages against their own poll', (t) =>
  onReadyPage(t, [1280, 800], async (page) => {
    const meter = (pair: string) =>
      `article[data-pair="${pair}"] .meter:has([data-field="ratecount"])`;
    // 114 of 125 (91 %), below the 123 the executor plans up to: the budget used as planned.
    assert.equal(await tone(page, meter('ETHUSD')), 'ok');
    assert.equal(await tone(page, meter('XBTUSD')), 'ok');
    const mark = await page.locator(`${meter('ETHUSD')} .meter-mark`).boundingBox();
    const track = await page.locator(`${meter('ETHUSD')} .meter-track`).boundingBox();
    assert.ok(mark !== null && track !== null);
    const at = (mark.x + mark.width / 2 - track.x) / track.width;
    assert.ok(Math.abs(at - 123 / 125) < 0.01, `the plan's mark at ${at}`);
    const age = (pair: string, source: string) =>
      tone(page, `article[data-pair="${pair}"] [data-source="${source}"]`);
    assert.equal(await age('XBTUSD', 'balance'), 'ok', 'a 120 s poll 95 s old is on time');
    assert.equal(await age('XBTUSD', 'depth'), 'ok');
    assert.equal(await age('ETHUSD', 'trades'), 'warn', '21 s of 30 s before stale: polls missed');
    assert.equal(await age('ETHUSD', 'openOrders'), 'bad', 'older than its stale age');
  }));

test('the PnL of all pairs is summed per quote currency, with the period it covers', (t) =>
  onReadyPage(t, [1280, 800], async (page) => {
    // 12.3456789 - 3.05, exactly.
    assert.equal(await text(page, '[data-field="pnl-all"]'), '+9.29568 USD');
    assert.equal(
      await page.getAttribute('[data-field="pnl-all"] [data-quote="USD"]', 'title'),
      '9.2956789 USD',
    );
    assert.match(
      await text(page, '[data-field="pnl-since"]'),
      /^since 11:55:00 UTC \(runner start, 2 h 0\d min\)$/,
    );
  }));

test('phone: the halt state and button stay in view when scrolled; every touch target is 44 px', (t) =>
  onReadyPage(t, [390, 844], async (page) => {
    await page.evaluate('window.scrollTo(0, document.documentElement.scrollHeight)');
    await page.waitForFunction('window.scrollY > 1000');
    for (const selector of ['button[data-action="halt"]', '[data-field="halt"]']) {
      const box = await page.locator(selector).boundingBox();
      assert.ok(box !== null && box.y >= 0 && box.y + box.height <= 844, `${selector} in view`);
    }
    const small = async (): Promise<string[]> =>
      page.evaluate(`[...document.querySelectorAll('button, input, a[href]')]
      .filter((e) => e.getClientRects().length > 0)
      .map((e) => [e.outerHTML.slice(0, 60), e.getBoundingClientRect()])
      .filter(([, r]) => r.height < 44 || r.width < 44)
      .map(([html, r]) => html + ' ' + Math.round(r.width) + 'x' + Math.round(r.height))`);
    assert.deepEqual(await small(), []);
    await page.locator('button[data-action="halt"]').click();
    await page.locator('dialog[data-dialog="confirm"]').waitFor();
    assert.deepEqual(await small(), [], 'the dialog too');
  }));

test('a link silent for 2 s greys the state the page cannot vouch for and stops the countdown', async (t) => {
  const b = needBrowser(t, browser);
  if (b === undefined) return;
  const context = await b.newContext({ viewport: { width: 1280, height: 800 } });
  await context.addInitScript(
    `sessionStorage.setItem('makerd.console.token', ${JSON.stringify(TOKEN)})`,
  );
  const page = await context.newPage();
  // The page's timers and Date on a clock the test moves.
  await page.clock.install();
  await page.goto(`${server.url}/console`);
  await ready(page);
  assert.equal(await tone(page, '[data-field="halt-band"]'), 'ok');
  server.silenceStreams();
  await page.clock.pauseAt((await page.evaluate<number>('Date.now()')) + 100);
  await page.clock.runFor(2000);
  await page.waitForSelector('body[data-link="quiet"]');
  assert.equal(await tone(page, '[data-field="halt-band"]'), 'off', 'RUNNING no longer bright');
  assert.equal(await text(page, '[data-field="dead-man"]'), 'unknown: no link');
  assert.match(await text(page, '[data-field="halt-detail"]'), /^last known at \d\d:\d\d:\d\d UTC/);
  assert.match(
    await text(page, '[data-field="banner-text"]'),
    /^No update from makerd for \d\.\d s: the link may be lost/,
  );
  await context.close();
});
