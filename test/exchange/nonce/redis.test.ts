import assert from 'node:assert/strict';
import { spawn, type ChildProcess, type ChildProcessByStdio } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, it, type TestContext } from 'node:test';
import { Redis } from 'ioredis';
import { InvalidInputError, ManualClock } from '../../../src/core/index.js';
import {
  MAX_NONCE,
  NonceError,
  RedisNonceSource,
  nonceKeyFor,
  type NonceErrorCode,
} from '../../../src/exchange/nonce/index.js';
import { SettableClock } from '../../support/settable-clock.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const WORKER = fileURLToPath(new URL('./fixtures/nonce-worker.ts', import.meta.url));
const T0 = 1_700_000_000_000;

function assertStrictlyIncreasing(values: readonly number[], label = 'nonce'): void {
  for (let i = 1; i < values.length; i++) {
    const prev = values[i - 1] ?? -Infinity;
    const cur = values[i] ?? -Infinity;
    assert.ok(cur > prev, `${label} #${i} = ${cur} is not above #${i - 1} = ${prev}`);
  }
}

function isNonceError(code: NonceErrorCode, ...fragments: string[]) {
  return (err: unknown): boolean => {
    assert.ok(err instanceof NonceError, `expected a NonceError, got ${String(err)}`);
    assert.equal(err.code, code);
    for (const fragment of fragments) assert.match(err.message, new RegExp(escape(fragment)));
    return true;
  };
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

void describe('nonceKeyFor', () => {
  void it('names the key by a hash prefix so the API key never reaches Redis', () => {
    const apiKey = 'K3yWithSecretishChars/+==';
    const key = nonceKeyFor(apiKey);
    const digest = createHash('sha256').update(apiKey).digest('hex');
    assert.equal(key, `makerd:nonce:${digest.slice(0, 16)}`);
    assert.ok(!key.includes(apiKey));
    assert.equal(nonceKeyFor(apiKey), key);
    assert.notEqual(nonceKeyFor(`${apiKey}x`), key);
  });
});

void describe('RedisNonceSource', () => {
  let key: string;
  let connections: Redis[];
  let children: ChildProcess[];

  function connect(): Redis {
    const redis = new Redis(REDIS_URL);
    connections.push(redis);
    return redis;
  }

  beforeEach(() => {
    key = `makerd:test:nonce:${randomUUID()}`;
    connections = [];
    children = [];
  });

  afterEach(async () => {
    for (const child of children) if (child.exitCode === null) child.kill();
    const admin = connect();
    await admin.del(key);
    await Promise.all(connections.filter((c) => c.status !== 'end').map((c) => c.quit()));
  });

  void it('refuses an empty key', () => {
    assert.throws(() => new RedisNonceSource({ redis: connect(), key: '' }), InvalidInputError);
  });

  void it('starts at the clock on a fresh key and stores what it handed out', async () => {
    const redis = connect();
    const source = new RedisNonceSource({ redis, key, clock: new ManualClock(T0) });
    assert.equal(await source.next(), T0);
    assert.equal(await source.next(), T0 + 1);
    assert.equal(await redis.get(key), String(T0 + 1));
  });

  void it('keeps increasing when the clock goes backwards', async () => {
    const clock = new SettableClock(T0);
    const source = new RedisNonceSource({ redis: connect(), key, clock });
    const seen: number[] = [];
    for (const ms of [T0, T0, T0 - 3_600_000, T0 - 1, T0 + 2, 0, T0 + 10_000, T0 + 5]) {
      clock.ms = ms;
      seen.push(await source.next());
    }
    assertStrictlyIncreasing(seen);
    assert.deepEqual(seen, [T0, T0 + 1, T0 + 2, T0 + 3, T0 + 4, T0 + 5, T0 + 10_000, T0 + 10_001]);
  });

  void it('continues above the last nonce after a restart with a clock that is behind', async () => {
    const first = connect();
    const before = new RedisNonceSource({ redis: first, key, clock: new ManualClock(T0) });
    let last = 0;
    for (let i = 0; i < 5; i++) last = await before.next();
    await first.quit();

    const after = new RedisNonceSource({
      redis: connect(),
      key,
      clock: new ManualClock(T0 - 60_000),
    });
    assert.equal(await after.next(), last + 1);
  });

  void it('keeps integers exact up to 2^53 - 1', async () => {
    const redis = connect();
    const source = new RedisNonceSource({ redis, key, clock: new ManualClock(T0) });
    // 16 digits: Lua's default number formatting would print 1.2345678901235e+15 here.
    await redis.set(key, '1234567890123456');
    assert.equal(await source.next(), 1_234_567_890_123_457);
    assert.equal(await redis.get(key), '1234567890123457');
    await redis.set(key, String(MAX_NONCE - 1));
    assert.equal(await source.next(), MAX_NONCE);
    assert.equal(await redis.get(key), String(MAX_NONCE));
    await assert.rejects(source.next(), isNonceError('NONCE_EXHAUSTED', key));
    assert.equal(await redis.get(key), String(MAX_NONCE));
  });

  void it('refuses a stored value that is not an integer, and leaves it for an operator', async () => {
    const redis = connect();
    const source = new RedisNonceSource({ redis, key, clock: new ManualClock(T0) });
    const corrupt = [
      '1.5',
      'abc',
      '',
      '-5',
      ' 17',
      '1e15',
      '12345678901234567',
      '9007199254740993',
    ];
    for (const value of corrupt) {
      await redis.set(key, value);
      await assert.rejects(
        source.next(),
        isNonceError('NONCE_STATE_CORRUPT', key, `"${value}"`, 'not an integer'),
        `stored ${JSON.stringify(value)}`,
      );
      assert.equal(await redis.get(key), value);
    }
  });

  void it('refuses a key that holds another Redis type', async () => {
    const redis = connect();
    await redis.hset(key, 'nonce', '1');
    const source = new RedisNonceSource({ redis, key, clock: new ManualClock(T0) });
    await assert.rejects(source.next(), isNonceError('NONCE_STATE_CORRUPT', key, 'hash'));
  });

  void it('reports an unreachable store as retryable without handing out a nonce', async () => {
    const offline = new Redis(REDIS_URL, { lazyConnect: true, enableOfflineQueue: false });
    try {
      const source = new RedisNonceSource({ redis: offline, key, clock: new ManualClock(T0) });
      await assert.rejects(source.next(), (err: unknown) => {
        assert.ok(isNonceError('NONCE_STORE_UNAVAILABLE', key)(err));
        assert.ok(err instanceof NonceError && err.retryable);
        return true;
      });
    } finally {
      offline.disconnect();
    }
  });

  void it('settles concurrent calls on one connection in increasing order', async () => {
    const source = new RedisNonceSource({ redis: connect(), key, clock: new ManualClock(T0) });
    const resolved: number[] = [];
    await Promise.all(
      Array.from({ length: 500 }, () =>
        source.next().then((n) => {
          resolved.push(n);
        }),
      ),
    );
    assert.equal(new Set(resolved).size, 500);
    assertStrictlyIncreasing(resolved);
  });

  void it('never repeats a nonce between two processes firing hundreds of concurrent calls', async (t) => {
    const perProcess = 400;
    // An hour ahead of the workers' clocks: they can only get above it from the state in Redis.
    const ahead = new RedisNonceSource({
      redis: connect(),
      key,
      clock: new SettableClock(Date.now() + 3_600_000),
    });
    const before = await ahead.next();

    const workers = [startWorker(key, perProcess), startWorker(key, perProcess)];
    children.push(...workers.map((w) => w.child));
    await Promise.all(workers.map((w) => w.ready));
    for (const w of workers) w.child.stdin.write('go\n');
    const results = await Promise.all(workers.map((w) => w.result));

    const all = results.flat();
    assert.equal(all.length, 2 * perProcess);
    assert.equal(new Set(all).size, 2 * perProcess, 'a nonce was handed out twice');
    results.forEach((nonces, i) => {
      assert.equal(nonces.length, perProcess);
      assertStrictlyIncreasing(nonces, `process ${i} nonce`);
    });
    for (const n of all) assert.ok(n > before, `${n} is not above ${before}, taken earlier`);
    diagnoseInterleaving(t, results);
  });
});

interface Worker {
  readonly child: ChildProcessByStdio<Writable, Readable, Readable>;
  readonly ready: Promise<void>;
  readonly result: Promise<number[]>;
}

function startWorker(key: string, count: number): Worker {
  const child = spawn(process.execPath, ['--import', 'tsx', WORKER, key, String(count)], {
    cwd: REPO_ROOT,
    env: { ...process.env, REDIS_URL },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const failed = exited.then((code) => {
    throw new Error(`worker ${child.pid ?? '?'} exited with ${String(code)}: ${stderr}`);
  });
  failed.catch(() => {}); // observed through ready/result below

  const lines = createInterface({ input: child.stdout });
  let onReady: () => void = () => {};
  let onResult: (nonces: number[]) => void = () => {};
  const ready = new Promise<void>((resolve) => (onReady = resolve));
  const result = new Promise<number[]>((resolve) => (onResult = resolve));
  lines.on('line', (line) => {
    if (line === 'ready') {
      onReady();
      return;
    }
    if (line.startsWith('{')) onResult((JSON.parse(line) as { nonces: number[] }).nonces);
  });
  return {
    child,
    ready: Promise.race([ready, failed]),
    // Wait for a clean exit too, so the worker's connection is closed when the test ends.
    result: Promise.race([result, failed]).then(async (nonces) => {
      assert.equal(await exited, 0, `worker failed: ${stderr}`);
      return nonces;
    }),
  };
}

/** How much the two sequences overlapped in Redis: not asserted, the scheduler decides it. */
function diagnoseInterleaving(t: TestContext, results: readonly number[][]): void {
  const owner = new Map<number, number>();
  results.forEach((nonces, i) => nonces.forEach((n) => owner.set(n, i)));
  const merged = [...owner.keys()].sort((a, b) => a - b);
  let switches = 0;
  for (let i = 1; i < merged.length; i++) {
    if (owner.get(merged[i] ?? 0) !== owner.get(merged[i - 1] ?? 0)) switches++;
  }
  t.diagnostic(`the two processes' nonces alternated ${switches} times in Redis order`);
}
