/**
 * Issue #41 item 4: `makerd run` behind a real TLS reverse proxy from Debian, nginx and then
 * Caddy, each run from config/proxy/ as it is (only ports and certificate paths changed), with
 * http.public_origin and http.trusted_proxies set as the files say. Through the proxy over https:
 * the page loads; the console's stream delivers its events as they come (a halt shows in the next
 * patch, not when a buffer fills); halt and resume work with the control token and the page's
 * CSRF value and reach the audit trail with the client's address (not the proxy's, nor what the
 * client claims in X-Forwarded-For); a cross-site request is still refused; chromium clicks halt
 * and resume. Without http.public_origin the proxy's requests are refused: the check is real.
 * Skips without nginx, caddy, openssl or /usr/bin/chromium unless MAKERD_REQUIRE_TOOLS=1.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it, type TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import type { Browser } from 'playwright-core';
import { fetch, type Agent, type Response } from 'undici';
import { freePort } from '../../src/core/free-port.js';
import type { ConsoleSession, ConsoleState } from '../../src/console/state.js';
import { AuditTrail } from '../../src/daemon/audit-trail.js';
import { CHROMIUM, launchChromium } from '../support/chromium.js';
import { pageEvents } from '../support/console-stream.js';
import { startPaperRun, type PaperRun } from '../support/paper-run.js';
import { REDIS_URL } from '../support/redis.js';
import {
  NGINX,
  proxyAgent,
  RESOLVE_PUBLIC_NAME,
  PUBLIC_NAME,
  selfSignedCertificate,
  startCaddy,
  startNginx,
  type Certificate,
  type ProxySetup,
  type RunningProxy,
} from '../support/reverse-proxy.js';
import { until } from '../support/until.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TOKEN = `proxy-e2e-${randomBytes(16).toString('hex')}`;
/** The test's requests come from here; the proxies reach makerd from 127.0.0.1. */
const CLIENT_ADDRESS = '127.0.0.2';
/** What a client claims to be: the proxy config must not pass it on. */
const FORGED = '203.0.113.66';

/** The tools this test runs, each with the command that shows it is installed. */
const TOOLS: readonly (readonly [string, string[]])[] = [
  [NGINX, ['-v']],
  ['caddy', ['version']],
  ['openssl', ['version']],
];

function missingTools(): string[] {
  const missing = TOOLS.filter(([cmd, args]) => spawnSync(cmd, args).error !== undefined).map(
    ([cmd]) => cmd,
  );
  return existsSync(CHROMIUM) ? missing : [...missing, CHROMIUM];
}

/**
 * The console's stream as the page reads it (the first state whole, then patches applied), with
 * each event as it arrives.
 */
function watchStream(res: Response, controller: AbortController) {
  const seen: string[] = [];
  let state: ConsoleState | undefined;
  void (async () => {
    for await (const event of pageEvents(res.body as AsyncIterable<Uint8Array>)) {
      seen.push(event.name);
      state = event.state as ConsoleState | undefined;
    }
  })().catch(() => undefined);
  return {
    seen,
    /** Resolves once the state the stream delivered satisfies `check`. */
    shows: (what: string, check: (s: ConsoleState) => boolean) =>
      until(what, () => state !== undefined && check(state), 10_000),
    stop: () => controller.abort(),
  };
}

void describe('makerd behind a TLS reverse proxy (nginx, Caddy)', () => {
  let missing: string[] = [];
  let run: PaperRun | undefined;
  let without: PaperRun | undefined;
  let dir: string | undefined;
  let certificate: Certificate;
  let client: Agent;
  let redis: Redis;
  let browser: Browser | undefined;
  let port: number;
  let upstream: number;

  /** False (test skipped) without the tools, unless MAKERD_REQUIRE_TOOLS=1 makes that a failure. */
  const ready = (t: TestContext): boolean => {
    if (missing.length === 0) return true;
    const why = `no ${missing.join(', ')} (apt-get install nginx caddy openssl chromium)`;
    if (process.env.MAKERD_REQUIRE_TOOLS === '1') {
      assert.fail(`${why}; MAKERD_REQUIRE_TOOLS=1 does not allow skipping`);
    }
    t.skip(why);
    return false;
  };

  before(async () => {
    missing = missingTools();
    if (missing.length > 0) return;
    if (!existsSync(join(ROOT, 'dist/console/app.js'))) {
      const built = spawnSync(process.execPath, [join(ROOT, 'scripts/build.js')], {
        stdio: 'inherit',
      });
      assert.equal(built.status, 0, 'npm run build failed');
    }
    dir = mkdtempSync(join(tmpdir(), 'makerd-proxy-'));
    certificate = selfSignedCertificate(dir);
    [port, upstream] = [await freePort(), await freePort()];
    // The pro tier's REST budget lets each halt's CancelAll (and the shutdown's) go at once.
    run = await startPaperRun(
      44,
      {
        http: {
          port: upstream,
          public_origin: `https://${PUBLIC_NAME}:${port}`,
          trusted_proxies: ['127.0.0.1'],
        },
      },
      'pro',
    );
    await run.start({ MAKERD_HTTP_TOKEN: TOKEN });
    client = proxyAgent(certificate, CLIENT_ADDRESS);
    redis = new Redis(REDIS_URL);
    browser = await launchChromium([RESOLVE_PUBLIC_NAME]);
  });
  after(async () => {
    await browser?.close();
    // Streams to a proxy that is gone may still count as open: nothing is left to wait for.
    await client?.destroy();
    redis?.disconnect();
    await Promise.all([run?.close(), without?.close()]);
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  const setup = (name: string): ProxySetup => {
    const own = join(dir as string, name);
    mkdirSync(own);
    return { port, upstream, certificate, dir: own };
  };

  /** A request as the console's page sends it, through the proxy from CLIENT_ADDRESS. */
  const act = async (
    origin: string,
    action: 'halt' | 'resume',
    body: object,
    headers: Record<string, string> = {},
  ) => {
    // Refused (no public origin), the session has no CSRF value to send.
    const session = (await (
      await fetch(`${origin}/console/session`, { dispatcher: client })
    ).json()) as Partial<ConsoleSession>;
    const res = await fetch(`${origin}/console/${action}`, {
      dispatcher: client,
      method: 'POST',
      headers: {
        authorization: `Bearer ${TOKEN}`,
        'content-type': 'application/json',
        'x-makerd-csrf': session.csrf ?? '',
        origin,
        'sec-fetch-site': 'same-origin',
        'x-forwarded-for': FORGED,
        ...headers,
      },
      body: JSON.stringify(body),
    });
    return { status: res.status, json: (await res.json()) as Record<string, unknown> };
  };

  const mode = async (origin: string): Promise<string> =>
    (
      (await (
        await fetch(`${origin}/status`, {
          dispatcher: client,
          headers: { authorization: `Bearer ${TOKEN}` },
        })
      ).json()) as { mode: string }
    ).mode;

  /** What the console and curl see through the proxy at `origin`. */
  async function throughProxy(origin: string, who: string): Promise<void> {
    const page = await fetch(`${origin}/`, { dispatcher: client });
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(await page.text(), /<script defer src="console\/app\.js"><\/script>/);
    assert.equal((await fetch(`${origin}/console/app.js`, { dispatcher: client })).status, 200);

    const controller = new AbortController();
    const streamed = await fetch(`${origin}/console/stream`, {
      dispatcher: client,
      headers: { authorization: `Bearer ${TOKEN}` },
      signal: controller.signal,
    });
    assert.equal(streamed.status, 200);
    const stream = watchStream(streamed, controller);
    try {
      await stream.shows('the first state through the proxy', (s) => !s.halt.halted);
      assert.deepEqual(stream.seen.slice(0, 2), ['history', 'state']);

      const operator = `${who}-curl`;
      const halted = await act(origin, 'halt', { operator, reason: `via ${who}` });
      assert.equal(halted.status, 200, JSON.stringify(halted.json));
      assert.equal(halted.json.changed, true);
      // A patch of a few hundred bytes: a buffering proxy would hold it.
      await stream.shows('the halt on the stream', (s) => s.halt.halted);
      const resumed = await act(origin, 'resume', { operator });
      assert.equal(resumed.status, 200, JSON.stringify(resumed.json));
      assert.equal(resumed.json.changed, true);
      await stream.shows('the resume on the stream', (s) => !s.halt.halted);
    } finally {
      stream.stop();
    }

    const trail = (await new AuditTrail(redis, (run as PaperRun).prefix).recent(20)).filter(
      (e) => e.actor === `${who}-curl`,
    );
    assert.deepEqual(
      trail.map((e) => [e.action, e.door, e.remote, e.changed]),
      [
        ['halt', 'console', CLIENT_ADDRESS, true],
        ['resume', 'console', CLIENT_ADDRESS, true],
      ],
      'the client, not the proxy (127.0.0.1) nor its claim',
    );

    const foreign = await act(
      origin,
      'halt',
      { operator: 'mallory', reason: 'x' },
      {
        origin: 'https://evil.example',
        'sec-fetch-site': 'cross-site',
      },
    );
    assert.equal(foreign.status, 403);
    assert.deepEqual(foreign.json, { error: 'cross-site request refused' });
    const marked = await act(
      origin,
      'halt',
      { operator: 'mallory', reason: 'x' },
      {
        'sec-fetch-site': 'cross-site',
      },
    );
    assert.equal(marked.status, 403, 'the right Origin, but Sec-Fetch-Site: cross-site');
    assert.equal(await mode(origin), 'trading');
  }

  /** Chromium opens the page at `origin`, gives the token, and clicks halt then resume. */
  async function clickThrough(b: Browser, origin: string, who: string): Promise<void> {
    const context = await b.newContext({ ignoreHTTPSErrors: true });
    const problems: string[] = [];
    try {
      const page = await context.newPage();
      page.on('console', (m) => {
        if (m.type() === 'error' || m.type() === 'warning') problems.push(m.text());
      });
      page.on('pageerror', (e) => problems.push(e.message));
      await page.goto(`${origin}/`);
      const token = page.locator('dialog[data-dialog="token"]');
      await token.locator('input').fill(TOKEN);
      await token.locator('button[type="submit"]').click();
      await page.waitForSelector('body[data-ready][data-link="live"]', { timeout: 10_000 });

      const dialog = page.locator('dialog[data-dialog="confirm"]');
      await page.locator('button[data-action="halt"]').click();
      await dialog.locator('input[name="operator"]').fill(`${who}-browser`);
      await dialog.locator('input[name="reason"]').fill(`clicked via ${who}`);
      await dialog.locator('button[type="submit"]').click();
      await page.locator('[data-field="halt"]', { hasText: 'HALTED' }).waitFor({ timeout: 10_000 });
      assert.equal(await mode(origin), 'halted');
      await page.locator('button[data-action="resume"]').click();
      await dialog.locator('button[type="submit"]').click();
      await page
        .locator('[data-field="halt"]', { hasText: 'RUNNING' })
        .waitFor({ timeout: 10_000 });
      await page
        .locator('[data-field="audit"] li[data-action="resume"]', {
          hasText: `${who}-browser via console`,
        })
        .waitFor({ timeout: 10_000 });
      assert.equal(await mode(origin), 'trading');
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  }

  const proxies: readonly (readonly [string, (s: ProxySetup) => Promise<RunningProxy>])[] = [
    ['nginx', startNginx],
    ['caddy', startCaddy],
  ];
  for (const [who, start] of proxies) {
    void it(`behind ${who}: the page, its stream, halt and resume; cross-site refused`, async (t) => {
      if (!ready(t)) return;
      const proxy = await start(setup(who));
      try {
        assert.equal(proxy.origin, `https://${PUBLIC_NAME}:${port}`);
        await throughProxy(proxy.origin, who);
        await clickThrough(browser as Browser, proxy.origin, who);
      } finally {
        await proxy.stop();
      }
    });
  }

  void it('refuses what comes through the proxy when http.public_origin is not set', async (t) => {
    if (!ready(t)) return;
    // A deployment of its own: restarting the first one costs more than starting another.
    const bare = await freePort();
    without = await startPaperRun(45, {
      http: { port: bare, trusted_proxies: ['127.0.0.1'] },
    });
    await without.start({ MAKERD_HTTP_TOKEN: TOKEN });
    const proxy = await startNginx({ ...setup('nginx-without'), upstream: bare });
    try {
      const hint =
        /behind a reverse proxy: name the origin the browser shows in http\.public_origin/;
      const page = await fetch(`${proxy.origin}/`, { dispatcher: client });
      assert.equal(page.status, 403);
      assert.match(((await page.json()) as { error: string }).error, hint);
      const halted = await act(proxy.origin, 'halt', { operator: 'alice', reason: 'x' });
      assert.equal(halted.status, 403);
      assert.match(String(halted.json.error), hint);
    } finally {
      await proxy.stop();
    }
  });
});
