/**
 * One of several processes signing with the same API key through a shared RedisNonceSource:
 * `node --import tsx nonce-client-worker.ts`, configured by environment (never argv, which other
 * users can read): FAKE_URL, API_KEY, API_SECRET, NONCE_KEY, NONCE_WINDOW, COUNT, REDIS_URL.
 *
 * It builds its client, prints `ready`, waits for a line on stdin (so the parent can release all
 * workers at once), fires COUNT concurrent balance() calls, and prints one JSON line: the nonces in
 * the order the client signed them (from the `makerd:exchange:signed` channel), how many calls
 * succeeded and the errors of those that did not.
 */
import { subscribe } from 'node:diagnostics_channel';
import { createInterface } from 'node:readline';
import { Redis } from 'ioredis';
import { RedisNonceSource, SpotClient } from '../../src/index.js';

const env = (name: string): string => {
  const v = process.env[name];
  if (v === undefined || v === '') {
    process.stderr.write(`missing ${name}\n`);
    process.exit(2);
  }
  return v;
};

const count = Number(env('COUNT'));
const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
const client = new SpotClient({
  baseUrl: env('FAKE_URL'),
  credentials: { apiKey: env('API_KEY'), apiSecret: env('API_SECRET') },
  nonceSource: new RedisNonceSource({ redis, key: env('NONCE_KEY') }),
  nonceWindow: Number(env('NONCE_WINDOW')),
  restLimiter: false,
  transport: { connectionsPerOrigin: 32 },
  retry: { retries: 3, baseDelayMs: 1, maxDelayMs: 5 },
});

const signed: string[] = [];
subscribe('makerd:exchange:signed', (message) => {
  const m = message as { endpoint: string; nonce: string };
  if (m.endpoint === 'Balance') signed.push(m.nonce);
});

try {
  await redis.ping();
  process.stdout.write('ready\n');
  await waitForGo();
  const results = await Promise.allSettled(Array.from({ length: count }, () => client.balance()));
  const errors = results
    .filter((r): r is PromiseRejectedResult => r.status === 'rejected')
    .map((r) => String(r.reason));
  process.stdout.write(
    `${JSON.stringify({ pid: process.pid, signed, ok: count - errors.length, errors })}\n`,
  );
} finally {
  await client.close();
  await redis.quit();
}

function waitForGo(): Promise<void> {
  const lines = createInterface({ input: process.stdin });
  return new Promise<void>((resolve, reject) => {
    const onClose = (): void => reject(new Error('stdin closed before go'));
    lines.once('close', onClose);
    lines.once('line', () => {
      lines.off('close', onClose);
      lines.close();
      process.stdin.destroy();
      resolve();
    });
  });
}
