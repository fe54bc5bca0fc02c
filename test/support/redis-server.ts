import { spawn, type ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';
import { until } from './until.js';

/**
 * A redis-server of the test's own on `port`, without persistence: a test may kill it (lost
 * state) or pause it (a hung Redis) without touching the Redis other tests share.
 */
export async function redisServer(port: number): Promise<ChildProcess> {
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  const probe = new Redis(`redis://127.0.0.1:${port}`, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  probe.on('error', () => undefined);
  try {
    await until(`redis-server on ${port}`, async () => {
      try {
        if (probe.status !== 'ready') await probe.connect();
        return (await probe.ping()) === 'PONG' ? true : undefined;
      } catch {
        probe.disconnect();
        return undefined;
      }
    });
  } finally {
    probe.disconnect();
  }
  return child;
}
