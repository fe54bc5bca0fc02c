/**
 * Issue #34: the operator console in Debian's chromium (playwright-core) against `makerd run`
 * trading the simulator, with a bearer token as on a VPS. The page loads with no console error,
 * asks for the token, shows both pairs with the figures /status gives, refuses an action without
 * the token, halts and resumes with it (an audit line each), at phone and desktop widths.
 * Skips without /usr/bin/chromium unless MAKERD_REQUIRE_TOOLS=1.
 *
 * MAKERD_CONSOLE_SHOTS=DIR saves console-phone.png and console-desktop.png there (docs/ has the
 * ones README.md shows); the load time and transfer size are printed as diagnostics.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { launchChromium, needBrowser } from '../support/chromium.js';
import { startPaperRun, type Bot, type PaperRun } from '../support/paper-run.js';
import { stop } from '../support/spawn.js';
import { until } from '../support/until.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TOKEN = 'console-e2e-token-5b0c';
const SHOTS = process.env.MAKERD_CONSOLE_SHOTS;
const PAIRS = ['XBTUSD', 'ETHUSD'];

interface StatusPair {
  readonly altname: string;
  readonly ratecount: { readonly max: number };
  readonly pnl?: { readonly fills: number };
}

void describe('operator console in chromium against makerd run', () => {
  let run: PaperRun;
  let bot: Bot;
  let http: string;
  let browser: Browser | undefined;

  const status = async (): Promise<{ mode: string; halt: { by?: string }; pairs: StatusPair[] }> =>
    (await (
      await fetch(`${http}/status`, { headers: { authorization: `Bearer ${TOKEN}` } })
    ).json()) as { mode: string; halt: { by?: string }; pairs: StatusPair[] };

  before(async () => {
    if (!existsSync(join(ROOT, 'dist/console/app.js'))) {
      const built = spawnSync(process.execPath, [join(ROOT, 'scripts/build.js')], {
        stdio: 'inherit',
      });
      assert.equal(built.status, 0, 'npm run build failed');
    }
    run = await startPaperRun(73);
    ({ bot, http } = await run.start({ MAKERD_HTTP_TOKEN: TOKEN }));
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    if (bot !== undefined) await stop(bot.child);
    await run.close();
  });

  /** Opens the console at a width, gives the token, and waits until both pairs are quoted. */
  async function open(b: Browser, width: number, height: number) {
    const context = await b.newContext({ viewport: { width, height } });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') problems.push(`console: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    await page.goto(`${http}/`);
    const token = page.locator('dialog[data-dialog="token"]');
    await token.locator('input').fill(TOKEN);
    await token.locator('button[type="submit"]').click();
    await page.waitForSelector('body[data-ready][data-link="live"]', { timeout: 20_000 });
    for (const pair of PAIRS) {
      await page
        .locator(`article[data-pair="${pair}"] tbody[data-field="orders"] tr[data-side]`)
        .first()
        .waitFor({ timeout: 30_000 });
    }
    return { page, problems, close: () => context.close() };
  }

  const cell = (page: Page, pair: string, field: string) =>
    page.locator(`article[data-pair="${pair}"] [data-field="${field}"]`).first().innerText();

  it('loads clean, asks for the token, and shows both pairs as /status does', async (t) => {
    const b = needBrowser(t, browser);
    if (b === undefined) return;
    const { page, problems, close } = await open(b, 1280, 800);
    try {
      // The page's own timing (Navigation and Resource Timing), the stream left out.
      const load = await page.evaluate<{ loadMs: number; bytes: number }>(`(() => {
        const nav = performance.getEntriesByType('navigation')[0];
        const files = performance
          .getEntriesByType('resource')
          .filter((r) => !r.name.includes('/console/stream'));
        return {
          loadMs: Math.round(nav.loadEventEnd - nav.startTime),
          bytes: nav.transferSize + files.reduce((n, r) => n + (r.transferSize || r.encodedBodySize), 0),
        };
      })()`);
      t.diagnostic(`console load ${load.loadMs} ms, ${load.bytes} bytes transferred`);
      for (const pair of PAIRS) {
        // Both sides move each second: read until the page and /status agree.
        await until(
          `${pair} figures as /status has them`,
          async () => {
            const s = (await status()).pairs.find((p) => p.altname === pair);
            const ratecount = await cell(page, pair, 'ratecount');
            const fills = await cell(page, pair, 'pnl-fills').catch(() => '');
            return s !== undefined &&
              ratecount.endsWith(`/ ${s.ratecount.max}`) &&
              fills === String(s.pnl?.fills ?? '')
              ? true
              : undefined;
          },
          20_000,
          200,
        );
        const [bid, ask] = [await cell(page, pair, 'bid'), await cell(page, pair, 'ask')];
        assert.ok(Number(bid.replace(/,/g, '')) < Number(ask.replace(/,/g, '')), `${pair} book`);
        await page.waitForSelector(
          `article[data-pair="${pair}"] figure[data-chart="price"] canvas`,
        );
      }
      if (SHOTS !== undefined) {
        await page.screenshot({ path: join(SHOTS, 'console-desktop.png'), fullPage: true });
      }
      assert.deepEqual(problems, []);
    } finally {
      await close();
    }
  });

  it('refuses an action without the token, halts and resumes with it', async (t) => {
    const b = needBrowser(t, browser);
    if (b === undefined) return;
    const { page, problems, close } = await open(b, 390, 844);
    try {
      const width = await page.evaluate<number>('document.documentElement.scrollWidth');
      assert.ok(width <= 390, `no horizontal scroll on a phone (${width} px)`);
      if (SHOTS !== undefined) {
        await page.screenshot({ path: join(SHOTS, 'console-phone.png'), fullPage: false });
      }
      const refused = await page.evaluate(async () => {
        const session = (await (await fetch('console/session')).json()) as { csrf: string };
        const res = await fetch('console/halt', {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-makerd-csrf': session.csrf },
          body: JSON.stringify({ reason: 'no token', operator: 'mallory' }),
        });
        return res.status;
      });
      assert.equal(refused, 401, 'a halt without the token');
      // The browser logs that refusal as a failed resource: expected, the only one allowed.
      const expected = problems.findIndex((p) => p.includes('status of 401'));
      if (expected >= 0) problems.splice(expected, 1);
      assert.equal((await status()).mode, 'trading');

      const dialog = page.locator('dialog[data-dialog="confirm"]');
      await page.locator('button[data-action="halt"]').click();
      await dialog.locator('input[name="operator"]').fill('alice');
      await dialog.locator('input[name="reason"]').fill('console e2e');
      await dialog.locator('button[type="submit"]').click();
      await page.locator('[data-field="halt"]', { hasText: 'HALTED' }).waitFor({ timeout: 20_000 });
      const halted = await status();
      assert.equal(halted.mode, 'halted');
      assert.equal(halted.halt.by, 'operator:console (alice)');
      await until('no order left', async () =>
        (await run.orders()).length === 0 ? true : undefined,
      );

      await page.locator('button[data-action="resume"]').click();
      await dialog.locator('button[type="submit"]').click();
      await page
        .locator('[data-field="halt"]', { hasText: 'RUNNING' })
        .waitFor({ timeout: 20_000 });
      assert.equal((await status()).mode, 'trading');
      // Both on the page's list of control actions, the newest first.
      await page
        .locator('[data-field="audit"] li[data-action="resume"]', { hasText: 'alice via console' })
        .waitFor({ timeout: 20_000 });
      assert.match(
        await page.locator('[data-field="audit"] li').nth(1).innerText(),
        /halt[\s\S]*alice via console from [\s\S]*console e2e: halted/,
      );
      for (const action of ['halt', 'resume']) {
        assert.ok(
          bot.lines.some((l) => l.audit === true && l.action === action && l.actor === 'alice'),
          `an audit line for the ${action}`,
        );
      }
      assert.ok(
        !bot.lines.some((l) => JSON.stringify(l).includes(TOKEN)),
        'the token is in no log line',
      );
      assert.deepEqual(problems, []);
    } finally {
      await close();
    }
  });
});
