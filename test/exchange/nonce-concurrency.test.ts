/**
 * Two processes on one API key, sharing a RedisNonceSource, each firing hundreds of concurrent
 * private calls at one fake exchange (real Redis, real HTTP on loopback). The key's nonce window,
 * declared to both clients, lets their calls overlap and tolerates arrivals out of order between
 * the processes; what must hold is that no nonce is ever used twice and that each process signs
 * its nonces in increasing order.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { startFakeExchange, type FakeExchange } from '../support/fake-exchange.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const WORKER = fileURLToPath(new URL('../support/nonce-client-worker.ts', import.meta.url));
const PER_PROCESS = 300;
/** Large enough for any out-of-order arrival between two processes within the test. */
const NONCE_WINDOW = 1_000_000;

interface WorkerReport {
  readonly pid: number;
  readonly signed: string[];
  readonly ok: number;
  readonly errors: string[];
}

type Child = ChildProcessByStdio<Writable, Readable, Readable>;

void describe('nonces under concurrency across processes', () => {
  let ex: FakeExchange;
  let redis: Redis;
  let nonceKey: string;
  const children: Child[] = [];

  before(async () => {
    ex = await startFakeExchange({ nonceWindow: NONCE_WINDOW });
    redis = new Redis(REDIS_URL);
    nonceKey = `makerd:test:nonce-concurrency:${randomUUID()}`;
  });

  after(async () => {
    for (const child of children) if (child.exitCode === null) child.kill();
    await redis.del(nonceKey);
    await redis.quit();
    await ex.close();
  });

  function startWorker(): { child: Child; ready: Promise<void>; report: Promise<WorkerReport> } {
    const child = spawn(process.execPath, ['--import', 'tsx', WORKER], {
      cwd: REPO_ROOT,
      env: {
        ...process.env,
        FAKE_URL: ex.url,
        API_KEY: ex.keys.spot.apiKey,
        API_SECRET: ex.keys.spot.apiSecret,
        NONCE_KEY: nonceKey,
        NONCE_WINDOW: String(NONCE_WINDOW),
        COUNT: String(PER_PROCESS),
        REDIS_URL,
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    children.push(child);
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const lines = createInterface({ input: child.stdout });
    let onReady: () => void = () => {};
    const ready = new Promise<void>((resolve) => (onReady = resolve));
    const report = new Promise<WorkerReport>((resolve, reject) => {
      let result: WorkerReport | undefined;
      lines.on('line', (line) => {
        if (line === 'ready') onReady();
        else if (line.startsWith('{')) result = JSON.parse(line) as WorkerReport;
      });
      child.on('error', reject);
      child.on('close', (code) => {
        if (code === 0 && result !== undefined) resolve(result);
        else reject(new Error(`worker exited with ${String(code)}: ${stderr}`));
      });
    });
    // A worker that dies before `ready` must fail the test, not hang it.
    const readyOrDead = Promise.race([ready, report.then(() => undefined)]);
    return { child, ready: readyOrDead, report };
  }

  void it('600 concurrent balance() calls from two processes: distinct, ordered, all accepted', async () => {
    const workers = [startWorker(), startWorker()];
    await Promise.all(workers.map((w) => w.ready));
    for (const w of workers) w.child.stdin.write('go\n');
    const reports = await Promise.all(workers.map((w) => w.report));

    const all: string[] = [];
    for (const r of reports) {
      assert.deepEqual(r.errors, [], `process ${r.pid} had failures`);
      assert.equal(r.ok, PER_PROCESS);
      // One signature per call: no call needed a retry for a refused nonce.
      assert.equal(r.signed.length, PER_PROCESS, `process ${r.pid} signed ${r.signed.length}`);
      for (let i = 1; i < r.signed.length; i++) {
        const prev = BigInt(r.signed[i - 1] ?? '0');
        const cur = BigInt(r.signed[i] ?? '0');
        assert.ok(
          cur > prev,
          `process ${r.pid}: signed #${i} = ${cur} is not above #${i - 1} = ${prev}`,
        );
      }
      all.push(...r.signed);
    }
    assert.equal(all.length, 2 * PER_PROCESS);
    assert.equal(new Set(all).size, 2 * PER_PROCESS, 'a nonce was used twice');

    const balance = ex.requestsFor('Balance');
    assert.equal(balance.length, 2 * PER_PROCESS);
    const refused = balance.filter((r) => !r.accepted);
    assert.deepEqual(
      refused.map((r) => r.rejection),
      [],
      'the exchange refused some requests',
    );
    assert.deepEqual(
      balance.map((r) => r.nonce).sort(),
      [...all].sort(),
      'the exchange saw exactly the nonces that were signed',
    );
  });
});
