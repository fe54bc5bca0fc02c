import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import type { TestContext } from 'node:test';
import { chromium, type Browser, type Page } from 'playwright-core';

/** Debian's chromium, the one browser the browser tests drive (.ci/run installs it). */
export const CHROMIUM = '/usr/bin/chromium';
const MISSING = `no ${CHROMIUM} (apt-get install chromium)`;

/**
 * Headless chromium through playwright-core, with `extraArgs` (a host-resolver rule); undefined
 * when it is not installed.
 */
export async function launchChromium(
  extraArgs: readonly string[] = [],
): Promise<Browser | undefined> {
  if (!existsSync(CHROMIUM)) return undefined;
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      ...extraArgs,
    ],
  });
}

/**
 * The browser, or the test skipped without one; with MAKERD_REQUIRE_TOOLS=1 (CI) a missing
 * browser fails the test instead.
 */
export function needBrowser(t: TestContext, browser: Browser | undefined): Browser | undefined {
  if (browser !== undefined) return browser;
  if (process.env.MAKERD_REQUIRE_TOOLS === '1') {
    assert.fail(`${MISSING}; MAKERD_REQUIRE_TOOLS=1 does not allow skipping`);
  }
  t.skip(MISSING);
  return undefined;
}

/**
 * Pixels of clear colour (not grey) on the canvas `selector` finds: a chart's strokes and fill
 * markers. Axes, grid and labels are grey, so an empty chart counts none. Evaluated from text, as
 * the test's own functions are rewritten by the TypeScript loader.
 */
export function colouredPixels(page: Page, selector: string): Promise<number> {
  return page.evaluate(`(() => {
    const canvas = document.querySelector(${JSON.stringify(selector)});
    if (!canvas || canvas.width === 0) return 0;
    const px = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
    let n = 0;
    for (let i = 0; i < px.length; i += 4) {
      const r = px[i], g = px[i + 1], b = px[i + 2];
      if (px[i + 3] > 128 && Math.max(r, g, b) - Math.min(r, g, b) > 60) n++;
    }
    return n;
  })()`);
}
