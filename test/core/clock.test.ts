import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock, every, systemClock, within } from '../../src/core/index.js';

void describe('Clock.sleep with an AbortSignal', () => {
  void it('ManualClock: an aborted sleep rejects and is no longer pending', async () => {
    const clock = new ManualClock(0);
    const controller = new AbortController();
    const sleeping = clock.sleep(1_000, controller.signal);
    const kept = clock.sleep(2_000);
    assert.equal(clock.pending, 2);
    controller.abort(new Error('not needed'));
    await assert.rejects(sleeping, /not needed/);
    assert.equal(clock.pending, 1);
    await clock.advance(2_000);
    await kept;
    assert.equal(clock.now(), 2_000);
  });

  void it('ManualClock: a signal aborted beforehand rejects without queueing', async () => {
    const clock = new ManualClock(0);
    await assert.rejects(clock.sleep(10, AbortSignal.abort(new Error('late'))), /late/);
    assert.equal(clock.pending, 0);
  });

  void it('systemClock: abort cancels the timer instead of letting it run out', async () => {
    const controller = new AbortController();
    const started = Date.now();
    const sleeping = systemClock.sleep(60_000, controller.signal);
    controller.abort(new Error('cancelled'));
    await assert.rejects(sleeping, /cancelled/);
    // A 60 s timer left armed would keep this test process alive; the runner would hang.
    assert.ok(Date.now() - started < 1_000);
  });
});

void describe('within', () => {
  void it("gives the work's value when it ends in time, and leaves no timer behind", async () => {
    const clock = new ManualClock(0);
    assert.deepEqual(await within(clock, Promise.resolve(7), 1_000), { done: true, value: 7 });
    assert.equal(clock.pending, 0);
  });

  void it('says not done once the bound has passed on the clock', async () => {
    const clock = new ManualClock(0);
    const outcome = within(clock, new Promise<number>(() => undefined), 1_000);
    await clock.advance(999);
    await clock.advance(1);
    assert.deepEqual(await outcome, { done: false });
  });
});

void describe('every', () => {
  const failed = (err: unknown): void => assert.fail(String(err));

  void it('runs on the grid of its interval: loops started apart wake together', async () => {
    const clock = new ManualClock(1_700_000_000_300);
    const stop = new AbortController();
    const seconds: number[] = [];
    const twoSeconds: number[] = [];
    const loop = (ms: number, runs: number[]) =>
      every(clock, ms, stop.signal, () => void runs.push(clock.now()), failed);
    const a = loop(1_000, seconds);
    await clock.advance(450);
    const b = loop(2_000, twoSeconds);
    await clock.advance(3_450);
    stop.abort();
    await Promise.all([a, b]);
    assert.deepEqual(
      seconds,
      [1_700_000_001_000, 1_700_000_002_000, 1_700_000_003_000, 1_700_000_004_000],
    );
    assert.deepEqual(twoSeconds, [1_700_000_002_000, 1_700_000_004_000]);
  });

  void it('waits a whole interval when it starts on the grid', async () => {
    const clock = new ManualClock(1_700_000_000_000);
    const stop = new AbortController();
    const runs: number[] = [];
    const loop = every(clock, 1_000, stop.signal, () => void runs.push(clock.now()), failed);
    await clock.advance(999);
    assert.deepEqual(runs, []);
    await clock.advance(1);
    stop.abort();
    await loop;
    assert.deepEqual(runs, [1_700_000_001_000]);
  });
});
