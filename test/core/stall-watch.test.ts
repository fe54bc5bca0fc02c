import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ManualClock, StallWatch, type Clock, type Stall } from '../../src/core/index.js';
import { until } from '../support/until.js';

/**
 * A clock as a process stopped by SIGSTOP finds it: time moved on (`aheadMs`) while none of its
 * timers ran. The loop's own sleeps are the manual clock's, which only the test moves.
 */
function frozenClock(): { clock: Clock; manual: ManualClock; freeze: (ms: number) => void } {
  const manual = new ManualClock();
  let aheadMs = 0;
  return {
    manual,
    clock: { now: () => manual.now() + aheadMs, sleep: (ms, s) => manual.sleep(ms, s) },
    freeze: (ms) => void (aheadMs += ms),
  };
}

void describe('StallWatch', () => {
  void it('tells its listeners of a stall before the look returns, and reports what they found', async () => {
    const { clock, manual, freeze } = frozenClock();
    const reports: { stall: Stall; found: Record<string, unknown> }[] = [];
    const watch = new StallWatch(clock, (stall, found) => reports.push({ stall, found }));
    const told: number[] = [];
    watch.onStall((stall) => {
      told.push(stall.stalledMs);
      return Promise.resolve({ ordersGone: 3 });
    });
    watch.onStall(() => ({ deadManFired: true }));
    watch.onStall(() => {
      throw new Error('could not tell');
    });
    const stop = new AbortController();
    const running = watch.run(stop.signal);

    await manual.advance(5_000);
    freeze(2_000);
    watch.look();
    assert.deepEqual(told, [], 'a second or two late is no stall');

    freeze(20_000);
    watch.look();
    assert.deepEqual(told, [20_000], 'told at once, before anything else runs');
    const report = await until('the report', () => reports[0]);
    assert.deepEqual(report.found, {
      ordersGone: 3,
      deadManFired: true,
      error: 'could not tell',
    });
    assert.equal(report.stall.toMs - report.stall.fromMs, 20_000);

    watch.look();
    await manual.advance(1_000);
    assert.equal(reports.length, 1, 'one report a stall');
    stop.abort();
    await running;
    assert.equal(manual.pending, 0);
  });

  void it('counts nothing before it runs: a slow start-up is no stall', () => {
    const { clock, freeze } = frozenClock();
    const told: Stall[] = [];
    const watch = new StallWatch(clock, () => undefined);
    watch.onStall((stall) => void told.push(stall));
    freeze(60_000);
    watch.look();
    assert.deepEqual(told, []);
  });
});
