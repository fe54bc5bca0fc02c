import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { TransportError } from '../../src/exchange/errors/index.js';
import { HttpTransport } from '../../src/exchange/transport/http-transport.js';

/** Answers by path: how each answer is put on the wire is what these tests are about. */
function answer(req: IncomingMessage, res: ServerResponse): void {
  switch (req.url) {
    case '/chunked':
      // No content-length: chunked transfer encoding, one chunk per write.
      res.setHeader('content-type', 'application/json');
      res.setHeader('x-trace-id', 'trace-chunked');
      res.write('{"error":[],');
      setTimeout(() => res.end('"result":{"n":"1"}}'), 20);
      return;
    case '/early-hints':
      res.writeEarlyHints({ link: '</x>; rel=preload', 'x-trace-id': 'trace-hint' });
      res.setHeader('x-trace-id', 'trace-final');
      res.end('{"error":[],"result":{}}');
      return;
    case '/binary':
      res.setHeader('content-type', 'application/zip');
      res.end(Buffer.from([0x50, 0x4b, 0x00, 0xff]));
      return;
    case '/half-body':
      // Headers, part of the body, then the connection is dropped.
      res.setHeader('x-trace-id', 'trace-half');
      res.write('{"error":[],');
      setTimeout(() => res.socket?.destroy(), 20);
      return;
    default:
      res.statusCode = 404;
      res.end();
  }
}

void describe('HttpTransport answers', () => {
  const server = createServer(answer);
  const transport = new HttpTransport();
  let base = '';
  before(async () => {
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    await transport.close();
    server.close();
  });

  const get = (path: string, extra: { binary?: boolean; signal?: AbortSignal } = {}) =>
    transport.send({
      method: 'GET',
      url: `${base}${path}`,
      headers: {},
      endpoint: 'Test',
      ...extra,
    });

  void it('joins a body that arrives in chunks, with its trace id and content type', async () => {
    const res = await get('/chunked');
    assert.equal(res.status, 200);
    assert.equal(res.body, '{"error":[],"result":{"n":"1"}}');
    assert.equal(res.traceId, 'trace-chunked');
    assert.equal(res.contentType, 'application/json');
    assert.equal(res.bytes, undefined);
  });

  void it('skips an informational answer and returns the final one', async () => {
    const res = await get('/early-hints');
    assert.equal(res.status, 200);
    assert.equal(res.traceId, 'trace-final');
    assert.equal(res.body, '{"error":[],"result":{}}');
  });

  void it('returns a binary body as its bytes', async () => {
    const res = await get('/binary', { binary: true });
    assert.deepEqual([...(res.bytes ?? [])], [0x50, 0x4b, 0x00, 0xff]);
    assert.equal(res.body, '');
    assert.equal(res.contentType, 'application/zip');
  });

  void it('fails a body cut short as TRANSPORT_BODY, outcome unknown, naming the trace', async () => {
    const err = await get('/half-body').then(
      () => assert.fail('a cut body resolved'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof TransportError);
    assert.equal(err.code, 'TRANSPORT_BODY');
    assert.equal(err.outcome, 'unknown');
    assert.match(err.message, /trace trace-half/);
  });

  void it('fails an abort without an error reason as TRANSPORT_ABORTED', async () => {
    const ac = new AbortController();
    const sent = get('/chunked', { signal: ac.signal });
    ac.abort('no reason object');
    const err = await sent.then(
      () => assert.fail('an aborted request resolved'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof TransportError);
    assert.equal(err.code, 'TRANSPORT_ABORTED');
    assert.equal(err.outcome, 'unknown');
  });

  void it('fails a URL it cannot parse without sending anything', async () => {
    const err = await transport
      .send({ method: 'GET', url: 'not a url', headers: {}, endpoint: 'Test' })
      .then(
        () => assert.fail('resolved'),
        (e: unknown) => e,
      );
    assert.ok(err instanceof TransportError);
  });
});
