/**
 * `npm test`: every test file (or the ones given) under Node's own runner, with a Redis: the one
 * at REDIS_URL (default 127.0.0.1:6379) when it answers, else a redis-server of our own on a free
 * port without persistence, stopped afterwards. So a fresh clone needs no Redis set up first.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findRedis } from '../src/daemon/redis-finder.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const given = process.argv.slice(2);
const files =
  given.length > 0
    ? given
    : readdirSync(join(root, 'test'), { recursive: true })
        .map(String)
        .filter((f) => f.endsWith('.test.ts'))
        .map((f) => relative(root, join(root, 'test', f)))
        .sort();

const redis = await findRedis(process.env.REDIS_URL || 'redis://127.0.0.1:6379');
if (redis.started) console.log(`test: no Redis answered; started redis-server at ${redis.url}`);
// Two files at a time: most tests wait on a simulator, Redis or a timer, and Node's default on a
// two-core machine (one file at a time) left CI at 14 minutes of its 15.
const concurrency = process.env.MAKERD_TEST_CONCURRENCY ?? '2';
const child = spawn(
  process.execPath,
  [
    '--import',
    'tsx',
    '--test',
    `--test-concurrency=${concurrency}`,
    '--test-reporter=spec',
    ...files,
  ],
  { cwd: root, stdio: 'inherit', env: { ...process.env, REDIS_URL: redis.url } },
);
const stopChild = (signal: NodeJS.Signals): void => void child.kill(signal);
process.on('SIGINT', stopChild);
process.on('SIGTERM', stopChild);
const [code, signal] = (await once(child, 'exit')) as [number | null, NodeJS.Signals | null];
await redis.close();
process.exitCode = code ?? (signal === null ? 1 : 128);
