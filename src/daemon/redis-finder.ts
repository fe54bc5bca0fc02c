import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { freePort, MakerdError } from '../core/index.js';

/** A Redis a command can use (the demo, a backtest, a sweep, the tests), and how to let go of it. */
export interface FoundRedis {
  readonly url: string;
  /** Set when the demo started its own redis-server (no persistence; stopped with the demo). */
  readonly started?: { readonly port: number; readonly pid: number | undefined };
  close(): Promise<void>;
}

export class NoRedisError extends MakerdError {
  constructor(url: string, binary: string) {
    super(
      'NO_REDIS',
      `no Redis answers at ${url} and ${binary} is not installed: install it (Debian or Ubuntu: sudo apt-get install redis-server; macOS: brew install redis), or set REDIS_URL to a Redis that runs`,
    );
  }
}

/**
 * The Redis at `url` if one answers; otherwise a redis-server of our own on a free loopback port,
 * without persistence (a demo's state is worth nothing once it stops), stopped by close().
 */
export async function findRedis(url: string, binary = 'redis-server'): Promise<FoundRedis> {
  if (await answers(url)) return { url, close: () => Promise.resolve() };
  const port = await freePort();
  const child = spawn(
    binary,
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  const failed = once(child, 'error').then(([err]) => err as NodeJS.ErrnoException);
  const ownUrl = `redis://127.0.0.1:${port}`;
  // Never outlive the demo, even when it dies without closing.
  const kill = (): void => void child.kill('SIGTERM');
  process.once('exit', kill);
  for (let i = 0; i < 50; i++) {
    const error = await Promise.race([failed, sleep(100).then(() => undefined)]);
    if (error !== undefined) {
      process.off('exit', kill);
      if (error.code === 'ENOENT') throw new NoRedisError(url, binary);
      throw new MakerdError('NO_REDIS', `starting ${binary} failed: ${error.message}`);
    }
    if (child.exitCode !== null) break;
    if (await answers(ownUrl)) {
      return {
        url: ownUrl,
        started: { port, pid: child.pid },
        close: () => stopChild(child, kill),
      };
    }
  }
  process.off('exit', kill);
  child.kill('SIGKILL');
  throw new MakerdError('NO_REDIS', `${binary} on port ${port} did not answer within 5 s`);
}

async function answers(url: string): Promise<boolean> {
  const redis = new Redis(url, {
    lazyConnect: true,
    connectTimeout: 1_000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    return (await redis.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    redis.disconnect();
  }
}

async function stopChild(child: ChildProcess, kill: () => void): Promise<void> {
  process.off('exit', kill);
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  await exited;
}
