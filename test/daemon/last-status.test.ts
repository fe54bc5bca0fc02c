import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ManualClock } from '../../src/core/index.js';
import { LastStatus } from '../../src/daemon/last-status.js';
import type { StatusReport } from '../../src/daemon/status-report.js';

const report = (atMs: number): StatusReport => ({
  atMs,
  mode: 'trading',
  halt: { halted: false },
  roles: { runner: { alive: true, beatAgeMs: 10 }, executor: { alive: true, beatAgeMs: 20 } },
  supervisor: undefined,
  pairs: [],
});

void describe('LastStatus', () => {
  void it('answers the last report, stale and how old, when a read outlasts the bound; reads once at a time', async () => {
    const clock = new ManualClock();
    let reads = 0;
    let answer: (() => void) | undefined;
    const status = new LastStatus(
      () => {
        reads += 1;
        const at = clock.now();
        if (reads !== 2) return Promise.resolve(report(at));
        return new Promise((resolve) => (answer = () => resolve(report(at))));
      },
      clock,
      1_000,
    );
    assert.deepEqual(await status.read(), { ...report(clock.now()), stale: false });
    const readAt = clock.now();

    await clock.advance(5_000);
    const hung = [status.read(), status.read()];
    await clock.advance(1_000);
    const [first, second] = await Promise.all(hung);
    assert.deepEqual(first, { ...report(readAt), stale: true, ageMs: 6_000 });
    assert.deepEqual(second, first);
    assert.equal(reads, 2, 'the second caller shared the read under way');

    answer?.();
    await clock.advance(0);
    const later = await status.read();
    assert.equal(later.stale, false);
    assert.equal(reads, 3);
  });

  void it('with no report read yet, says so: stale, no age', async () => {
    const clock = new ManualClock();
    const status = new LastStatus(() => new Promise<StatusReport>(() => undefined), clock, 1_000);
    const answer = status.read();
    await clock.advance(1_000);
    assert.deepEqual(await answer, { stale: true, ageMs: undefined });
  });
});
