import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ManualClock, PacedLoop } from '../../src/core/index.js';

const START = 1_000_000;

/** A loop of 1 s, 200 ms at the soonest, recording when its step ran (ms from the start). */
function paced(step: () => Promise<void> | void = () => undefined) {
  const clock = new ManualClock(START);
  const ran: number[] = [];
  const loop = new PacedLoop({
    clock,
    everyMs: 1_000,
    soonestMs: 200,
    step: async () => {
      ran.push(clock.now() - START);
      await step();
    },
    onError: (err) => assert.fail(String(err)),
  });
  loop.start();
  return { clock, ran, loop };
}

void describe('PacedLoop', () => {
  void it('runs its step every everyMs while nothing changes', async () => {
    const { clock, ran, loop } = paced();
    for (let i = 0; i < 3; i++) await clock.advance(1_000);
    assert.deepEqual(ran, [1_000, 2_000, 3_000]);
    await loop.stop();
  });

  void it('runs once for a burst of changes, soonestMs after its last run, then every everyMs', async () => {
    const { clock, ran, loop } = paced();
    await clock.advance(1_050);
    for (let i = 0; i < 5; i++) loop.changed();
    await clock.advance(100);
    assert.deepEqual(ran, [1_000], 'not before 200 ms after the last run');
    await clock.advance(1_500);
    assert.deepEqual(ran, [1_000, 1_200, 2_200]);
    await loop.stop();
  });

  void it('runs at once on a change when its last run is further back than soonestMs', async () => {
    const { clock, ran, loop } = paced();
    await clock.advance(1_500);
    loop.changed();
    await clock.advance(0);
    assert.deepEqual(ran, [1_000, 1_500]);
    await loop.stop();
  });

  void it('runs again after a step that a change came during', async () => {
    let release: (() => void) | undefined;
    const { clock, ran, loop } = paced(() => new Promise<void>((r) => (release = r)));
    await clock.advance(1_000);
    assert.ok(release !== undefined, 'the step is under way');
    loop.changed();
    await clock.advance(100);
    release();
    await clock.advance(100);
    assert.deepEqual(ran, [1_000, 1_200]);
    release();
    await loop.stop();
  });

  void it('leaves no timer once stopped, and a change then runs nothing', async () => {
    const { clock, ran, loop } = paced();
    await loop.stop();
    assert.equal(clock.pending, 0);
    assert.equal(loop.running, false);
    loop.changed();
    await clock.advance(5_000);
    assert.deepEqual(ran, []);
    loop.start();
    await clock.advance(1_000);
    assert.deepEqual(ran, [6_000], 'started again, a run everyMs later');
    await loop.stop();
  });
});
