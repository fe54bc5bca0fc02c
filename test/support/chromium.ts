import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import type { TestContext } from 'node:test';
import { chromium, type Browser } from 'playwright-core';

/** Debian's chromium, the one browser the browser tests drive (.ci/run installs it). */
export const CHROMIUM = '/usr/bin/chromium';
const MISSING = `no ${CHROMIUM} (apt-get install chromium)`;

/** Headless chromium through playwright-core; undefined when it is not installed. */
export async function launchChromium(): Promise<Browser | undefined> {
  if (!existsSync(CHROMIUM)) return undefined;
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
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
