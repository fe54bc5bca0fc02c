/**
 * Issue #41: two credentials and a guarded door. The read token reads (status, metrics, the
 * stream) and cannot act; the control token does both. Off loopback a short token is refused at
 * start naming its variable; a token in a file rotates without a restart (the file followed as it
 * changes, or read again on reload(), which SIGHUP calls). Refused requests are counted by reason,
 * logged at most once a minute per address, and wrong tokens lock the address out with 429.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, renameSync, utimesSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { InvalidInputError, ManualClock } from '../../src/core/index.js';
import { httpTokens } from '../../src/daemon/http-tokens.js';
import {
  BearerToken,
  HttpRefusals,
  LOCK_MS,
  WRONG_TOKENS_ALLOWED,
  startHttpServer,
  type Routes,
} from '../../src/obs/index.js';
import { metricValue } from '../support/metrics.js';
import { recordingLog } from '../support/recording-log.js';

const CONTROL = 'control-token-0123456789abcdef0123456789';
const READ = 'read-token-0123456789abcdef0123456789abcd';
const SECOND = 1_700_000_000;
const OFF_LOOPBACK = { host: '0.0.0.0', port: 0, token_env: 'T', read_token_env: 'R' };

const routes: Routes = {
  'GET /status': () => ({ json: { mode: 'trading' } }),
  'POST /halt': () => ({ json: { halted: true } }),
  'POST /console/halt': () => ({
    json: { error: 'missing or stale X-Makerd-CSRF: reload the console' },
    status: 403,
    refused: 'csrf',
  }),
};

/** GET or POST with a bearer token (or none). */
async function call(url: string, method: string, path: string, token?: string) {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown>, res };
}

void describe('HTTP tokens: a read token and a control token', () => {
  void it('lets the read token read and not act; the control token does both', async () => {
    const registry = new Registry();
    const tokens = httpTokens(OFF_LOOPBACK, { T: CONTROL, R: READ }, recordingLog().log);
    const server = await startHttpServer({
      host: '0.0.0.0',
      port: 0,
      tokens,
      routes,
      refusals: new HttpRefusals({ registry }),
    });
    const url = server.url.replace('0.0.0.0', '127.0.0.1');
    try {
      assert.equal((await call(url, 'GET', '/status', READ)).status, 200);
      const act = await call(url, 'POST', '/halt', READ);
      assert.equal(act.status, 403);
      assert.deepEqual(act.body, {
        error: 'the read token cannot act: this needs the control token',
      });
      assert.equal((await call(url, 'GET', '/status', CONTROL)).status, 200);
      assert.deepEqual((await call(url, 'POST', '/halt', CONTROL)).body, { halted: true });
      assert.equal((await call(url, 'GET', '/status', `${READ}x`)).status, 401);
      assert.equal(
        await metricValue(registry, 'makerd_http_refused_total', { reason: 'read_token' }),
        1,
      );
      assert.equal(
        await metricValue(registry, 'makerd_http_refused_total', { reason: 'token' }),
        1,
      );
    } finally {
      await server.close();
    }
  });

  void it('refuses a token shorter than 32 characters off loopback, naming its variable', () => {
    const { log } = recordingLog();
    assert.throws(
      () => httpTokens(OFF_LOOPBACK, { T: 'a' }, log),
      (err: unknown) =>
        err instanceof InvalidInputError &&
        err.field === 'T' &&
        err.message ===
          'T: the token is 1 characters long; off loopback a token needs at least 32 ' +
            '(openssl rand -hex 32 makes one)',
    );
    const file = join(mkdtempSync(join(tmpdir(), 'makerd-token-')), 'read');
    writeFileSync(file, 'x'.repeat(31));
    assert.throws(() => httpTokens(OFF_LOOPBACK, { T: CONTROL, R_FILE: file }, log), {
      field: 'R_FILE',
    });
    // This machine only: any length, as before.
    const loopback = httpTokens({ ...OFF_LOOPBACK, host: '127.0.0.1' }, { T: 'a' }, log);
    assert.equal(loopback.control?.accepts('Bearer a'), true);
  });

  void it('rotates a token in a file without a restart: the old refused, the new accepted', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'makerd-token-'));
    const file = join(dir, 'control');
    writeFileSync(file, `${CONTROL}\n`);
    const { log, lines } = recordingLog();
    const tokens = httpTokens(OFF_LOOPBACK, { T_FILE: file }, log);
    const server = await startHttpServer({ host: '0.0.0.0', port: 0, tokens, routes, log });
    const url = server.url.replace('0.0.0.0', '127.0.0.1');
    const next = `${CONTROL}-rotated`;
    try {
      assert.equal((await call(url, 'GET', '/status', CONTROL)).status, 200);
      // As a secret manager writes it: a new file renamed over the old one.
      writeFileSync(join(dir, 'control.new'), next);
      renameSync(join(dir, 'control.new'), file);
      // A whole second, which utimes below sets again exactly.
      utimesSync(file, SECOND, SECOND);
      assert.equal((await call(url, 'GET', '/status', CONTROL)).status, 401, 'the old one');
      assert.equal((await call(url, 'POST', '/halt', next)).status, 200, 'the new one');

      // Rewritten in place, same size and time: only a reload (SIGHUP) sees it.
      const third = `${next.slice(0, -1)}X`;
      writeFileSync(file, third);
      utimesSync(file, SECOND, SECOND);
      assert.equal((await call(url, 'GET', '/status', next)).status, 200, 'not seen yet');
      tokens.reload();
      assert.equal((await call(url, 'GET', '/status', next)).status, 401);
      assert.equal((await call(url, 'GET', '/status', third)).status, 200);

      // A new content that cannot be a token: the one in force stays, and the log says so.
      writeFileSync(file, 'short');
      assert.equal((await call(url, 'GET', '/status', third)).status, 200);
      const notTaken = lines.filter((l) => l.msg.startsWith('token file'));
      assert.deepEqual(
        notTaken.map((l) => [l.msg, l.fields.variable, l.fields.why]),
        [
          [
            'token file not taken: the previous token stays in force',
            'T_FILE',
            'T_FILE: the token is 5 characters long; off loopback a token needs at least 32 ' +
              '(openssl rand -hex 32 makes one)',
          ],
        ],
      );
      const logged = JSON.stringify(lines);
      for (const secret of [CONTROL, next, third, 'short']) {
        assert.ok(!logged.includes(secret), 'a token in the log');
      }
    } finally {
      await server.close();
    }
  });
});

void describe('HTTP refusals', () => {
  void it('locks an address out after wrong tokens (429, Retry-After), logging once a minute', async () => {
    const clock = new ManualClock();
    const registry = new Registry();
    const { log, lines } = recordingLog();
    const control = new BearerToken({ variable: 'T', value: CONTROL }, { minLength: 32 });
    const server = await startHttpServer({
      host: '0.0.0.0',
      port: 0,
      tokens: { control },
      routes,
      refusals: new HttpRefusals({ registry, clock, log }),
    });
    const url = server.url.replace('0.0.0.0', '127.0.0.1');
    const refused = (reason: string) =>
      metricValue(registry, 'makerd_http_refused_total', { reason });
    try {
      for (let i = 0; i < WRONG_TOKENS_ALLOWED; i++) {
        assert.equal((await call(url, 'GET', '/status', `wrong-${i}`)).status, 401);
      }
      const locked = await call(url, 'GET', '/status', CONTROL);
      assert.equal(locked.status, 429, 'locked out, the right token included');
      assert.equal(locked.res.headers.get('retry-after'), String(LOCK_MS / 1000));
      assert.match(String(locked.body.error), /^too many wrong tokens from .*: retry in 60 s$/);
      assert.equal(await refused('token'), WRONG_TOKENS_ALLOWED);
      assert.equal(await refused('throttled'), 1);
      assert.deepEqual(
        lines.map((l) => [l.msg, l.fields.reason, l.fields.status]),
        [['request refused', 'token', 401]],
        'one line for eleven refusals',
      );

      await clock.advance(LOCK_MS);
      assert.equal((await call(url, 'GET', '/status', CONTROL)).status, 200, 'the lock ends');
      assert.equal((await call(url, 'GET', '/status', 'wrong-again')).status, 401);
      assert.equal(lines.length, 2);
      assert.deepEqual(lines[1]?.fields, {
        remote: lines[0]?.fields.remote,
        reason: 'token',
        status: 401,
        notLogged: WRONG_TOKENS_ALLOWED,
      });
      assert.ok(!JSON.stringify(lines).includes('wrong-'), 'no token in the log');
    } finally {
      await server.close();
    }
  });

  void it('counts cross-site, Host and CSRF refusals by reason', async () => {
    const registry = new Registry();
    const server = await startHttpServer({
      host: '127.0.0.1',
      port: 0,
      tokens: {},
      routes,
      refusals: new HttpRefusals({ registry }),
    });
    try {
      const crossSite = await fetch(`${server.url}/halt`, {
        method: 'POST',
        headers: { origin: 'https://evil.example' },
      });
      assert.equal(crossSite.status, 403);
      assert.equal((await fetch(`${server.url}/console/halt`, { method: 'POST' })).status, 403);
      const port = new URL(server.url).port;
      const rebound = await new Promise<number>((resolve, reject) => {
        const req = httpRequest(
          { host: '127.0.0.1', port, path: '/status', headers: { host: `evil.example:${port}` } },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on('error', reject);
        req.end();
      });
      assert.equal(rebound, 403);
      for (const reason of ['cross_site', 'csrf', 'host']) {
        assert.equal(
          await metricValue(registry, 'makerd_http_refused_total', { reason }),
          1,
          reason,
        );
      }
    } finally {
      await server.close();
    }
  });
});
