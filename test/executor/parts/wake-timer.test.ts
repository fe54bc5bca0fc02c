import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ManualClock } from '../../../src/core/index.js';
import { WakeTimer } from '../../../src/executor/wake-timer.js';

const T0 = 1_800_000_000_000;

/** A timer on a manual clock and the clock times at which it fired. */
function timer(): { clock: ManualClock; wake: WakeTimer; fired: number[] } {
  const clock = new ManualClock(T0);
  const fired: number[] = [];
  return { clock, wake: new WakeTimer(clock, () => fired.push(clock.now())), fired };
}

void describe('WakeTimer', () => {
  void it('fires once, at the time set', async () => {
    const { clock, wake, fired } = timer();
    wake.set(T0 + 1_500);
    assert.equal(wake.dueAtMs, T0 + 1_500);
    await clock.advance(1_499);
    assert.deepEqual(fired, []);
    await clock.advance(1);
    assert.deepEqual(fired, [T0 + 1_500]);
    assert.equal(wake.dueAtMs, undefined, 'nothing pending after it fired');
    await clock.advance(10_000);
    assert.deepEqual(fired, [T0 + 1_500], 'once');
  });

  void it('a new time replaces the pending one, earlier or later', async () => {
    const { clock, wake, fired } = timer();
    wake.set(T0 + 5_000);
    wake.set(T0 + 2_000);
    await clock.advance(3_000);
    assert.deepEqual(fired, [T0 + 2_000]);
    wake.set(T0 + 4_000);
    wake.set(T0 + 9_000);
    await clock.advance(10_000);
    assert.deepEqual(fired, [T0 + 2_000, T0 + 9_000]);
    assert.equal(clock.pending, 0, 'no sleeper left behind by the replaced times');
  });

  void it('setting the pending time again keeps the one wake-up', async () => {
    const { clock, wake, fired } = timer();
    wake.set(T0 + 1_000);
    wake.set(T0 + 1_000);
    assert.equal(clock.pending, 1);
    await clock.advance(1_000);
    assert.deepEqual(fired, [T0 + 1_000]);
  });

  void it('a time already passed fires once the caller’s turn is over, without a timer', async () => {
    const { clock, wake, fired } = timer();
    wake.set(T0 - 50);
    assert.deepEqual(fired, [], 'not within the call');
    assert.equal(clock.pending, 0);
    await clock.advance(0);
    assert.deepEqual(fired, [T0]);
  });

  void it('clear, undefined and Infinity leave nothing pending', async () => {
    const { clock, wake, fired } = timer();
    for (const off of [() => wake.clear(), () => wake.set(undefined), () => wake.set(Infinity)]) {
      wake.set(clock.now() + 1_000);
      off();
      assert.equal(wake.dueAtMs, undefined);
      assert.equal(clock.pending, 0);
    }
    wake.set(T0 - 1);
    wake.clear();
    await clock.advance(5_000);
    assert.deepEqual(fired, [], 'a cleared due wake-up does not fire either');
  });
});
