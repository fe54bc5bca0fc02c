/**
 * Issue #41: `makerd halt|resume|pull|restore|status --http URL` ask a running process with the
 * token of MAKERD_HTTP_TOKEN (or its _FILE; reading takes MAKERD_HTTP_READ_TOKEN first), and a
 * refusal is one line naming the variable to set or check.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ManualClock } from '../../src/core/index.js';
import { askProcess } from '../../src/console/process-client.js';
import {
  BearerToken,
  HttpRefusals,
  WRONG_TOKENS_ALLOWED,
  startHttpServer,
  type RunningHttpServer,
} from '../../src/obs/index.js';

const CONTROL = 'control-token-0123456789abcdef0123456789';
const READ = 'read-token-0123456789abcdef0123456789abcd';

void describe('a running process asked from the command line', () => {
  let server: RunningHttpServer;
  let dir: string;
  const bodies: unknown[] = [];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'makerd-client-'));
    server = await startHttpServer({
      host: '127.0.0.1',
      port: 0,
      tokens: {
        control: new BearerToken({ variable: 'C', value: CONTROL }, { minLength: 1 }),
        read: new BearerToken({ variable: 'R', value: READ }, { minLength: 1 }),
      },
      routes: {
        'GET /status': () => ({ json: { mode: 'trading' } }),
        'POST /halt': (body) => {
          bodies.push(body);
          return { json: { halted: true, changed: true, outcome: 'halted' } };
        },
      },
      refusals: new HttpRefusals({ clock: new ManualClock(1_700_000_000_000) }),
    });
  });
  after(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('acts with the control token of MAKERD_HTTP_TOKEN_FILE, sending the body as JSON', async () => {
    const file = join(dir, 'token');
    writeFileSync(file, `${CONTROL}\n`);
    const answer = await askProcess(
      server.url,
      { post: 'halt', body: { reason: 'why', operator: 'bob@desk', via: 'cli' } },
      { MAKERD_HTTP_TOKEN_FILE: file },
    );
    assert.deepEqual(answer, { halted: true, changed: true, outcome: 'halted' });
    assert.deepEqual(bodies.at(-1), { reason: 'why', operator: 'bob@desk', via: 'cli' });
  });

  it('reads with the read token', async () => {
    assert.deepEqual(
      await askProcess(server.url, { get: 'status' }, { MAKERD_HTTP_READ_TOKEN: READ }),
      { mode: 'trading' },
    );
  });

  it('names the variable to set when the process wants a token', async () => {
    await assert.rejects(askProcess(server.url, { post: 'halt', body: {} }, {}), {
      message: `${server.url}/halt answered 401: missing or wrong bearer token (the process wants a token: set MAKERD_HTTP_TOKEN (or MAKERD_HTTP_TOKEN_FILE))`,
    });
    await assert.rejects(askProcess(server.url, { get: 'status' }, {}), {
      message: `${server.url}/status answered 401: missing or wrong bearer token (the process wants a token: set MAKERD_HTTP_READ_TOKEN (or MAKERD_HTTP_READ_TOKEN_FILE) or MAKERD_HTTP_TOKEN (or MAKERD_HTTP_TOKEN_FILE))`,
    });
  });

  it('says the read token cannot act, and which variable holds it', async () => {
    await assert.rejects(
      askProcess(server.url, { post: 'halt', body: {} }, { MAKERD_HTTP_TOKEN: READ }),
      {
        message: `${server.url}/halt answered 403: the read token cannot act: this needs the control token (MAKERD_HTTP_TOKEN holds the read token: set it to the control token)`,
      },
    );
  });

  it("names the variable whose token is wrong, then the lock-out's 429", async () => {
    const wrong = { MAKERD_HTTP_TOKEN: 'not-the-token' };
    await assert.rejects(askProcess(server.url, { post: 'halt', body: {} }, wrong), {
      message: `${server.url}/halt answered 401: missing or wrong bearer token (the token in MAKERD_HTTP_TOKEN is not the process's)`,
    });
    for (let i = 1; i < WRONG_TOKENS_ALLOWED; i++) {
      await askProcess(server.url, { post: 'halt', body: {} }, wrong).catch(() => undefined);
    }
    await assert.rejects(askProcess(server.url, { post: 'halt', body: {} }, wrong), (err) => {
      assert.match(
        (err as Error).message,
        /^http:\/\/127\.0\.0\.1:\d+\/halt answered 429: too many wrong tokens from 127\.0\.0\.1: retry in \d+ s \(check MAKERD_HTTP_TOKEN: wrong tokens lock the address out\)$/,
      );
      return true;
    });
  });

  it('refuses a URL that is not one, naming --http', async () => {
    await assert.rejects(askProcess('127.0.0.1:9464', { get: 'status' }, {}), {
      message: '--http: 127.0.0.1:9464 is not a URL (e.g. http://127.0.0.1:9464)',
    });
  });
});
