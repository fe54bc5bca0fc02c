/**
 * A Redis of the benchmark's own (`redis-server` from PATH, no persistence, a free port): its
 * `INFO commandstats` then counts makerd's commands only, not those of whatever else shares the
 * machine's Redis.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { Redis } from 'ioredis';
import { freePort } from '../../src/core/free-port.js';

export interface OwnRedis {
  readonly url: string;
  stop(): Promise<void>;
}

export async function startRedisServer(): Promise<OwnRedis> {
  const port = await freePort();
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  const failed = once(child, 'error').then(([err]) => {
    throw new Error(`redis-server: ${(err as Error).message} (needs redis-server on PATH)`);
  });
  const url = `redis://127.0.0.1:${port}`;
  const ready = (async () => {
    for (let i = 0; i < 100; i++) {
      const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0 });
      probe.on('error', () => undefined);
      try {
        await probe.connect();
        await probe.ping();
        return;
      } catch {
        await new Promise((r) => setTimeout(r, 100));
      } finally {
        probe.disconnect();
      }
    }
    throw new Error(`redis-server on port ${port} did not answer in 10 s`);
  })();
  await Promise.race([ready, failed]);
  return {
    url,
    stop: async () => {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}
