/**
 * A stand-in exchange for the throughput benchmark, run in its own process so that serving does
 * not share the client's event loop. Answers `POST /0/private/Balance` with a small spot envelope
 * and an `x-trace-id`; reads and parses the form body (no signature check). Prints
 * `PORT <n>` on stdout once listening, and exits when its stdin closes (the parent went away).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';

const BALANCE = Buffer.from(
  JSON.stringify({
    error: [],
    result: { ZUSD: '171288.6158', XXBT: '0.5000000000', XETH: '12.0000000000' },
  }),
);
const NOT_FOUND = Buffer.from(JSON.stringify({ error: ['EGeneral:Unknown method'] }));
const BAD_REQUEST = Buffer.from(JSON.stringify({ error: ['EAPI:Invalid nonce'] }));

let traceSeq = 0;
let served = 0;

function reply(res: ServerResponse, status: number, body: Buffer): void {
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': body.length,
    'x-trace-id': `bench-${(++traceSeq).toString(36)}`,
  });
  res.end(body);
}

function handle(req: IncomingMessage, res: ServerResponse): void {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    if (req.method !== 'POST' || req.url !== '/0/private/Balance') {
      reply(res, 404, NOT_FOUND);
      return;
    }
    const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
    const nonce = form.get('nonce');
    if (nonce === null || !/^\d+$/.test(nonce) || req.headers['api-sign'] === undefined) {
      reply(res, 200, BAD_REQUEST);
      return;
    }
    served++;
    reply(res, 200, BALANCE);
  });
}

const server = createServer({ keepAliveTimeout: 30_000 }, handle);
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  process.stdout.write(`PORT ${address.port}\n`);
});

function shutdown(): void {
  process.stderr.write(`bench server: served ${served} requests\n`);
  server.closeAllConnections();
  server.close();
  process.exit(0);
}

process.stdin.on('end', shutdown);
process.stdin.on('close', shutdown);
process.stdin.resume();
process.on('SIGTERM', shutdown);
