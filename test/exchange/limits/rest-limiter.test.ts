import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock, MakerdError } from '../../../src/core/index.js';
import { BudgetWaitTooLongError } from '../../../src/exchange/errors/client-errors.js';
import { RestLimiter, type AcquireOptions, type Tier } from '../../../src/exchange/limits/index.js';

// The spec's REST counter table, written out here so the test does not trust the module's data.
const SPEC: Record<Tier, { max: number; decayPerSec: number }> = {
  starter: { max: 15, decayPerSec: 0.33 },
  intermediate: { max: 20, decayPerSec: 0.5 },
  pro: { max: 20, decayPerSec: 1 },
};
const TOLERANCE = 1e-6;

class CountingClock extends ManualClock {
  sleeps = 0;
  override sleep(ms: number, signal?: AbortSignal): Promise<void> {
    this.sleeps += 1;
    return super.sleep(ms, signal);
  }
}

interface Release {
  readonly id: string;
  readonly cost: number;
  readonly atMs: number;
  readonly queuedAtMs: number;
}

/** Starts an acquire and records when it resolves; the outcome is kept for later assertions. */
function start(
  limiter: RestLimiter,
  clock: ManualClock,
  log: Release[],
  id: string,
  cost: number,
  opts: AcquireOptions = {},
): Promise<unknown> {
  const queuedAtMs = clock.now();
  return limiter.acquire(cost, opts).then(
    () => {
      log.push({ id, cost, atMs: clock.now(), queuedAtMs });
      return 'released';
    },
    (err: unknown) => err,
  );
}

async function advanceUntil(clock: ManualClock, done: () => boolean, stepMs = 250): Promise<void> {
  for (let i = 0; i < 100_000 && !done(); i++) await clock.advance(stepMs);
  assert.ok(done(), 'condition not reached');
}

/** The counter per the spec, replayed from release times: level right after each release. */
function replay(releases: readonly Release[], decayPerSec: number): number[] {
  let level = 0;
  let at = -Infinity;
  return releases.map((r) => {
    const elapsed = at === -Infinity ? 0 : r.atMs - at;
    level = Math.max(0, level - (decayPerSec * elapsed) / 1000) + r.cost;
    at = r.atMs;
    return level;
  });
}

void describe('RestLimiter keeps the counter within the tier max', () => {
  for (const tier of ['starter', 'intermediate', 'pro'] as const) {
    for (const headroom of [0, 2]) {
      void it(`${tier}, headroom ${headroom}: 150 mixed calls, never over, never needlessly late`, async () => {
        const { max, decayPerSec } = SPEC[tier];
        const clock = new CountingClock();
        const limiter = new RestLimiter({ tier, clock, headroom });
        const log: Release[] = [];
        const outcomes: Promise<unknown>[] = [];
        const cost = (i: number): number => (i % 5 === 0 ? 2 : 1);
        for (let i = 0; i < 100; i++) outcomes.push(start(limiter, clock, log, `n${i}`, cost(i)));
        // More arrive while the queue drains, some of them high priority.
        for (let i = 100; i < 150; i++) {
          await clock.advance(700);
          const priority = i % 7 === 0 ? 'high' : 'normal';
          outcomes.push(start(limiter, clock, log, `n${i}`, cost(i), { priority }));
        }
        await advanceUntil(clock, () => log.length === 150);
        for (const o of await Promise.all(outcomes)) assert.equal(o, 'released');

        const levels = replay(log, decayPerSec);
        levels.forEach((level, i) => {
          assert.ok(
            level <= max - headroom + TOLERANCE,
            `release ${i} at ${log[i]?.atMs} took the counter to ${level} > ${max - headroom}`,
          );
        });
        // Tight: a call that had to wait could not have left 1 ms earlier.
        for (let i = 1; i < log.length; i++) {
          const r = log[i];
          const prev = log[i - 1];
          const prevLevel = levels[i - 1];
          if (r === undefined || prev === undefined || prevLevel === undefined) continue;
          if (r.atMs === r.queuedAtMs || r.atMs === prev.atMs) continue;
          const earlier = Math.max(0, prevLevel - (decayPerSec * (r.atMs - 1 - prev.atMs)) / 1000);
          assert.ok(
            earlier + r.cost > max - headroom,
            `release ${i} was held longer than needed: ${JSON.stringify([prev, prevLevel, r, earlier])}`,
          );
        }
        // Paced by sleeping until the next release, not by polling.
        assert.ok(clock.sleeps <= 2 * 150, `slept ${clock.sleeps} times for 150 calls`);
        assert.equal(limiter.snapshot().queued, 0);
        await clock.advance(120_000);
        assert.equal(clock.pending, 0, 'a timer is still armed with an empty queue');
      });
    }
  }

  void it('lets the first max points through at once, then one per 1/decay seconds (starter)', async () => {
    const clock = new ManualClock();
    const t0 = clock.now();
    const limiter = new RestLimiter({ tier: 'starter', clock });
    const log: Release[] = [];
    const outcomes = Array.from({ length: 17 }, (_, i) => start(limiter, clock, log, `${i}`, 1));
    await clock.advance(0);
    assert.equal(log.length, 15);
    await advanceUntil(clock, () => log.length === 17, 1);
    // 1 point at 0.33/s: ceil(3030.3) ms, then again.
    assert.deepEqual(
      log.slice(15).map((r) => r.atMs - t0),
      [3_031, 6_061],
    );
    await Promise.all(outcomes);
    assert.equal(clock.pending, 0);
  });
});

void describe('RestLimiter ordering', () => {
  void it('serves a high-priority waiter queued after normals first', async () => {
    const clock = new ManualClock();
    const t0 = clock.now();
    const limiter = new RestLimiter({ tier: 'pro', clock });
    const log: Release[] = [];
    const fill = Array.from({ length: 20 }, (_, i) => start(limiter, clock, log, `fill${i}`, 1));
    await Promise.all(fill);
    const a = start(limiter, clock, log, 'A', 1);
    const b = start(limiter, clock, log, 'B', 1);
    const h1 = start(limiter, clock, log, 'H1', 1, { priority: 'high' });
    const h2 = start(limiter, clock, log, 'H2', 1, { priority: 'high' });
    assert.equal(limiter.snapshot().queued, 4);
    await advanceUntil(clock, () => log.length === 24, 100);
    await Promise.all([a, b, h1, h2]);
    assert.deepEqual(
      log.slice(20).map((r) => [r.id, r.atMs - t0]),
      [
        ['H1', 1_000],
        ['H2', 2_000],
        ['A', 3_000],
        ['B', 4_000],
      ],
    );
  });

  void it('keeps FIFO within a priority even when a later, cheaper call would fit', async () => {
    const clock = new ManualClock();
    const limiter = new RestLimiter({ tier: 'pro', clock });
    const log: Release[] = [];
    await Promise.all(Array.from({ length: 19 }, (_, i) => start(limiter, clock, log, `f${i}`, 1)));
    const big = start(limiter, clock, log, 'big', 2);
    const small = start(limiter, clock, log, 'small', 1);
    await clock.advance(0);
    assert.equal(log.length, 19, 'the cost-1 call must not overtake the queued cost-2 call');
    await advanceUntil(clock, () => log.length === 21, 100);
    await Promise.all([big, small]);
    assert.deepEqual(
      log.slice(19).map((r) => r.id),
      ['big', 'small'],
    );
  });
});

void describe('RestLimiter reacting to the exchange', () => {
  void it('blockUntil holds every release until that time', async () => {
    const clock = new ManualClock();
    const t0 = clock.now();
    const limiter = new RestLimiter({ tier: 'pro', clock });
    const log: Release[] = [];
    limiter.blockUntil(t0 + 5_000);
    assert.equal(limiter.snapshot().blockedUntilMs, t0 + 5_000);
    const p = start(limiter, clock, log, 'rest', 1);
    const q = start(limiter, clock, log, 'order-entry', 0);
    await clock.advance(4_999);
    assert.equal(log.length, 0);
    await clock.advance(1);
    await Promise.all([p, q]);
    assert.deepEqual(log.map((r) => r.atMs - t0).sort(), [5_000, 5_000]);
    // An earlier time never shortens a block.
    limiter.blockUntil(t0 + 9_000);
    limiter.blockUntil(t0 + 6_000);
    assert.equal(limiter.snapshot().blockedUntilMs, t0 + 9_000);
    assert.equal(clock.pending, 0);
  });

  void it('cost 0 resolves at once even with a full counter', async () => {
    const clock = new ManualClock();
    const limiter = new RestLimiter({ tier: 'starter', clock });
    for (let i = 0; i < 15; i++) await limiter.acquire(1);
    const before = clock.now();
    await limiter.acquire(0);
    assert.equal(clock.now(), before);
    assert.equal(limiter.snapshot(before).level, 15);
  });

  void it('onRateLimited backs off 2 s doubling to 60 s, assumes a full counter, onAccepted resets', async () => {
    const clock = new ManualClock();
    const t0 = clock.now();
    const limiter = new RestLimiter({ tier: 'pro', clock });
    const log: Release[] = [];
    limiter.onRateLimited();
    assert.deepEqual(limiter.snapshot(), {
      level: 20,
      max: 20,
      blockedUntilMs: t0 + 2_000,
      queued: 0,
    });
    const p = start(limiter, clock, log, 'after-backoff', 1);
    await advanceUntil(clock, () => log.length === 1, 100);
    await p;
    assert.equal(log[0]?.atMs, t0 + 2_000);

    const backoffs: number[] = [];
    for (let i = 0; i < 7; i++) {
      limiter.onRateLimited();
      backoffs.push(limiter.snapshot().blockedUntilMs - clock.now());
    }
    assert.deepEqual(backoffs, [4_000, 8_000, 16_000, 32_000, 60_000, 60_000, 60_000]);

    await clock.advance(60_000);
    limiter.onAccepted();
    limiter.onRateLimited();
    assert.equal(limiter.snapshot().blockedUntilMs - clock.now(), 2_000);
  });

  void it('after a rate-limit answer on starter, the full counter outlasts the 2 s backoff', async () => {
    const clock = new ManualClock();
    const t0 = clock.now();
    const limiter = new RestLimiter({ tier: 'starter', clock });
    const log: Release[] = [];
    limiter.onRateLimited();
    const p = start(limiter, clock, log, 'x', 1);
    await advanceUntil(clock, () => log.length === 1, 100);
    await p;
    assert.equal(log[0]?.atMs, t0 + 3_031);
  });
});

void describe('RestLimiter waiting limits', () => {
  void it('an abort rejects with the reason and frees the queue for the next waiter', async () => {
    const clock = new ManualClock();
    const t0 = clock.now();
    const limiter = new RestLimiter({ tier: 'pro', clock });
    const log: Release[] = [];
    await Promise.all(Array.from({ length: 20 }, (_, i) => start(limiter, clock, log, `f${i}`, 1)));
    const controller = new AbortController();
    const aborted = start(limiter, clock, log, 'A', 2, { signal: controller.signal });
    const next = start(limiter, clock, log, 'B', 1);
    await clock.advance(500);
    const reason = new Error('shutting down');
    controller.abort(reason);
    assert.equal(await aborted, reason);
    assert.equal(limiter.snapshot().queued, 1);
    await advanceUntil(clock, () => log.length === 21, 100);
    await next;
    // Had A still been ahead, B would leave at +3000.
    assert.deepEqual(
      log.slice(20).map((r) => [r.id, r.atMs - t0]),
      [['B', 1_000]],
    );
    await clock.advance(5_000);
    assert.equal(clock.pending, 0);
  });

  void it('aborting the only waiter disarms the limiter at once (no timer holds the process)', async () => {
    const clock = new ManualClock();
    const limiter = new RestLimiter({ tier: 'starter', clock });
    for (let i = 0; i < 15; i++) await limiter.acquire(1);
    const controller = new AbortController();
    const waiting = limiter.acquire(1, { signal: controller.signal });
    await clock.advance(0);
    assert.equal(clock.pending, 1, 'a full counter should make the limiter sleep');
    controller.abort(new Error('shutting down'));
    await assert.rejects(waiting, /shutting down/);
    assert.equal(clock.pending, 0, 'the stale sleep is still armed');
    assert.equal(limiter.snapshot().queued, 0);
  });

  void it('an already aborted signal rejects without queueing or counting', async () => {
    const clock = new ManualClock();
    const limiter = new RestLimiter({ tier: 'pro', clock });
    const reason = new Error('gone');
    await assert.rejects(limiter.acquire(1, { signal: AbortSignal.abort(reason) }), reason);
    assert.equal(limiter.snapshot().queued, 0);
    assert.equal(limiter.snapshot().level, 0);
  });

  void it('maxWaitMs throws BudgetWaitTooLongError up front and counts nothing', async () => {
    const clock = new ManualClock();
    const limiter = new RestLimiter({ tier: 'starter', clock });
    for (let i = 0; i < 15; i++) await limiter.acquire(1);
    await assert.rejects(
      limiter.acquire(1, { maxWaitMs: 1_000, label: 'Balance' }),
      (err: unknown) =>
        err instanceof BudgetWaitTooLongError &&
        err.code === 'CLIENT_BUDGET_WAIT' &&
        err.waitMs === 3_031 &&
        err.message.startsWith('Balance:'),
    );
    assert.equal(limiter.snapshot().queued, 0);
    assert.equal(limiter.snapshot().level, 15);
    assert.equal(clock.pending, 0);

    const log: Release[] = [];
    const ok = start(limiter, clock, log, 'fits', 1, { maxWaitMs: 3_031 });
    await advanceUntil(clock, () => log.length === 1, 1_000);
    assert.equal(await ok, 'released');
  });

  void it('maxWaitMs also rejects a queued waiter once a later high call pushes it past the limit', async () => {
    const clock = new ManualClock();
    const t0 = clock.now();
    const limiter = new RestLimiter({ tier: 'pro', clock });
    const log: Release[] = [];
    await Promise.all(Array.from({ length: 20 }, (_, i) => start(limiter, clock, log, `f${i}`, 1)));
    const normal = start(limiter, clock, log, 'N', 1, { maxWaitMs: 1_500, label: 'Ledgers' });
    const high = start(limiter, clock, log, 'H', 1, { priority: 'high' });
    await clock.advance(1_499);
    assert.deepEqual(
      log.slice(20).map((r) => r.id),
      ['H'],
    );
    await clock.advance(1);
    const err = await normal;
    assert.ok(err instanceof BudgetWaitTooLongError);
    assert.equal(err.waitMs, 2_000);
    assert.equal(await high, 'released');
    assert.equal(clock.now() - t0, 1_500);
    assert.equal(limiter.snapshot().queued, 0);
    await clock.advance(5_000);
    assert.equal(log.length, 21, 'the expired waiter must never be released');
    assert.equal(clock.pending, 0);
  });

  void it('rejects a cost that can never fit and a bad headroom', async () => {
    const clock = new ManualClock();
    const limiter = new RestLimiter({ tier: 'pro', clock, headroom: 5 });
    await assert.rejects(limiter.acquire(16), MakerdError);
    await assert.rejects(limiter.acquire(-1), MakerdError);
    assert.throws(() => new RestLimiter({ tier: 'pro', headroom: 20 }), MakerdError);
  });
});
