import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ManualClock } from '../../src/core/index.js';
import { DeadManSwitch } from '../../src/safety/index.js';
import { logCollector, type LogEntry } from './log-collector.js';

const T0 = 1_800_000_000_000;
const iso = (ms: number): string => new Date(ms).toISOString();

/**
 * Issue #42 item 1: the supervisor learns that the exchange's CancelAllOrdersAfter timer fired
 * (the exchange then cancelled every order of the key), from the clock or from the answer of a
 * heartbeat the exchange took too late. The exchange here answers as the test tells it.
 */
void describe('DeadManSwitch: knowing when the timer fired', () => {
  function deadMan(answers: { currentMs: number; triggerMs: number }[]) {
    const clock = new ManualClock(T0);
    const logs: LogEntry[] = [];
    const fired: number[] = [];
    const dm = new DeadManSwitch({
      client: {
        cancelAllOrdersAfter: () => {
          const a = answers.shift();
          if (a === undefined) return Promise.reject(new Error('no answer'));
          return Promise.resolve({
            result: { currentTime: iso(a.currentMs), triggerTime: iso(a.triggerMs) },
            warnings: [],
            traceId: undefined,
          });
        },
      },
      timeoutS: 10,
      clock,
      log: logCollector(logs),
      onFired: (atMs) => fired.push(atMs),
    });
    return { clock, logs, fired, dm };
  }

  void it('from a heartbeat the exchange took after the trigger time', async () => {
    const { logs, fired, dm } = deadMan([
      { currentMs: T0, triggerMs: T0 + 10_000 },
      // The process stood still for 12 s: its next heartbeat arrived past the trigger time.
      { currentMs: T0 + 12_000, triggerMs: T0 + 22_000 },
    ]);
    await dm.refresh();
    assert.deepEqual(fired, []);
    await dm.refresh();
    assert.deepEqual(fired, [T0 + 10_000]);
    assert.equal(dm.triggerAtMs, T0 + 22_000, 'armed again by that heartbeat');
    assert.deepEqual(
      logs.filter((l) => l.level === 'error').map((l) => [l.msg, l.fields.firedAt]),
      [['dead-man timer fired: the exchange cancelled every order of the key', iso(T0 + 10_000)]],
    );
    dm.stop();
  });

  void it('from the clock, a second past the trigger time with no heartbeat', async () => {
    const { clock, fired, dm } = deadMan([{ currentMs: T0, triggerMs: T0 + 10_000 }]);
    await dm.refresh();
    await clock.advance(10_999);
    assert.deepEqual(fired, [], 'a trigger time in whole seconds, clocks apart: not yet');
    await clock.advance(1);
    assert.deepEqual(fired, [T0 + 10_000]);
    assert.equal(dm.triggerAtMs, undefined, 'disabled once fired, as the spec says');
    assert.equal(await dm.check(), T0 + 10_000);
    assert.equal(clock.pending, 0);
  });

  void it('no firing while heartbeats come in time; stop() leaves no timer behind', async () => {
    const { clock, fired, dm } = deadMan([
      { currentMs: T0, triggerMs: T0 + 10_000 },
      { currentMs: T0 + 5_000, triggerMs: T0 + 15_000 },
    ]);
    await dm.refresh();
    await clock.advance(5_000);
    await dm.refresh();
    await clock.advance(7_000);
    assert.deepEqual(fired, []);
    assert.equal(await dm.check(), undefined);
    dm.stop();
    assert.equal(clock.pending, 0);
  });
});
