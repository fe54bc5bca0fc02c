/**
 * DirectTransport, order entry's transport: what it writes, when (in the send call itself), how
 * it reads answers however they are framed or cut, and which outcome each failure reports
 * (`not-sent` only when the exchange cannot have seen the request).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import { TransportError } from '../../src/exchange/errors/index.js';
import { DirectTransport } from '../../src/exchange/transport/direct-transport.js';
import type { HttpRequest } from '../../src/exchange/transport/types.js';

const BODY = 'nonce=1&pair=XBTUSD&price=37500.0';

function post(base: string, path: string, extra: Partial<HttpRequest> = {}): HttpRequest {
  return {
    method: 'POST',
    url: `${base}${path}`,
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'api-key': 'k' },
    body: BODY,
    endpoint: 'AddOrder',
    ...extra,
  };
}

async function rejection(p: Promise<unknown>): Promise<TransportError> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof TransportError, `a TransportError, got ${String(err)}`);
    return err;
  }
  assert.fail('expected the send to fail');
}

interface Seen {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
}

void describe('DirectTransport against an HTTP server', () => {
  const seen: Seen[] = [];
  let connections = 0;
  let hold: (() => void) | undefined;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      answer(req, res);
    });
  });
  server.on('connection', () => (connections += 1));
  server.keepAliveTimeout = 60_000;
  let base = '';
  const transports: DirectTransport[] = [];
  const transport = (options: ConstructorParameters<typeof DirectTransport>[0] = {}) => {
    const t = new DirectTransport(options);
    transports.push(t);
    return t;
  };

  function answer(req: IncomingMessage, res: ServerResponse): void {
    switch (req.url) {
      case '/0/private/AddOrder':
        res.setHeader('content-type', 'application/json');
        res.setHeader('x-trace-id', 'trace-add');
        res.end('{"error":[],"result":{"txid":["O1"]}}');
        return;
      case '/held':
        hold = () => res.end('{"error":[],"result":{}}');
        return;
      case '/chunked':
        res.write('{"error":[],');
        setTimeout(() => res.end('"result":{"n":"1"}}'), 10);
        return;
      case '/early-hints':
        res.writeEarlyHints({ link: '</x>; rel=preload' });
        res.setHeader('x-trace-id', 'trace-final');
        res.end('{"error":[],"result":{}}');
        return;
      case '/no-content':
        res.statusCode = 204;
        res.end();
        return;
      case '/close':
        res.setHeader('connection', 'close');
        res.end('{"error":[],"result":{"closed":true}}');
        return;
      case '/drop':
        res.socket?.destroy();
        return;
      case '/half-body':
        res.setHeader('x-trace-id', 'trace-half');
        res.write('{"error":[],');
        setTimeout(() => res.socket?.destroy(), 10);
        return;
      case '/silent':
        return;
      default:
        res.statusCode = 404;
        res.end('not here');
    }
  }

  before(async () => {
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  beforeEach(async () => {
    // The server hears of the last test's connections a moment after they were made or closed.
    await delay(30);
    seen.length = 0;
    connections = 0;
    hold = undefined;
  });
  afterEach(async () => {
    await Promise.all(transports.splice(0).map((t) => t.close()));
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });

  void it('writes the request line, host, user agent, headers, length and body; returns the answer', async () => {
    const res = await transport().send(post(base, '/0/private/AddOrder'));
    assert.equal(res.status, 200);
    assert.equal(res.body, '{"error":[],"result":{"txid":["O1"]}}');
    assert.equal(res.traceId, 'trace-add');
    assert.equal(res.contentType, 'application/json');
    const [r] = seen;
    assert.equal(r?.method, 'POST');
    assert.equal(r?.url, '/0/private/AddOrder');
    assert.equal(r?.body, BODY);
    assert.equal(r?.headers.host, base.slice('http://'.length));
    assert.equal(r?.headers['user-agent'], 'makerd/0.1.0');
    assert.equal(r?.headers['api-key'], 'k');
    assert.equal(r?.headers['content-length'], String(BODY.length));
  });

  void it('writes on a ready connection within the send call, before any answer', async () => {
    const t = transport();
    await t.preconnect(base);
    let written = false;
    const answered = t.send(post(base, '/held', { onWritten: () => (written = true) }));
    assert.equal(written, true, 'written when send() returned');
    await delay(20);
    assert.equal(seen.length, 1, 'the server has the request');
    hold?.();
    assert.equal((await answered).status, 200);
  });

  void it('keeps its warm connections: one burst and then sequential calls reuse them', async () => {
    const t = transport({ warmConnections: 2 });
    await t.preconnect(base);
    await delay(20);
    assert.equal(connections, 2, 'two warm connections made ahead');
    for (let i = 0; i < 5; i++) await t.send(post(base, '/0/private/AddOrder'));
    assert.equal(connections, 2, 'no connection made on the way of a call');
  });

  void it('keeps as many connections ready as asked: a burst of four is written at once', async () => {
    const t = transport({ warmConnections: 2 });
    await t.preconnect(base, 4);
    await delay(20);
    assert.equal(connections, 4, 'four connections made ahead');
    const written: boolean[] = [];
    const answers = [0, 1, 2, 3].map((i) => {
      const p = t.send(post(base, '/0/private/AddOrder', { onWritten: () => (written[i] = true) }));
      assert.equal(written[i], true, `call ${i} written within its send`);
      return p;
    });
    await Promise.all(answers);
    assert.equal(connections, 4, 'no connection made on the way');
  });

  void it('queues calls beyond its connections and sends each once one is free', async () => {
    const t = transport({ connectionsPerOrigin: 1, warmConnections: 1 });
    const answers = await Promise.all(
      [1, 2, 3].map(() => t.send(post(base, '/0/private/AddOrder'))),
    );
    assert.deepEqual(
      answers.map((a) => a.status),
      [200, 200, 200],
    );
    assert.equal(connections, 1);
    assert.equal(seen.length, 3);
  });

  void it('reads chunked bodies, skips informational answers, returns a 204 at once', async () => {
    const t = transport();
    assert.equal((await t.send(post(base, '/chunked'))).body, '{"error":[],"result":{"n":"1"}}');
    const hinted = await t.send(post(base, '/early-hints'));
    assert.equal(hinted.status, 200);
    assert.equal(hinted.traceId, 'trace-final');
    const empty = await t.send(post(base, '/no-content'));
    assert.equal(empty.status, 204);
    assert.equal(empty.body, '');
    assert.equal((await t.send(post(base, '/nowhere'))).status, 404, 'statuses are returned');
  });

  void it('closes a connection the server closes after its answer and goes on on another', async () => {
    const t = transport({ warmConnections: 1 });
    assert.equal(
      (await t.send(post(base, '/close'))).body,
      '{"error":[],"result":{"closed":true}}',
    );
    assert.equal((await t.send(post(base, '/0/private/AddOrder'))).status, 200);
    assert.equal(connections, 2);
  });

  void it('a connection dropped before the answer: connection lost, outcome unknown', async () => {
    const err = await rejection(transport().send(post(base, '/drop')));
    assert.equal(err.code, 'TRANSPORT_CONNECTION_LOST');
    assert.equal(err.outcome, 'unknown');
  });

  void it('a body cut short: body broken, outcome unknown, with the trace id', async () => {
    const err = await rejection(transport().send(post(base, '/half-body')));
    assert.equal(err.code, 'TRANSPORT_BODY');
    assert.equal(err.outcome, 'unknown');
    assert.equal(err.traceId, 'trace-half');
  });

  void it('no answer in time: timeout, outcome unknown', async () => {
    const err = await rejection(transport({ headersTimeoutMs: 50 }).send(post(base, '/silent')));
    assert.equal(err.code, 'TRANSPORT_TIMEOUT');
    assert.equal(err.outcome, 'unknown');
  });

  void it('aborted after the write: outcome unknown; aborted before: not sent, nothing written', async () => {
    const t = transport();
    const after = new AbortController();
    const p = t.send(post(base, '/silent', { signal: after.signal }));
    await delay(20);
    after.abort(new Error('deadline'));
    const late = await rejection(p);
    assert.equal(late.code, 'TRANSPORT_ABORTED');
    assert.equal(late.outcome, 'unknown');
    const before = new AbortController();
    before.abort(new Error('gone'));
    const early = await rejection(
      t.send(post(base, '/0/private/AddOrder', { signal: before.signal })),
    );
    assert.equal(early.outcome, 'not-sent');
    assert.equal(seen.filter((s) => s.url === '/0/private/AddOrder').length, 0);
  });

  void it('refuses a header value with a line break: not sent, nothing written', async () => {
    const t = transport();
    const err = await rejection(
      t.send(post(base, '/0/private/AddOrder', { headers: { 'api-key': 'k\r\nx-evil: 1' } })),
    );
    assert.equal(err.code, 'TRANSPORT_BAD_REQUEST');
    assert.equal(err.outcome, 'not-sent');
    assert.match(err.message, /header api-key/);
    await delay(20);
    assert.equal(seen.length, 0);
  });

  void it('does not reuse a connection idle past its limit: the next call gets a fresh one', async () => {
    const t = transport({ keepAliveTimeoutMs: 100, warmConnections: 1 });
    await t.send(post(base, '/0/private/AddOrder'));
    const before = connections;
    await delay(250);
    await t.send(post(base, '/0/private/AddOrder'));
    assert.ok(connections > before, `a new connection (${before} → ${connections})`);
  });

  void it('refuses calls once closed, as not sent', async () => {
    const t = transport();
    await t.send(post(base, '/0/private/AddOrder'));
    await t.close();
    const err = await rejection(t.send(post(base, '/0/private/AddOrder')));
    assert.equal(err.code, 'TRANSPORT_CONNECT');
    assert.equal(err.outcome, 'not-sent');
  });
});

void describe('DirectTransport at the byte level', () => {
  let server: ReturnType<typeof createNetServer> | undefined;
  const sockets: Socket[] = [];
  afterEach(() => {
    for (const s of sockets.splice(0)) s.destroy();
    server?.close();
    server = undefined;
  });

  /** A raw server: `onRequest` gets each socket's first request bytes. */
  async function rawServer(onRequest: (socket: Socket) => void): Promise<string> {
    server = createNetServer((socket) => {
      sockets.push(socket);
      socket.once('data', () => onRequest(socket));
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  void it('parses an answer that arrives one byte at a time', async () => {
    const answer =
      'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nx-trace-id: t-1\r\n' +
      'content-length: 24\r\n\r\n{"error":[],"result":{}}';
    const base = await rawServer((socket) => {
      void (async () => {
        for (const ch of answer) {
          socket.write(ch);
          await delay(1);
        }
      })();
    });
    const t = new DirectTransport({ warmConnections: 0 });
    try {
      const res = await t.send(post(base, '/x'));
      assert.equal(res.body, '{"error":[],"result":{}}');
      assert.equal(res.traceId, 't-1');
    } finally {
      await t.close();
    }
  });

  void it('a malformed answer: connection lost, outcome unknown', async () => {
    const base = await rawServer((socket) => socket.write('NOT HTTP AT ALL\r\n\r\n'));
    const t = new DirectTransport({ warmConnections: 0 });
    try {
      const err = await rejection(t.send(post(base, '/x')));
      assert.equal(err.outcome, 'unknown');
    } finally {
      await t.close();
    }
  });

  void it('drops a connection that receives bytes it did not ask for', async () => {
    let first: Socket | undefined;
    let made = 0;
    const base = await rawServer((socket) => {
      made += 1;
      first ??= socket;
      socket.write('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}');
      socket.on('data', () => socket.write('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}'));
    });
    const t = new DirectTransport({ warmConnections: 0 });
    try {
      await t.send(post(base, '/x'));
      first?.write('HTTP/1.1 408 Request Timeout\r\ncontent-length: 0\r\n\r\n');
      await delay(20);
      assert.equal((await t.send(post(base, '/x'))).status, 200);
      assert.equal(made, 2, 'the second call went on a new connection');
    } finally {
      await t.close();
    }
  });

  void it('cannot connect: not sent', async () => {
    const probe = createNetServer();
    probe.listen(0, '127.0.0.1');
    await once(probe, 'listening');
    const port = (probe.address() as AddressInfo).port;
    probe.close();
    await once(probe, 'close');
    const t = new DirectTransport({ warmConnections: 0 });
    try {
      const err = await rejection(t.send(post(`http://127.0.0.1:${port}`, '/x')));
      assert.equal(err.code, 'TRANSPORT_CONNECT');
      assert.equal(err.outcome, 'not-sent');
    } finally {
      await t.close();
    }
  });
});

void describe('DirectTransport over TLS', () => {
  let dir = '';
  let server: ReturnType<typeof createHttpsServer> | undefined;
  let cert = '';
  let base = '';
  let connections = 0;
  before(async () => {
    // A throwaway self-signed certificate for 127.0.0.1, made for this run only.
    dir = mkdtempSync(join(tmpdir(), 'makerd-tls-'));
    const made = spawnSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
      ],
      { encoding: 'utf8' },
    );
    assert.equal(made.status, 0, `openssl made the test certificate: ${made.stderr}`);
    cert = readFileSync(join(dir, 'cert.pem'), 'utf8');
    server = createHttpsServer(
      { key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert },
      (_req, res) => {
        res.setHeader('x-trace-id', 'trace-tls');
        res.end('{"error":[],"result":{"tls":true}}');
      },
    );
    server.on('secureConnection', () => (connections += 1));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    base = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => {
    server?.closeAllConnections();
    server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  void it('sends over https to a certificate it trusts, on warm connections', async () => {
    const t = new DirectTransport({ ca: cert, warmConnections: 1 });
    try {
      await t.preconnect(base);
      let written = false;
      const p = t.send(post(base, '/0/private/AddOrder', { onWritten: () => (written = true) }));
      assert.equal(written, true, 'written within the send call');
      const res = await p;
      assert.equal(res.body, '{"error":[],"result":{"tls":true}}');
      assert.equal(res.traceId, 'trace-tls');
      await t.send(post(base, '/0/private/AddOrder'));
      assert.equal(connections, 1, 'one TLS connection, made ahead and reused');
    } finally {
      await t.close();
    }
  });

  void it('refuses a certificate it does not trust: not sent', async () => {
    const t = new DirectTransport({ warmConnections: 0 });
    try {
      const err = await rejection(t.send(post(base, '/0/private/AddOrder')));
      assert.equal(err.code, 'TRANSPORT_CONNECT');
      assert.equal(err.outcome, 'not-sent');
      assert.match(err.message, /self.signed|certificate/i);
    } finally {
      await t.close();
    }
  });
});
