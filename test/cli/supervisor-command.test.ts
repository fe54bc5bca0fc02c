import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, afterEach, beforeEach, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { stringify } from 'yaml';
import { RedisControlFlags } from '../../src/bus/index.js';
import { AuditTrail } from '../../src/daemon/audit-trail.js';
import type { SpotClient } from '../../src/exchange/index.js';
import { deleteKeys, freshPrefix, REDIS_URL } from '../support/redis.js';
import { startTestSim, type KeyPair, type TestSim } from '../support/sim.js';
import { BIN, makerd, stop } from '../support/spawn.js';
import { placeBids as placeOn, until, type SimStateView } from '../support/until.js';

const run = promisify(execFile);

describe('makerd supervisor, halt, resume', () => {
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  let sim: TestSim;
  let key: KeyPair;
  let client: SpotClient;
  let prefix: string;
  let config: string;
  let env: NodeJS.ProcessEnv;
  let beating: NodeJS.Timeout | undefined;

  beforeEach(async () => {
    sim = await startTestSim();
    // The test's client and the supervisor's take nonces from different sources.
    // Pro: its REST counter (20, decaying 1/s) affords a heartbeat every 1.5 s however long a test
    // runs. On starter (15, 0.33/s) heartbeats this often filled it within half a minute; calls
    // then waited seconds for room, and the timer fired before a SIGTERM's CancelAll was sent.
    key = sim.addAccount({ nonceWindow: 10_000, tier: 'pro' });
    client = sim.client({ key });
    prefix = freshPrefix();
    const dir = mkdtempSync(join(tmpdir(), 'makerd-supervisor-'));
    config = join(dir, 'makerd.yaml');
    writeFileSync(
      config,
      stringify({
        exchange: {
          url: sim.url,
          // The key's window: a supervisor alone shares the key with processes elsewhere.
          nonce_window: 10_000,
          credentials: { from: 'env', key_env: 'TEST_KEY', secret_env: 'TEST_SECRET' },
          tier: 'pro',
        },
        redis: { url: REDIS_URL, prefix },
        pairs: [{ pair: 'XBTUSD', strategy: { name: 'spread' } }],
        http: { port: 0 },
        supervisor: {
          // Each heartbeat costs 1 on the key's REST counter.
          heartbeat: { timeout_s: 3, interval_s: 1.5, liveness_max_age_ms: 1_000 },
          status: { interval_ms: 250 },
          halt_sweep_ms: 300,
        },
      }),
    );
    env = { TEST_KEY: key.apiKey, TEST_SECRET: key.apiSecret, MAKERD_LOG_LEVEL: 'info' };
    // The runner and executor, as far as the supervisor can tell.
    const flags = new RedisControlFlags({ connection: redis, prefix });
    const beat = (): void => {
      void flags.beat('runner', Date.now(), 1_000);
      void flags.beat('executor', Date.now(), 1_000);
    };
    beat();
    beating = setInterval(beat, 200);
  });
  afterEach(async () => {
    clearInterval(beating);
    await sim.close();
    await deleteKeys(redis, prefix);
  });
  after(() => redis.disconnect());

  const state = async (): Promise<SimStateView> =>
    (await sim.admin('GET', '/_sim/state')).body as SimStateView;
  const ours = async () => (await state()).open_orders.filter((o) => o.key === key.apiKey);
  const placeBids = async (n: number): Promise<void> => {
    await placeOn(client, n);
  };
  const armed = () =>
    until('the dead-man timer armed', async () => (await state()).dead_man[key.apiKey]);

  void it('kill -9 leaves the timer armed: the exchange cancels every order when it fires', async (t) => {
    const sup = makerd(['supervisor', '--config', config, '--status-every', '0'], env);
    try {
      await sup.waitFor('supervisor started');
      await placeBids(2);
      await armed();
      sup.child.kill('SIGKILL');
      await once(sup.child, 'exit');
      const killedAt = Date.now();
      const firing = await until('the dead-man firing', async () =>
        (await state()).dead_man_firings.find((f) => f.key === key.apiKey),
      );
      assert.equal(firing.cancelled, 2);
      assert.deepEqual(await ours(), []);
      assert.ok(firing.atMs - killedAt <= 3_000 + 500, `${firing.atMs - killedAt} ms after kill`);
      t.diagnostic(
        `kill -9 → all orders cancelled by the exchange: ${firing.atMs - killedAt} ms (timeout 3 s)`,
      );
    } finally {
      await stop(sup.child);
    }
  });

  // One process for all of this: each spawn costs seconds (tsx compiles the sources), and what
  // the supervisor does in between is covered on a manual clock in test/safety/supervisor.test.ts.
  void it('serves status, metrics, halt and resume over HTTP, as makerd status reads; SIGTERM cancels, disarms, halts (it ran alone)', async (t) => {
    const sup = makerd(['supervisor', '--config', config, '--status-every', '0'], env);
    try {
      const started = await sup.waitFor('supervisor started');
      const http = String(started.http);
      assert.match(http, /^http:\/\/127\.0\.0\.1:\d+$/);
      await placeBids(2);
      await armed();
      const get = async (path: string) => {
        const res = await fetch(`${http}${path}`);
        return { status: res.status, text: await res.text() };
      };
      const status = JSON.parse((await get('/status')).text) as {
        mode: string;
        roles: Record<string, { alive: boolean }>;
        supervisor: { exchange: string; posture: string; risk: string };
        pairs: { altname: string; openOrders: number; ratecount: { max: number } }[];
      };
      assert.equal(status.mode, 'trading');
      assert.equal(status.roles.runner?.alive, true);
      assert.deepEqual(
        [status.supervisor.exchange, status.supervisor.posture, status.supervisor.risk],
        ['online', 'normal', 'ok'],
      );
      assert.equal(status.pairs[0]?.altname, 'XBTUSD');
      assert.equal(status.pairs[0]?.ratecount.max, 180);

      const cli = async (...args: string[]) =>
        (
          await run(process.execPath, [BIN, 'status', '--config', config, ...args], {
            env: { ...process.env, ...env },
          })
        ).stdout;
      assert.equal((JSON.parse(await cli('--json')) as { mode: string }).mode, 'trading');

      const halted = await fetch(`${http}/halt`, {
        method: 'POST',
        body: JSON.stringify({ reason: 'http test' }),
      });
      assert.equal(halted.status, 200);
      const haltedSince = new Date(
        ((await halted.json()) as { halt: { sinceMs: number } }).halt.sinceMs,
      ).toISOString();
      assert.deepEqual(await ours(), []);
      assert.match((await get('/metrics')).text, /^makerd_halted 1$/m);
      // The halt's CancelAll, then the sweep's halt_sweep_ms later.
      await until('the sweep', () =>
        sup.lines.filter((l) => l.msg === 'CancelAll done').length === 2 ? true : undefined,
      );
      // The text form, halted (demo.test.ts reads its not-halted line).
      const text = await cli();
      assert.match(text, /^HALTED: http test \(by operator:http since /m);
      assert.match(text, /^supervisor: exchange online, posture normal, dead-man fires at /m);
      assert.match(text, /, risk ok, REST counter [\d.]+\/20$/m);
      assert.match(text, /^XBTUSD: NO EXECUTOR, 0 open orders, base 0, quote 0/m);
      const resumed = await fetch(`${http}/resume`, { method: 'POST' });
      assert.deepEqual(await resumed.json(), {
        resumed: true,
        outcome: `resumed; was halted by operator:http for http test since ${haltedSince}`,
      });
      assert.equal((await get('/nowhere')).status, 404);

      await placeBids(2);
      const termAt = Date.now();
      assert.equal(await stop(sup.child), 0);
      t.diagnostic(`SIGTERM → orders cancelled, timer disarmed, exited: ${Date.now() - termAt} ms`);
      const done = sup.lines.find(
        (l) => l.msg === 'shutdown: orders cancelled, dead-man timer disarmed',
      );
      assert.equal(done?.cancelled, 2);
      assert.equal(done?.disarmed, true);
      assert.deepEqual(await ours(), []);
      assert.equal((await state()).dead_man[key.apiKey], undefined);
      const flags = new RedisControlFlags({ connection: redis, prefix });
      assert.equal((await flags.read()).reason, 'supervisor stopped: no dead-man switch');
      // The HTTP halt and resume and the supervisor's own halt on stop, on the audit trail.
      const trail = await new AuditTrail(redis, prefix).recent(10);
      assert.deepEqual(
        trail.map((e) => [e.action, e.door, e.actor, e.reason, e.changed]),
        [
          ['halt', 'http', 'unnamed', 'http test', true],
          ['resume', 'http', 'unnamed', undefined, true],
          ['halt', 'supervisor', 'supervisor', 'supervisor stopped: no dead-man switch', true],
        ],
      );
      assert.match(trail[0]?.remote ?? '', /127\.0\.0\.1/);
      assert.equal(
        sup.lines.some((l) => JSON.stringify(l).includes(key.apiSecret)),
        false,
        'the secret never reaches the log',
      );
    } finally {
      await stop(sup.child);
    }
  });

  void it('makerd halt sets the flag and cancels every order; makerd resume clears it', async (t) => {
    await placeBids(3);
    // An executor's ear: it reads its orders as soon as it is told of a CancelAll that took some.
    const ear = new RedisControlFlags({ connection: redis, prefix });
    const told: number[] = [];
    ear.onCancelledAll((atMs) => told.push(atMs));
    await ear.watch(60_000);
    t.after(() => ear.unwatch());
    // Subscribed once a word is heard (one sent before is lost).
    await until('the ear listening', async () => {
      await ear.cancelledAll(1);
      return told.length > 0 || undefined;
    });
    const haltAt = Date.now();
    const halted = await run(
      process.execPath,
      [BIN, 'halt', '--config', config, '--reason', 'cli test'],
      {
        env: { ...process.env, ...env },
      },
    );
    const out = JSON.parse(halted.stdout) as Record<string, unknown>;
    assert.equal(out.halted, true);
    assert.equal(out.reason, 'cli test');
    assert.equal(out.cancelled, 3);
    assert.match(String(out.by), /^operator:/);
    assert.deepEqual(await ours(), []);
    t.diagnostic(`makerd halt → all orders cancelled, command done: ${Date.now() - haltAt} ms`);
    await until('the executors told', () => told.some((atMs) => atMs >= haltAt));
    const flags = new RedisControlFlags({ connection: redis, prefix });
    assert.equal((await flags.read()).halted, true);

    const resumed = await run(process.execPath, [BIN, 'resume', '--config', config], {
      env: { ...process.env, ...env },
    });
    assert.deepEqual(
      { ...(JSON.parse(resumed.stdout) as object), outcome: undefined },
      { resumed: true, was: 'cli test', outcome: undefined },
    );
    assert.equal((await flags.read()).halted, false);
  });
});
