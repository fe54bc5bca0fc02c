import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { describe, it } from 'node:test';
import { InvalidInputError } from '../../src/core/index.js';
import { BearerToken, startHttpServer } from '../../src/obs/index.js';

const SECRET = 'a-control-token-of-at-least-32-characters';
const TOKEN = new BearerToken({ variable: 'MAKERD_HTTP_TOKEN', value: SECRET }, { minLength: 32 });

const routes = {
  'GET /status': () => ({ json: { mode: 'trading' } }),
  'POST /halt': (body: Record<string, unknown>) => ({ json: { reason: body.reason ?? null } }),
};

describe('HTTP endpoint', () => {
  it('refuses to listen beyond loopback without a token, naming the option', async () => {
    await assert.rejects(
      startHttpServer({ host: '0.0.0.0', port: 0, tokens: {}, routes }),
      (err: unknown) =>
        err instanceof InvalidInputError &&
        err.field === 'http.token_env' &&
        /a token is required when http.host is 0\.0\.0\.0/.test(err.message),
    );
  });

  it('names http.port when the address is taken by another process', async () => {
    const first = await startHttpServer({ host: '127.0.0.1', port: 0, tokens: {}, routes });
    try {
      const port = Number(new URL(first.url).port);
      await assert.rejects(
        startHttpServer({ host: '127.0.0.1', port, tokens: {}, routes }),
        (err: unknown) =>
          err instanceof InvalidInputError &&
          err.field === 'http.port' &&
          err.message.includes(`127.0.0.1:${port} is in use`),
      );
    } finally {
      await first.close();
    }
  });

  it('answers only requests carrying the bearer token when it has one', async () => {
    const server = await startHttpServer({
      host: '0.0.0.0',
      port: 0,
      tokens: { control: TOKEN },
      routes,
    });
    const url = server.url.replace('0.0.0.0', '127.0.0.1');
    try {
      assert.equal((await fetch(`${url}/status`)).status, 401);
      const wrong = await fetch(`${url}/status`, {
        headers: { authorization: `Bearer ${SECRET.slice(0, -1)}X` },
      });
      assert.equal(wrong.status, 401);
      const res = await fetch(`${url}/status`, { headers: { authorization: `Bearer ${SECRET}` } });
      assert.equal(res.status, 200);
      assert.deepEqual(await res.json(), { mode: 'trading' });
    } finally {
      await server.close();
    }
  });

  it('routes by method and path, parses JSON bodies and refuses bad ones', async () => {
    const server = await startHttpServer({ host: '127.0.0.1', port: 0, tokens: {}, routes });
    try {
      const post = (body: string) => fetch(`${server.url}/halt`, { method: 'POST', body });
      assert.deepEqual(await (await post('{"reason":"x"}')).json(), { reason: 'x' });
      assert.deepEqual(await (await post('')).json(), { reason: null });
      const bad = await post('[1,2]');
      assert.equal(bad.status, 400);
      assert.deepEqual(await bad.json(), { error: 'the body must be a JSON object' });
      assert.equal((await fetch(`${server.url}/halt`)).status, 404, 'GET is not POST');
    } finally {
      await server.close();
    }
  });

  it('answers 413 to a body over the limit, sent whole or in chunks of unknown length', async () => {
    const server = await startHttpServer({ host: '127.0.0.1', port: 0, tokens: {}, routes });
    try {
      const big = '{"reason":"' + 'x'.repeat(10 * 1024 * 1024) + '"}';
      const whole = await fetch(`${server.url}/halt`, { method: 'POST', body: big });
      assert.equal(whole.status, 413);
      assert.deepEqual(await whole.json(), { error: 'the body must be at most 16384 bytes' });
      // No Content-Length: the server counts what arrives.
      const chunks = new ReadableStream<Uint8Array>({
        start(controller) {
          for (let i = 0; i < 64; i++) controller.enqueue(new Uint8Array(1024).fill(32));
          controller.close();
        },
      });
      const streamed = await fetch(`${server.url}/halt`, {
        method: 'POST',
        body: chunks,
        duplex: 'half',
      });
      assert.equal(streamed.status, 413);
    } finally {
      await server.close();
    }
  });

  it('answers a loopback endpoint only under a loopback name, against DNS rebinding', async () => {
    const server = await startHttpServer({ host: '127.0.0.1', port: 0, tokens: {}, routes });
    try {
      const port = new URL(server.url).port;
      const get = (hostHeader: string) =>
        new Promise<number>((resolve, reject) => {
          const req = httpRequest(
            { host: '127.0.0.1', port, path: '/status', headers: { host: hostHeader } },
            (res) => {
              res.resume();
              resolve(res.statusCode ?? 0);
            },
          );
          req.on('error', reject);
          req.end();
        });
      assert.equal(await get(`127.0.0.1:${port}`), 200);
      assert.equal(await get(`localhost:${port}`), 200);
      assert.equal(await get(`evil.example:${port}`), 403);
    } finally {
      await server.close();
    }
  });

  it("refuses a browser's POST from another origin and lets tools and the same origin through", async () => {
    const server = await startHttpServer({ host: '127.0.0.1', port: 0, tokens: {}, routes });
    try {
      const post = (headers: Record<string, string>) =>
        fetch(`${server.url}/halt`, { method: 'POST', body: '{"reason":"x"}', headers });
      const refused = await post({ origin: 'https://evil.example' });
      assert.equal(refused.status, 403);
      assert.deepEqual(await refused.json(), {
        error:
          'cross-site request refused (behind a reverse proxy: name the origin the browser ' +
          'shows in http.public_origin)',
      });
      assert.equal((await post({ 'sec-fetch-site': 'cross-site' })).status, 403);
      assert.equal(
        (await post({ origin: server.url, 'sec-fetch-site': 'same-origin' })).status,
        200,
      );
      assert.equal((await post({})).status, 200, 'curl sends neither header');
    } finally {
      await server.close();
    }
  });

  it('serves public routes without the token and nothing else', async () => {
    const server = await startHttpServer({
      host: '0.0.0.0',
      port: 0,
      tokens: { control: TOKEN },
      routes: { ...routes, 'GET /console': () => ({ text: '<html>', contentType: 'text/html' }) },
      publicRoutes: new Set(['GET /console']),
    });
    const url = server.url.replace('0.0.0.0', '127.0.0.1');
    try {
      const page = await fetch(`${url}/console`);
      assert.equal(page.status, 200);
      assert.equal(await page.text(), '<html>');
      assert.equal((await fetch(`${url}/status`)).status, 401);
    } finally {
      await server.close();
    }
  });
});
