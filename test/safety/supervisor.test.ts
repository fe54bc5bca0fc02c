import assert from 'node:assert/strict';
import { after, afterEach, beforeEach, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { Registry } from 'prom-client';
import { ControlFlags } from '../../src/bus/index.js';
import { InvalidInputError, parseWithSchema, systemClock } from '../../src/core/index.js';
import type { SpotClient } from '../../src/exchange/index.js';
import {
  Supervisor,
  SupervisorConfig,
  SupervisorMetrics,
  type RiskSource,
} from '../../src/safety/index.js';
import { deleteKeys, freshPrefix, REDIS_URL } from '../support/redis.js';
import { startTestSim, type TestSim } from '../support/sim.js';
import { logCollector, type LogEntry } from './log-collector.js';
import { placeBids as placeOn, until, type SimStateView } from '../support/until.js';

/** Short timings so every scenario runs in seconds; the dead-man timeout is 2 s. */
const FAST = {
  heartbeat: { timeout_s: 2, interval_s: 0.4, liveness_max_age_ms: 1_000 },
  status: { interval_ms: 250 },
  halt_sweep_ms: 300,
  shutdown: { timeout_ms: 5_000 },
};

function configOf(over: Record<string, unknown> = {}): SupervisorConfig {
  const merged: Record<string, unknown> = { ...FAST, ...over };
  for (const k of ['heartbeat', 'status', 'shutdown'] as const) {
    merged[k] = { ...FAST[k], ...(over[k] as object | undefined) };
  }
  return parseWithSchema(SupervisorConfig, merged, 'supervisor');
}

const iso = (ms: number): string => new Date(ms).toISOString();

describe('Supervisor', () => {
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  let sim: TestSim;
  let client: SpotClient;
  let prefix: string;
  let flags: ControlFlags;
  let registry: Registry;
  let logs: LogEntry[];
  let supervisor: Supervisor | undefined;
  let beating: NodeJS.Timeout | undefined;
  /** What the supervisor did to the intent queues, in order. */
  let queueEvents: string[];

  beforeEach(async () => {
    sim = await startTestSim();
    client = sim.client();
    prefix = freshPrefix();
    flags = new ControlFlags({ connection: redis, prefix });
    registry = new Registry();
    logs = [];
    queueEvents = [];
    supervisor = undefined;
  });
  afterEach(async () => {
    clearInterval(beating);
    await supervisor?.stop({ cancel: false });
    await sim.close();
    await deleteKeys(redis, prefix);
  });
  after(() => redis.disconnect());

  const state = async (): Promise<SimStateView> =>
    (await sim.admin('GET', '/_sim/state')).body as SimStateView;
  const ours = async () => (await state()).open_orders.filter((o) => o.key === sim.key.apiKey);
  /** Runner and executor beating as they do, every 200 ms here. */
  const beatRoles = (): void => {
    const beat = (): void => {
      void flags.beat('runner', Date.now(), 1_000);
      void flags.beat('executor', Date.now(), 1_000);
    };
    beat();
    beating = setInterval(beat, 200);
  };
  const stopBeating = (): void => clearInterval(beating);
  const placeBids = async (n: number): Promise<void> => {
    await placeOn(client, n);
    assert.equal((await ours()).length, n);
  };
  const start = async (
    over: Record<string, unknown> = {},
    haltOnStop = false,
    risk?: RiskSource,
  ) => {
    await flags.read();
    registry = new Registry();
    supervisor = new Supervisor({
      client,
      flags,
      config: configOf(over),
      clock: systemClock,
      log: logCollector(logs),
      metrics: new SupervisorMetrics(registry, systemClock),
      haltOnStop,
      ...(risk === undefined ? {} : { risk }),
      queues: {
        pause: () => Promise.resolve(void queueEvents.push('pause')),
        resume: () => Promise.resolve(void queueEvents.push('resume')),
      },
    });
    await supervisor.start();
    return supervisor;
  };
  const metric = async (line: RegExp): Promise<number> =>
    Number(line.exec(await registry.metrics())?.[1] ?? Number.NaN);

  void it('arms the dead-man timer while runner and executor are alive, and keeps pushing it back', async () => {
    beatRoles();
    await start();
    const first = (await state()).dead_man[sim.key.apiKey]?.trigger_at;
    assert.ok(first !== undefined, 'armed at start');
    assert.ok(Math.abs(first * 1000 - (Date.now() + 2_000)) < 1_000, `trigger ${first}`);
    const later = await until('a later trigger', async () => {
      const t = (await state()).dead_man[sim.key.apiKey]?.trigger_at;
      return t !== undefined && t > first ? t : undefined;
    });
    assert.ok(later > first);
    assert.ok((await metric(/^makerd_heartbeats_total\{outcome="ok"\} (\S+)$/m)) >= 2);
    assert.ok((await metric(/^makerd_heartbeat_age_seconds (\S+)$/m)) < 1);
    assert.equal(
      await metric(/^makerd_deadman_trigger_timestamp_seconds (\S+)$/m),
      supervisor?.deadMan.triggerAtMs === undefined ? NaN : supervisor.deadMan.triggerAtMs / 1000,
    );
  });

  void it('does not arm while a role has never beaten', async () => {
    void flags.beat('executor', Date.now(), 5_000);
    await start();
    await new Promise((r) => setTimeout(r, 600));
    assert.equal((await state()).dead_man[sim.key.apiKey], undefined);
    assert.ok((await metric(/^makerd_heartbeats_total\{outcome="skipped"\} (\S+)$/m)) >= 1);
    assert.equal(await metric(/^makerd_role_alive\{role="runner"\} (\S+)$/m), 0);
  });

  void it('stops heartbeats when a role stops beating, and the exchange cancels our orders', async (t) => {
    beatRoles();
    await start();
    await placeBids(2);
    stopBeating();
    const stoppedAt = Date.now();
    const firing = await until('the dead-man firing', async () =>
      (await state()).dead_man_firings.find((f) => f.key === sim.key.apiKey),
    );
    assert.equal(firing.cancelled, 2);
    assert.deepEqual(await ours(), []);
    // Liveness lapses after 1 s, the timer fires within 2 s of the last heartbeat before it.
    const tookMs = firing.atMs - stoppedAt;
    t.diagnostic(`roles stopped beating → all orders cancelled by the exchange: ${tookMs} ms`);
    assert.ok(tookMs < 1_000 + 2_000 + 500, `cancelled ${tookMs} ms after the roles stopped`);
    assert.ok(
      logs.some((l) => l.msg.startsWith('role not alive') && l.fields.role !== undefined),
      'the lapse is logged with the role',
    );
  });

  void it('halts on an emergency touching spot REST: flag set, every order cancelled, nothing new placed', async (t) => {
    beatRoles();
    await start();
    await placeBids(3);
    const injectedAt = Date.now();
    await sim.admin('POST', '/_sim/status', {
      emergency: [
        {
          title: 'Matching engine degraded',
          affected_services: ['spot_rest', 'spot_ws'],
          next_steps: [{ applies_to: ['spot_rest'], expected_at_utc: iso(Date.now() + 600_000) }],
        },
      ],
    });
    await until('the orders cancelled', async () =>
      (await ours()).length === 0 ? true : undefined,
    );
    const tookMs = Date.now() - injectedAt;
    t.diagnostic(`emergency injected → all orders cancelled: ${tookMs} ms`);
    assert.ok(tookMs <= 250 + 1_000, `all cancelled ${tookMs} ms after the emergency`);
    const halt = flags.current();
    assert.equal(halt.halted, true);
    assert.equal(halt.reason, 'emergency: Matching engine degraded');
    assert.equal(halt.by, 'supervisor');
    const line = logs.find((l) => l.msg.startsWith('exchange emergency'));
    assert.equal(line?.fields.title, 'Matching engine degraded');
    assert.match(String((line?.fields.nextSteps as string[])[0]), /^expected_restart at /);
    assert.equal(await metric(/^makerd_halted (\S+)$/m), 1);
    assert.equal(await metric(/^makerd_halts_total\{cause="emergency"\} (\S+)$/m), 1);
    assert.equal(await metric(/^makerd_exchange_emergency (\S+)$/m), 1);
    assert.deepEqual(
      queueEvents,
      ['resume', 'pause'],
      'queues in step with the flag from the start',
    );

    // An order slipped in by a process that had not seen the flag yet goes with the sweep.
    await client.addOrder({
      pair: 'XBTUSD',
      type: 'buy',
      ordertype: 'limit',
      price: '30100.0',
      volume: '0.01',
    });
    await until(
      'the late order swept',
      async () => ((await ours()).length === 0 ? true : undefined),
      2_000,
    );
  });

  void it('ignores an emergency of services it does not trade through', async () => {
    beatRoles();
    await start();
    await placeBids(1);
    await sim.admin('POST', '/_sim/status', {
      emergency: [{ title: 'Websocket gateway down', affected_services: ['spot_ws'] }],
    });
    await new Promise((r) => setTimeout(r, 700));
    assert.equal(flags.current().halted, false);
    assert.equal((await ours()).length, 1);
  });

  void it('stays halted after the emergency clears unless resume is auto', async () => {
    beatRoles();
    await start();
    const incident = { emergency: [{ title: 'Incident A', affected_services: ['spot_trading'] }] };
    await sim.admin('POST', '/_sim/status', incident);
    await until('halted', () => (flags.current().halted ? true : undefined));
    await sim.admin('POST', '/_sim/status', { emergency: [] });
    await until('the all-clear logged', () =>
      logs.some((l) => l.msg.startsWith('exchange emergency over')) ? true : undefined,
    );
    assert.equal(flags.current().halted, true, 'an operator resumes');
    await supervisor?.stop({ cancel: false });
    await flags.resume();

    await start({ resume: 'auto' });
    await sim.admin('POST', '/_sim/status', incident);
    await until('halted again', () => (flags.current().halted ? true : undefined));
    await sim.admin('POST', '/_sim/status', { emergency: [] });
    await until('resumed by itself', async () => ((await flags.read()).halted ? undefined : true));
    await until('the queues resumed', () => (queueEvents.at(-1) === 'resume' ? true : undefined));
    assert.deepEqual(queueEvents.slice(-2), ['pause', 'resume']);
  });

  void it('cancels every order when an operator sets the halt flag', async (t) => {
    beatRoles();
    await start();
    await placeBids(2);
    const haltAt = Date.now();
    await new ControlFlags({ connection: redis, prefix }).halt(
      'manual check',
      'operator:test',
      Date.now(),
    );
    await flags.read();
    await until(
      'the orders cancelled',
      async () => ((await ours()).length === 0 ? true : undefined),
      2_000,
    );
    t.diagnostic(`halt flag set by an operator → all orders cancelled: ${Date.now() - haltAt} ms`);
    assert.equal(await metric(/^makerd_halts_total\{cause="operator"\} (\S+)$/m), 1);
  });

  void it('before scheduled maintenance: cancels, disarms, halts; after the window and online again: resumes and re-arms', async (t) => {
    beatRoles();
    // The simulator states times in whole seconds.
    const now = Math.ceil(Date.now() / 1000) * 1000;
    await sim.admin('POST', '/_sim/status', {
      upcoming_maintenance: [
        {
          title: 'Engine upgrade',
          expected_start_utc: iso(now + 3_000),
          expected_end_utc: iso(now + 4_000),
          cancel_before_utc: iso(now + 2_000),
        },
      ],
    });
    await start({ maintenance: { lead_s: 0 } });
    assert.ok((await state()).dead_man[sim.key.apiKey] !== undefined, 'armed before the window');
    await placeBids(2);
    await until('the orders cancelled', async () =>
      (await ours()).length === 0 ? true : undefined,
    );
    const doneAt = Date.now();
    t.diagnostic(`maintenance: all orders cancelled ${now + 3_000 - doneAt} ms before the start`);
    assert.ok(doneAt < now + 3_000, `cancelled ${now + 3_000 - doneAt} ms before the start`);
    assert.ok(doneAt >= now + 2_000 - 50, 'not before cancel_before_utc');
    assert.equal((await state()).dead_man[sim.key.apiKey], undefined, 'disarmed');
    assert.equal(flags.current().reason, 'scheduled maintenance: Engine upgrade');

    await until(
      'resumed after the window',
      () => (flags.current().halted ? undefined : true),
      6_000,
    );
    assert.ok(Date.now() >= now + 4_000, 'not before the window ends');
    await until('re-armed', async () => (await state()).dead_man[sim.key.apiKey]);
  });

  void it('a clean stop cancels every order, then disarms; alone, it also halts', async (t) => {
    beatRoles();
    await start({}, true);
    await placeBids(2);
    const stopAt = Date.now();
    const report = await supervisor?.stop();
    t.diagnostic(`stop → all orders cancelled and timer disarmed: ${Date.now() - stopAt} ms`);
    assert.deepEqual(report, { cancelled: 2, disarmed: true });
    assert.deepEqual(await ours(), []);
    assert.equal((await state()).dead_man[sim.key.apiKey], undefined);
    assert.equal(flags.current().reason, 'supervisor stopped: no dead-man switch');
  });

  void it('halts when the risk inputs stay unreadable for longer than stale_after_s', async () => {
    beatRoles();
    await placeBids(1);
    let reads = 0;
    const broken: RiskSource = {
      read: () => {
        reads += 1;
        return Promise.reject(new Error('Redis down'));
      },
    };
    await start({ risk: { interval_ms: 100, stale_after_s: 0.5 } }, false, broken);
    assert.equal(flags.current().halted, false, 'not at the first failed read');
    await until('halted', () => (flags.current().halted ? true : undefined), 3_000);
    assert.match(String(flags.current().reason), /^risk: risk inputs unreadable for 0\.[5-9] s$/);
    assert.ok(reads >= 5);
    await until('our order cancelled', async () =>
      (await ours()).length === 0 ? true : undefined,
    );
    assert.equal(await metric(/^makerd_halts_total\{cause="risk"\} (\S+)$/m), 1);
  });

  void it('refuses a heartbeat interval at or over the timeout, naming the field', () => {
    assert.throws(
      () =>
        new Supervisor({
          client,
          flags,
          config: configOf({ heartbeat: { timeout_s: 10, interval_s: 10 } }),
        }),
      (err: unknown) =>
        err instanceof InvalidInputError &&
        err.field === 'supervisor.heartbeat.interval_s' &&
        /must be under timeout_s \(10\)/.test(err.message),
    );
  });
});
