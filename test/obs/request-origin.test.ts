import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InvalidInputError } from '../../src/core/index.js';
import { BearerToken, startHttpServer, WRONG_TOKENS_ALLOWED } from '../../src/obs/index.js';
import type { RouteRequest } from '../../src/obs/index.js';
import { rawRequest } from '../support/raw-request.js';

const SECRET = 'a-control-token-of-at-least-32-characters';
const TOKEN = new BearerToken({ variable: 'MAKERD_HTTP_TOKEN', value: SECRET }, { minLength: 32 });
const PUBLIC = 'https://makerd.example.com';

/** POST /halt answers with the address the endpoint took for the client. */
const routes = {
  'GET /status': () => ({ json: { mode: 'trading' } }),
  'POST /halt': (_body: Record<string, unknown>, req: RouteRequest) => ({
    json: { remote: req.remote ?? null },
  }),
};

/** A request as a proxy or a browser sends it: any Host, the token, the headers given. */
function send(url: string, path: string, headers: Record<string, string>, body?: string) {
  return rawRequest(url, {
    method: body === undefined ? 'GET' : 'POST',
    path,
    headers: { authorization: `Bearer ${SECRET}`, ...headers },
    ...(body === undefined ? {} : { body }),
  });
}

void describe('HTTP endpoint behind a reverse proxy', () => {
  void it('answers the public origin as its own and still refuses other hosts and sites', async () => {
    const server = await startHttpServer({
      host: '127.0.0.1',
      port: 0,
      tokens: { control: TOKEN },
      routes,
      publicOrigin: PUBLIC,
    });
    const url = server.url;
    const own = new URL(url).host;
    try {
      // The proxy passes the browser's Host on (Caddy, nginx with `Host $host`).
      assert.equal((await send(url, '/status', { host: 'makerd.example.com' })).status, 200);
      const rebinding = await send(url, '/status', { host: 'evil.example' });
      assert.equal(rebinding.status, 403);
      assert.deepEqual(rebinding.json, {
        error:
          'this endpoint answers only requests addressed to 127.0.0.1, localhost or makerd.example.com',
      });
      const browser = { 'sec-fetch-site': 'same-origin', origin: PUBLIC };
      // ...or its own Host (nginx's default): the Origin is still the public one.
      for (const host of ['makerd.example.com', own]) {
        const acted = await send(url, '/halt', { ...browser, host }, '{}');
        assert.equal(acted.status, 200, `Host ${host}`);
      }
      const foreign = await send(
        url,
        '/halt',
        { host: 'makerd.example.com', origin: 'https://evil.example' },
        '{}',
      );
      assert.equal(foreign.status, 403);
      assert.deepEqual(foreign.json, { error: 'cross-site request refused' });
      const marked = await send(
        url,
        '/halt',
        { ...browser, host: own, 'sec-fetch-site': 'cross-site' },
        '{}',
      );
      assert.equal(marked.status, 403, 'Sec-Fetch-Site: cross-site');
    } finally {
      await server.close();
    }
  });

  void it('refuses to publish an endpoint through a proxy without a token', async () => {
    await assert.rejects(
      startHttpServer({ host: '127.0.0.1', port: 0, tokens: {}, routes, publicOrigin: PUBLIC }),
      (err: unknown) =>
        err instanceof InvalidInputError &&
        err.field === 'http.token_env' &&
        err.message.includes('a token is required when http.public_origin is set'),
    );
  });

  void it('takes the client and its scheme from X-Forwarded-* of a trusted proxy only', async () => {
    const trusting = await startHttpServer({
      host: '0.0.0.0',
      port: 0,
      tokens: { control: TOKEN },
      routes,
      trustedProxies: ['127.0.0.1'],
    });
    const untrusting = await startHttpServer({
      host: '0.0.0.0',
      port: 0,
      tokens: { control: TOKEN },
      routes,
    });
    const local = (s: { url: string }) => s.url.replace('0.0.0.0', '127.0.0.1');
    const remoteOf = async (url: string, forwardedFor: string) =>
      (await send(url, '/halt', { 'x-forwarded-for': forwardedFor }, '{}')).json;
    try {
      const url = local(trusting);
      assert.deepEqual(await remoteOf(url, '198.51.100.7'), { remote: '198.51.100.7' });
      // What lies beyond the first untrusted hop is the client's own claim.
      assert.deepEqual(await remoteOf(url, '6.6.6.6, 198.51.100.7'), { remote: '198.51.100.7' });
      assert.deepEqual(await remoteOf(url, '198.51.100.7, 127.0.0.1'), { remote: '198.51.100.7' });
      assert.deepEqual(await remoteOf(local(untrusting), '198.51.100.7'), { remote: '127.0.0.1' });

      // A browser on https through the proxy, which passes the Host on: same origin only when
      // the proxy is believed to have taken it over TLS.
      const host = 'makerd.example.com';
      const browser = { host, origin: `https://${host}`, 'x-forwarded-proto': 'https' };
      assert.equal((await send(url, '/halt', browser, '{}')).status, 200);
      assert.equal((await send(local(untrusting), '/halt', browser, '{}')).status, 403);
      // Plain http on the same name is another origin (a page on port 80 of the proxy's host).
      const plain = { ...browser, origin: `http://${host}` };
      assert.equal((await send(url, '/halt', plain, '{}')).status, 403);
    } finally {
      await trusting.close();
      await untrusting.close();
    }
  });

  void it('locks out the client that sends wrong tokens, not everyone behind the proxy', async () => {
    const server = await startHttpServer({
      host: '0.0.0.0',
      port: 0,
      tokens: { control: TOKEN },
      routes,
      trustedProxies: ['127.0.0.1'],
    });
    const url = server.url.replace('0.0.0.0', '127.0.0.1');
    const status = async (client: string, token: string) =>
      (
        await rawRequest(url, {
          method: 'GET',
          path: '/status',
          headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': client },
        })
      ).status;
    try {
      for (let i = 0; i < WRONG_TOKENS_ALLOWED; i++) {
        assert.equal(await status('198.51.100.7', 'wrong'), 401);
      }
      assert.equal(await status('198.51.100.7', SECRET), 429, 'the guesser');
      assert.equal(await status('198.51.100.8', SECRET), 200, 'another client of the proxy');
    } finally {
      await server.close();
    }
  });
});
