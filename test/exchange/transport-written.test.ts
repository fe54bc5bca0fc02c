import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { HttpTransport } from '../../src/exchange/transport/http-transport.js';

void describe('HttpTransport onWritten', () => {
  const events: string[] = [];
  let release: (() => void) | undefined;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      events.push(`server got ${req.method} ${body}`);
      // The answer waits until the test lets it go, so "written" cannot be the answer.
      release = () => res.end('{"error":[],"result":{}}');
    });
  });
  const transport = new HttpTransport();
  let url = '';
  before(async () => {
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/0/private/AddOrder`;
  });
  after(async () => {
    await transport.close();
    server.close();
  });

  void it('is called once the request is written, before any answer, on new and reused sockets', async () => {
    for (const round of [1, 2]) {
      events.length = 0;
      const sent = transport.send({
        method: 'POST',
        url,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: `nonce=${round}`,
        endpoint: 'AddOrder',
        onWritten: () => events.push('written'),
      });
      while (release === undefined) await new Promise((r) => setImmediate(r));
      assert.deepEqual(events, ['written', `server got POST nonce=${round}`], `round ${round}`);
      release();
      release = undefined;
      assert.equal((await sent).status, 200);
      assert.deepEqual(events, ['written', `server got POST nonce=${round}`], 'called once');
    }
  });

  void it('is not called for a request never written', async () => {
    let written = 0;
    await assert.rejects(
      transport.send({
        method: 'POST',
        url,
        headers: {},
        body: 'nonce=3',
        endpoint: 'AddOrder',
        signal: AbortSignal.abort(),
        onWritten: () => (written += 1),
      }),
    );
    assert.equal(written, 0);
  });
});
