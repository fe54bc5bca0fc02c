import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { freePort } from '../../src/core/free-port.js';
import { decodeUserref, slotKey } from '../../src/core/index.js';
import { RedisOrderTracker } from '../../src/orders/index.js';
import { startPaperRun, type PaperRun, type SimOrderRow } from '../support/paper-run.js';
import { redisServer } from '../support/redis-server.js';
import { until } from '../support/until.js';

const PAIRS = ['XXBTZUSD', 'XETHZUSD'];
const PAUSE_MS = 15_000;
/**
 * Longer than the pause: a 10 s timer fires inside a 15 s hang whatever makerd does (no
 * heartbeat can be signed without a nonce from Redis). Paused just after a heartbeat, this one
 * fires 3 s after Redis answers unless the supervisor refreshes it before; heartbeats come every
 * 5 s, so one an interval after Redis answered is too late.
 */
const TIMEOUT_S = 18;
/**
 * A beat older than this is taken for a dead role: whatever a role beat in the hang's first
 * seconds is stale when Redis answers (the run: the runner's last beat was).
 */
const LIVENESS_MS = 8_000;

interface Status {
  readonly stale: boolean;
  readonly ageMs?: number;
  readonly redisNotAnsweringForMs?: number;
  readonly supervisor?: { readonly deadMan?: { readonly triggerAtMs?: number } };
}

/**
 * Issue #42 items 2 and 4: Redis hangs for 15 s (`CLIENT PAUSE 15000 ALL` on a redis-server of
 * the test's own) under a quoting `makerd run`. The dead-man must not fire once Redis answers,
 * /status must answer during the hang (stale), the log must say Redis is not answering, and
 * order entry must go on at once afterwards: no duplicate, no refusal, no phantom order.
 */
void describe('makerd run: Redis hung for 15 s', () => {
  let run: PaperRun;
  let redis: ChildProcess;
  let url: string;
  const opened: Redis[] = [];

  before(async () => {
    const port = await freePort();
    redis = await redisServer(port);
    url = `redis://127.0.0.1:${port}`;
    run = await startPaperRun(
      43,
      {
        supervisor: {
          heartbeat: { timeout_s: TIMEOUT_S, interval_s: 5, liveness_max_age_ms: LIVENESS_MS },
          status: { interval_ms: 1000 },
          resume: 'operator',
        },
      },
      // Heartbeats every 5 s take more of the REST budget than a starter key spares.
      'intermediate',
    );
  });
  after(async () => {
    await run.close();
    for (const r of opened) r.disconnect();
    redis.kill('SIGKILL');
  });

  void it('refreshes the dead-man once Redis answers, answers /status meanwhile, quotes again at once', async (t) => {
    const { bot, http } = await run.start({ REDIS_URL: url });
    const status = async (): Promise<Status> =>
      (await (
        await fetch(`${http}/status`, { signal: AbortSignal.timeout(5_000) })
      ).json()) as Status;
    /** When the exchange's timer fires, in ms (it says in seconds). */
    const trigger = async (): Promise<number | undefined> => {
      const at = (await run.state()).dead_man[run.apiKey]?.trigger_at;
      return at === undefined ? undefined : at * 1000;
    };
    const ourFirings = async () =>
      (await run.state()).dead_man_firings.filter((f) => f.key === run.apiKey);
    await until(
      'both pairs quoted',
      async () => (new Set((await run.orders()).map((o) => o.pair)).size === 2 ? true : undefined),
      30_000,
    );
    assert.equal((await status()).stale, false);
    const armed = (await trigger()) ?? 0;
    await until('a heartbeat', async () => ((await trigger()) ?? 0) > armed, 10_000, 50);
    const quotedBefore = new Set((await run.orders()).map((o) => o.txid));

    const control = new Redis(url);
    const probe = new Redis(url);
    opened.push(control, probe);
    await probe.ping();
    await control.call('CLIENT', 'PAUSE', String(PAUSE_MS), 'ALL');
    const pausedAt = Date.now();
    const answering = probe.ping().then(() => Date.now());

    const hung = await status();
    assert.equal(hung.stale, true, 'the last report, flagged stale');
    assert.ok((hung.ageMs ?? -1) >= 0, `its age: ${hung.ageMs}`);
    assert.ok(hung.supervisor?.deadMan?.triggerAtMs !== undefined, 'the supervisor’s own view');
    const warned = await until(
      'the log saying Redis is not answering',
      () => bot.lines.find((l) => String(l.msg).startsWith('Redis not answering')),
      PAUSE_MS,
    );
    const answeredAt = await answering;
    const warnedAt = Date.parse(String(warned.time));
    assert.ok(warnedAt < answeredAt, 'said while Redis hung');
    await until('the log saying Redis answers again', () =>
      bot.lines.find((l) => l.msg === 'Redis answering again'),
    );

    // The timer armed just before the hang runs out 5 s after Redis answers: it must be pushed
    // back before then, by a heartbeat sent after Redis answered.
    const refreshedAt = await until(
      'a heartbeat after Redis answered',
      async () => {
        const at = await trigger();
        return at !== undefined && at - TIMEOUT_S * 1000 >= answeredAt
          ? at - TIMEOUT_S * 1000
          : undefined;
      },
      15_000,
      100,
    );
    assert.deepEqual(await ourFirings(), [], 'the dead-man never fired');
    const quotedAgainAt = await until(
      'a new order after Redis answered',
      async () =>
        (await run.orders()).some((o) => !quotedBefore.has(o.txid)) ? Date.now() : undefined,
      15_000,
      50,
    );
    t.diagnostic(
      `Redis paused ${answeredAt - pausedAt} ms; 'Redis not answering' ${warnedAt - pausedAt} ms ` +
        `into it; /status answered stale (report ${hung.ageMs} ms old); dead-man refreshed ` +
        `${refreshedAt - answeredAt} ms and a new order on the book ${quotedAgainAt - answeredAt} ms ` +
        'after Redis answered',
    );

    // 15 s after: what /status counts (the tracker) is what the exchange holds.
    await until('15 s after Redis answered', () => Date.now() >= answeredAt + 15_000, 20_000, 100);
    const tracker = new RedisOrderTracker({ redis: probe, prefix: run.prefix });
    const disagreement = await until(
      'the tracker agreeing with the exchange',
      async () => {
        const [records, open] = await Promise.all([
          Promise.all(PAIRS.map((p) => tracker.live(p))).then((r) => r.flat()),
          run.orders(),
        ]);
        const ours = new Set(records.map((r) => r.txid ?? `(${r.state} ${r.slot})`));
        const theirs = new Set(open.map((o) => o.txid));
        const phantoms = [...ours].filter((id) => !theirs.has(id));
        return phantoms.length === 0 ? { phantoms } : undefined;
      },
      5_000,
      200,
    );
    await tracker.close();
    assert.deepEqual(disagreement, { phantoms: [] });
    assertNoDuplicates(
      [...(await run.orders()), ...(await run.closedOrders())],
      await run.orders(),
    );
    assert.deepEqual(await ourFirings(), [], 'the dead-man never fired');
    const { rejections } = await run.state();
    assert.equal(rejections['EOrder:Rate limit exceeded'], undefined, JSON.stringify(rejections));
    assert.equal(
      bot.lines.filter((l) => String(l.msg).startsWith('Redis not answering')).length,
      1,
      'one warning for the episode',
    );
    assert.equal(bot.child.exitCode, null, 'still running');
  });
});

/** Every order carries its own userref, and no slot holds two open orders. */
function assertNoDuplicates(all: readonly SimOrderRow[], open: readonly SimOrderRow[]): void {
  const refs = all.map((o) => `${o.pair}|${String(o.userref)}`);
  assert.equal(new Set(refs).size, refs.length, 'an order placed twice');
  const perSlot = new Map<string, number>();
  for (const o of open) {
    const decoded = decodeUserref(o.userref);
    assert.ok(decoded !== undefined, `open order ${o.txid} is ours`);
    const key = `${o.pair}|${slotKey(decoded.slot)}`;
    perSlot.set(key, (perSlot.get(key) ?? 0) + 1);
  }
  assert.deepEqual(
    [...perSlot].filter(([, n]) => n > 1),
    [],
    'one open order per slot',
  );
}
