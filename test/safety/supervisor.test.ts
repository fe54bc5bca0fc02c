import assert from 'node:assert/strict';
import { after, afterEach, beforeEach, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { Registry } from 'prom-client';
import {
  orderEntryRole,
  readOrderEntry,
  RedisControlFlags,
  type ControlFlags,
  type HaltState,
  type Role,
} from '../../src/bus/index.js';
import {
  InvalidInputError,
  ManualClock,
  parseWithSchema,
  systemClock,
  within,
} from '../../src/core/index.js';
import type { SpotClient } from '../../src/exchange/index.js';
import {
  Supervisor,
  SupervisorConfig,
  SupervisorMetrics,
  type OrderEntrySource,
  type RiskSource,
  type SupervisorAction,
} from '../../src/safety/index.js';
import { deleteKeys, freshPrefix, REDIS_URL } from '../support/redis.js';
import { startTestSim, type TestSim } from '../support/sim.js';
import { logCollector, type LogEntry } from './log-collector.js';
import { placeBids as placeOn, until, type SimStateView } from '../support/until.js';

/** Timings of the shared manual clock; the dead-man timeout is 2 s. */
const FAST = {
  heartbeat: { timeout_s: 2, interval_s: 0.4, liveness_max_age_ms: 1_000 },
  status: { interval_ms: 250 },
  halt_sweep_ms: 300,
  shutdown: { timeout_ms: 5_000 },
};
/**
 * The clock moves in steps of this (every interval here is a multiple of it), each step's rounds
 * answered before the next: a round doing I/O is asleep again before time passes its next turn.
 */
const STEP_MS = 50;

function configOf(over: Record<string, unknown> = {}): SupervisorConfig {
  const merged: Record<string, unknown> = { ...FAST, ...over };
  for (const k of ['heartbeat', 'status', 'shutdown'] as const) {
    merged[k] = { ...FAST[k], ...(over[k] as object | undefined) };
  }
  return parseWithSchema(SupervisorConfig, merged, 'supervisor');
}

const iso = (ms: number): string => new Date(ms).toISOString();

/**
 * The supervisor's calls to the exchange and Redis, by method name, and how many are unanswered:
 * none in flight after the clock moved means every round it woke has finished.
 */
class Calls {
  inFlight = 0;
  readonly names: string[] = [];

  watch<T extends object>(target: T): T {
    return new Proxy(target, {
      get: (t, name) => {
        // The target as receiver: getters read private fields, which a proxy does not have.
        const v: unknown = Reflect.get(t, name);
        if (typeof v !== 'function') return v;
        return (...args: unknown[]): unknown => {
          const out: unknown = v.apply(t, args);
          if (!(out instanceof Promise)) return out;
          this.names.push(String(name));
          this.inFlight += 1;
          return out.finally(() => {
            this.inFlight -= 1;
          });
        };
      },
    });
  }

  count(name: string): number {
    return this.names.filter((n) => n === name).length;
  }
}

describe('Supervisor', () => {
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  let clock: ManualClock;
  let sim: TestSim;
  let client: SpotClient;
  let prefix: string;
  let flags: ControlFlags;
  let registry: Registry;
  let logs: LogEntry[];
  let calls: Calls;
  let supervisor: Supervisor | undefined;
  /** The roles beating now (before every step of the clock), and when they last did. */
  let beating: readonly Role[];
  let lastBeatMs: number | undefined;
  /** What the supervisor did to the intent queues, in order. */
  let queueEvents: string[];
  /** What the supervisor told of its own halts and resumes (the audit trail's source). */
  let actions: SupervisorAction[];

  beforeEach(async () => {
    // One clock for the simulator (its dead-man timers) and the supervisor.
    clock = new ManualClock();
    sim = await startTestSim({ clock });
    client = sim.client();
    prefix = freshPrefix();
    flags = new RedisControlFlags({ connection: redis, prefix });
    registry = new Registry();
    logs = [];
    calls = new Calls();
    beating = [];
    lastBeatMs = undefined;
    queueEvents = [];
    actions = [];
    supervisor = undefined;
  });
  afterEach(async () => {
    // A test failing midway may leave a step waiting on the manual clock: that must not hang here.
    if (supervisor !== undefined) {
      await within(systemClock, supervisor.stop({ cancel: false }), 5_000);
    }
    await sim.close();
    await deleteKeys(redis, prefix);
  });
  after(() => redis.disconnect());

  const state = async (): Promise<SimStateView> =>
    (await sim.admin('GET', '/_sim/state')).body as SimStateView;
  const ours = async () => (await state()).open_orders.filter((o) => o.key === sim.key.apiKey);
  const triggerAt = async (): Promise<number | undefined> =>
    (await state()).dead_man[sim.key.apiKey]?.trigger_at;
  /** Liveness beats, stamped with the clock's time: the supervisor judges their age by it. */
  const beat = async (): Promise<void> => {
    if (beating.length === 0) return;
    await Promise.all(beating.map((role) => flags.beat(role, clock.now(), 60_000)));
    lastBeatMs = clock.now();
  };
  const idle = (): Promise<true> =>
    until('the supervisor idle', () => calls.inFlight === 0, 5_000, 1);
  /** Moves the clock on by `ms`, the roles beating before each step and its rounds done after. */
  const advance = async (ms: number): Promise<void> => {
    for (let left = ms; left > 0; left -= STEP_MS) {
      await beat();
      await clock.advance(Math.min(STEP_MS, left));
      await idle();
    }
  };
  /** Moves the clock on step by step until `probe` holds; fails past `limitMs` of the clock. */
  const advanceUntil = async <T>(
    what: string,
    probe: () => Promise<T | undefined | false> | T | undefined | false,
    limitMs: number,
  ): Promise<T> => {
    const end = clock.now() + limitMs;
    for (;;) {
      const v = await probe();
      if (v !== undefined && v !== false) return v;
      if (clock.now() >= end) throw new Error(`no ${what} within ${limitMs} ms of the clock`);
      await advance(STEP_MS);
    }
  };
  const placeBids = async (n: number): Promise<void> => {
    await placeOn(client, n);
    assert.equal((await ours()).length, n);
  };
  const start = async (
    over: Record<string, unknown> = {},
    haltOnStop = false,
    risk?: RiskSource,
    orderEntry?: OrderEntrySource,
  ) => {
    await beat();
    await flags.read();
    registry = new Registry();
    supervisor = new Supervisor({
      client: calls.watch(client),
      flags: calls.watch(flags),
      config: configOf(over),
      clock,
      log: logCollector(logs),
      metrics: new SupervisorMetrics(registry, clock),
      haltOnStop,
      onAction: (a) => void actions.push(a),
      ...(risk === undefined ? {} : { risk }),
      ...(orderEntry === undefined ? {} : { orderEntry }),
      queues: {
        pause: () => Promise.resolve(void queueEvents.push('pause')),
        resume: () => Promise.resolve(void queueEvents.push('resume')),
      },
    });
    await supervisor.start();
    await idle();
    return supervisor;
  };
  const metric = async (line: RegExp): Promise<number> =>
    Number(line.exec(await registry.metrics())?.[1] ?? Number.NaN);

  void it('arms the dead-man timer while runner and executor are alive, and keeps pushing it back', async () => {
    beating = ['runner', 'executor'];
    await start();
    const t0 = clock.now();
    assert.equal(await triggerAt(), (t0 + 2_000) / 1000, 'armed at start, timeout_s ahead');
    await advance(400);
    assert.equal(await triggerAt(), (t0 + 400 + 2_000) / 1000, 'pushed back one interval later');
    assert.equal(await metric(/^makerd_heartbeats_total\{outcome="ok"\} (\S+)$/m), 2);
    assert.equal(await metric(/^makerd_heartbeat_age_seconds (\S+)$/m), 0);
    // As the exchange answered it: in whole seconds.
    assert.equal(
      await metric(/^makerd_deadman_trigger_timestamp_seconds (\S+)$/m),
      Math.floor((t0 + 400 + 2_000) / 1000),
    );
  });

  void it('does not arm while a role has never beaten, and arms within a second of its first beat', async () => {
    beating = ['executor'];
    await start();
    const skipped = /^makerd_heartbeats_total\{outcome="skipped"\} (\S+)$/m;
    assert.equal(await metric(skipped), 1, 'skipped at start');
    await advance(1_000);
    assert.equal(await metric(skipped), 2, 'tried again a second later, skipped again');
    assert.equal(await triggerAt(), undefined);
    assert.equal(await metric(/^makerd_role_alive\{role="runner"\} (\S+)$/m), 0);

    beating = ['runner', 'executor'];
    await advance(1_000);
    assert.equal(await triggerAt(), (clock.now() + 2_000) / 1000, 'armed at the next try');
  });

  void it('stops heartbeats when a role stops beating, and the exchange cancels our orders', async () => {
    beating = ['runner', 'executor'];
    await start();
    await placeBids(2);
    beating = [];
    const lastBeat = lastBeatMs ?? Number.NaN;
    const firing = await advanceUntil(
      'dead-man firing',
      async () => (await state()).dead_man_firings.find((f) => f.key === sim.key.apiKey),
      4_000,
    );
    assert.equal(firing.cancelled, 2);
    assert.deepEqual(await ours(), []);
    // The beat lapses after liveness_max_age_ms; the timer fires timeout_s after the last
    // heartbeat before that.
    const tookMs = firing.atMs - lastBeat;
    assert.ok(tookMs <= 1_000 + 2_000, `cancelled ${tookMs} ms after the last beat`);
    assert.ok(
      logs.some((l) => l.msg.startsWith('role not alive') && l.fields.role !== undefined),
      'the lapse is logged with the role',
    );
    // The supervisor learns of the firing a second past the trigger time (given in whole
    // seconds), and tells the executors as of a CancelAll: the exchange charged each order.
    const fired = await advanceUntil(
      'the firing noticed',
      () => logs.find((l) => l.msg.startsWith('dead-man timer fired')),
      2_000,
    );
    assert.equal(await metric(/^makerd_deadman_firings_total (\S+)$/m), 1);
    assert.equal(calls.count('cancelledAll'), 1, 'the executors told');
    assert.ok(Date.parse(String(fired.fields.firedAt)) <= firing.atMs);
    assert.equal(supervisor?.status().deadMan.triggerAtMs, undefined, 'disarmed by the firing');
  });

  void it('after a skipped heartbeat, refreshes within a second of fresh beats, not an interval later', async () => {
    // Issue #42: Redis hung past the beats' age, then answered 3 s before the timer ran out.
    const over = { heartbeat: { timeout_s: 10, interval_s: 5, liveness_max_age_ms: 1_000 } };
    beating = ['runner', 'executor'];
    await start(over);
    await placeBids(2);
    const armedUntil = (await triggerAt()) ?? Number.NaN;
    beating = [];
    await advance(5_000);
    assert.equal(await metric(/^makerd_heartbeats_total\{outcome="skipped"\} (\S+)$/m), 1);
    beating = ['runner', 'executor'];
    const beatsBack = clock.now();
    await advanceUntil(
      'refresh of the timer',
      async () => ((await triggerAt()) ?? 0) > armedUntil,
      1_050,
    );
    assert.ok(clock.now() - beatsBack <= 1_050, 'within a second of the beats');
    assert.deepEqual((await state()).dead_man_firings, []);
    assert.equal((await ours()).length, 2);
  });

  void it('halts on an emergency touching spot REST: flag set, every order cancelled, nothing new placed', async () => {
    beating = ['runner', 'executor'];
    await start();
    await placeBids(3);
    await sim.admin('POST', '/_sim/status', {
      emergency: [
        {
          title: 'Matching engine degraded',
          affected_services: ['spot_rest', 'spot_ws'],
          next_steps: [{ applies_to: ['spot_rest'], expected_at_utc: iso(clock.now() + 600_000) }],
        },
      ],
    });
    // At the next status round.
    await advanceUntil('orders cancelled', async () => (await ours()).length === 0, 250);
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
    await advanceUntil('late order swept', async () => (await ours()).length === 0, 300);
    assert.equal(await metric(/^makerd_supervisor_cancel_all_total\{outcome="ok"\} (\S+)$/m), 2);
  });

  void it('ignores an emergency of services it does not trade through', async () => {
    beating = ['runner', 'executor'];
    await start();
    await placeBids(1);
    await sim.admin('POST', '/_sim/status', {
      emergency: [{ title: 'Websocket gateway down', affected_services: ['spot_ws'] }],
    });
    const polls = calls.count('systemStatus');
    await advanceUntil('SystemStatus poll', () => calls.count('systemStatus') > polls, 250);
    assert.equal(flags.current().halted, false);
    assert.equal(await metric(/^makerd_exchange_emergency (\S+)$/m), 0);
    assert.equal((await ours()).length, 1);
  });

  void it('stays halted after the emergency clears unless resume is auto', async () => {
    beating = ['runner', 'executor'];
    await start();
    const incident = { emergency: [{ title: 'Incident A', affected_services: ['spot_trading'] }] };
    await sim.admin('POST', '/_sim/status', incident);
    await advanceUntil('halt', () => flags.current().halted, 250);
    await sim.admin('POST', '/_sim/status', { emergency: [] });
    await advanceUntil(
      'all-clear logged',
      () => logs.some((l) => l.msg.startsWith('exchange emergency over')),
      250,
    );
    assert.equal(flags.current().halted, true, 'an operator resumes');
    await supervisor?.stop({ cancel: false });
    await flags.resume();

    await start({ resume: 'auto' });
    await sim.admin('POST', '/_sim/status', incident);
    await advanceUntil('halt again', () => flags.current().halted, 250);
    await sim.admin('POST', '/_sim/status', { emergency: [] });
    await advanceUntil('resume by itself', async () => !(await flags.read()).halted, 250);
    assert.deepEqual(queueEvents.slice(-2), ['pause', 'resume']);
    const reason = 'emergency: Incident A';
    const halt = { halted: true, reason, by: 'supervisor' };
    assert.deepEqual(
      actions.map((a) => ({ ...a, before: { ...a.before, sinceMs: undefined } })),
      [
        { action: 'halt', reason, changed: true, before: { halted: false, sinceMs: undefined } },
        { action: 'halt', reason, changed: true, before: { halted: false, sinceMs: undefined } },
        {
          action: 'resume',
          reason: 'exchange emergency over',
          changed: true,
          before: { ...halt, sinceMs: undefined },
        },
      ],
      'each halt and the resume told, with the halt it cleared',
    );
  });

  void it('tells of a halt of its own that found another halt in force, changing nothing', async () => {
    beating = ['runner', 'executor'];
    const since = clock.now();
    await flags.halt('operator first', 'operator:test', since);
    await start();
    await sim.admin('POST', '/_sim/status', {
      emergency: [{ title: 'Incident B', affected_services: ['spot_trading'] }],
    });
    await advanceUntil('the halt told', () => actions.length > 0, 250);
    assert.deepEqual(actions, [
      {
        action: 'halt',
        reason: 'emergency: Incident B',
        changed: false,
        before: { halted: true, reason: 'operator first', by: 'operator:test', sinceMs: since },
      },
    ]);
  });

  void it('cancels every order when an operator sets the halt flag', async () => {
    beating = ['runner', 'executor'];
    await start();
    await placeBids(2);
    await new RedisControlFlags({ connection: redis, prefix }).halt(
      'manual check',
      'operator:test',
      clock.now(),
    );
    // What the process's flag watcher does every second.
    await flags.read();
    await advanceUntil('orders cancelled', async () => (await ours()).length === 0, 250);
    assert.equal(await metric(/^makerd_halts_total\{cause="operator"\} (\S+)$/m), 1);
    assert.ok(logs.some((l) => l.msg === 'halt flag set: cancelling every order of the key'));
  });

  void it('before scheduled maintenance: cancels, disarms, halts; after the window and online again: resumes and re-arms', async () => {
    beating = ['runner', 'executor'];
    // The simulator states times in whole seconds, as the manual clock starts.
    const now = clock.now();
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
    assert.ok((await triggerAt()) !== undefined, 'armed before the window');
    await placeBids(2);
    const doneAt = await advanceUntil(
      'orders cancelled',
      async () => (await ours()).length === 0 && clock.now(),
      3_000,
    );
    assert.ok(doneAt >= now + 2_000, 'not before cancel_before_utc');
    assert.ok(doneAt < now + 2_000 + 250, 'at the first status round from cancel_before_utc');
    assert.equal(await triggerAt(), undefined, 'disarmed');
    assert.equal(flags.current().reason, 'scheduled maintenance: Engine upgrade');

    await advanceUntil('resume after the window', () => !flags.current().halted, 3_000);
    assert.ok(clock.now() >= now + 4_000, 'not before the window ends');
    assert.ok((await triggerAt()) !== undefined, 're-armed as it resumed');
  });

  void it('a clean stop cancels every order, then disarms; alone, it also halts', async () => {
    beating = ['runner', 'executor'];
    await start({}, true);
    await placeBids(2);
    const report = await supervisor?.stop();
    assert.deepEqual(report, { cancelled: 2, disarmed: true });
    assert.deepEqual(await ours(), []);
    assert.equal(await triggerAt(), undefined);
    assert.equal(flags.current().reason, 'supervisor stopped: no dead-man switch');
    assert.equal(clock.pending, 1, "no timer left but the simulator's tick");
  });

  void it('halts when the risk inputs stay unreadable for longer than stale_after_s', async () => {
    beating = ['runner', 'executor'];
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
    const t0 = clock.now();
    await advanceUntil('halt', () => flags.current().halted, 1_000);
    assert.equal(clock.now() - t0, 600, 'at the first round past stale_after_s');
    assert.equal(flags.current().reason, 'risk: risk inputs unreadable for 0.6 s');
    assert.equal(reads, 7, 'at start, then every 100 ms');
    assert.deepEqual(await ours(), [], 'our order cancelled');
    assert.equal(await metric(/^makerd_halts_total\{cause="risk"\} (\S+)$/m), 1);
  });

  void it('writes its status report when it changes, and else once a status interval', async () => {
    beating = ['runner', 'executor'];
    const risk: RiskSource = { read: () => Promise.resolve([]) };
    // Ten risk rounds and four status rounds a second; no heartbeat due in the second watched.
    const over = {
      heartbeat: { timeout_s: 10, interval_s: 5 },
      risk: { interval_ms: 100 },
    };
    await start(over, false, risk);
    const before = calls.count('report');
    await advance(1_000);
    const written = calls.count('report') - before;
    assert.ok(written >= 3 && written <= 5, `${written} reports in 14 rounds, none changing it`);
    const report = await flags.reported('supervisor');
    assert.equal(report?.posture, 'normal');
    assert.ok(clock.now() - Number(report?.atMs) < 250 + STEP_MS, 'the report is fresh');

    // A change is written by the round that made it, not at the next status round.
    const reports = calls.count('report');
    await supervisor?.halt('operator test', 'tester');
    await idle();
    assert.equal(calls.count('report'), reports + 1);
    assert.equal(((await flags.reported('supervisor'))?.halt as HaltState).reason, 'operator test');
  });

  void it('halts with "order entry failing" once an executor reports it for halt_after_s, and again after a resume', async () => {
    beating = ['runner', 'executor'];
    // As the daemon wires it: the pair's report, as its executor left it in Redis.
    const reports: OrderEntrySource = async () => {
      const r = await readOrderEntry(calls.watch(flags), 'XXBTZUSD');
      return r === undefined ? [] : [{ ...r, pair: 'XBTUSD' }];
    };
    await start({ order_entry: { halt_after_s: 1 } }, false, undefined, reports);
    await placeBids(1);
    const failing = { failing: true, roundTripP99Ms: 3_100, deadlineMs: 4_000 };
    await flags.report(orderEntryRole('XXBTZUSD'), { ...failing, sinceMs: clock.now() }, 60_000);
    const t0 = clock.now();
    await advanceUntil('halt', () => flags.current().halted, 2_000);
    assert.equal(clock.now() - t0, 1_000, 'at the first status round a second into the episode');
    assert.equal(flags.current().reason, 'order entry failing');
    assert.deepEqual(await ours(), [], 'our order cancelled');
    assert.equal(await metric(/^makerd_halts_total\{cause="order_entry"\} (\S+)$/m), 1);
    const line = logs.find((l) => l.msg.startsWith('order entry failing'));
    assert.deepEqual(line?.fields.pairs, [
      { pair: 'XBTUSD', failingForMs: 1_000, roundTripP99Ms: 3_100, deadlineMs: 4_000 },
    ]);

    // The operator resumes while the executor still reports the same episode: it gets its own
    // halt_after_s before the next halt.
    await flags.resume();
    await advance(250);
    const resumedAt = clock.now();
    await advanceUntil('the second halt', () => flags.current().halted, 2_000);
    assert.equal(clock.now() - resumedAt, 1_000);

    await flags.resume();
    await flags.report(
      orderEntryRole('XXBTZUSD'),
      { ...failing, failing: false, sinceMs: clock.now() },
      60_000,
    );
    await advance(2_000);
    assert.equal(flags.current().halted, false, 'recovered: no halt');
  });

  void it('retries a failed CancelAll every 500 ms of the clock', async () => {
    beating = ['runner', 'executor'];
    await start();
    await placeBids(2);
    const asleep = clock.pending;
    await sim.admin('POST', '/_sim/faults', { paths: ['CancelAll'], unavailable_rate: 1 });
    const halting = supervisor?.halt('retry check', 'operator:test');
    await until(
      'the first attempt failed, the retry waiting on the clock',
      () => calls.count('cancelAll') === 1 && calls.inFlight === 0 && clock.pending === asleep + 1,
    );
    // The loops' rounds due meanwhile wait for the halt's step to end.
    await advance(499);
    assert.equal(calls.count('cancelAll'), 1, 'not again before 500 ms');
    await advance(1);
    assert.equal(calls.count('cancelAll'), 2);

    await sim.admin('POST', '/_sim/faults', {});
    await advance(500);
    await halting;
    assert.deepEqual(await ours(), []);
    assert.deepEqual(
      logs.filter((l) => l.msg.startsWith('CancelAll')).map((l) => [l.msg, l.fields.attempt]),
      [
        ['CancelAll failed', 1],
        ['CancelAll failed', 2],
        ['CancelAll done', undefined],
      ],
    );
    assert.equal(
      await metric(/^makerd_supervisor_cancel_all_total\{outcome="failed"\} (\S+)$/m),
      2,
    );
  });

  void it('sweeps halt_sweep_ms of the clock after a halt; stop drops a sweep still waiting', async () => {
    beating = ['runner', 'executor'];
    await start();
    await supervisor?.halt('sweep check', 'operator:test');
    assert.equal(calls.count('cancelAll'), 1);
    // Each word costs the executors a sync's REST points: none for a CancelAll that found nothing.
    assert.equal(calls.count('cancelledAll'), 0, 'nothing cancelled, no executor told');
    await placeBids(1);
    await advance(299);
    assert.equal(calls.count('cancelAll'), 1, 'no sweep before halt_sweep_ms');
    await advance(1);
    assert.equal(calls.count('cancelAll'), 2, 'the sweep');
    assert.deepEqual(await ours(), []);
    assert.equal(calls.count('cancelledAll'), 1, 'the executors told of the order it took');

    await flags.resume();
    const asleep = clock.pending;
    await supervisor?.halt('another halt', 'operator:test');
    assert.equal(clock.pending, asleep + 1, 'its sweep waiting');
    await supervisor?.stop({ cancel: false });
    assert.equal(clock.pending, 1, "no timer left but the simulator's tick");
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
