import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseWithSchema } from '../../src/core/index.js';
import { ExecutorConfig } from '../../src/executor/index.js';
import { RoundTrips } from '../../src/executor/round-trips.js';

const T0 = 1_800_000_000_000;
const trips = (over: Partial<ExecutorConfig> = {}): RoundTrips =>
  new RoundTrips(parseWithSchema(ExecutorConfig, over, 'executor'));

describe('RoundTrips: the deadline and answer timeout a link calls for', () => {
  it('without a round trip measured: the configured floors (3 s deadline, 2 s wait)', () => {
    const t = trips();
    assert.equal(t.p99(T0), undefined);
    assert.equal(t.deadlineMs(T0), 3_000);
    assert.equal(t.timeoutMs(T0), 2_000);
  });

  it('a 40 ms link: the deadline is 40 ms over the floor, the wait stays at its floor', () => {
    const t = trips();
    for (let i = 0; i < 50; i++) t.add(T0 + i, 40);
    assert.equal(t.deadlineMs(T0 + 100), 3_040);
    assert.equal(t.timeoutMs(T0 + 100), 2_000);
  });

  it('a 2 s round trip: the deadline covers it, the spec minimum and the margin; the wait is twice it', () => {
    const t = trips();
    t.add(T0, 2_000);
    assert.equal(t.deadlineMs(T0), 5_000, '2 s there + 2 s the engine needs ahead + 1 s margin');
    assert.equal(t.timeoutMs(T0), 4_000);
  });

  it('takes the p99, not the worst, once there are a hundred round trips', () => {
    const t = trips();
    for (let i = 0; i < 199; i++) t.add(T0, 100);
    t.add(T0, 9_000);
    assert.equal(t.p99(T0), 100);
    t.add(T0, 9_000);
    t.add(T0, 9_000);
    assert.equal(t.p99(T0), 9_000, 'three of 202 are over the 99th percentile');
  });

  it('never above deadline_max_ms, the wait neither; within the spec with any config', () => {
    const t = trips({ deadline_max_ms: 8_000 });
    t.add(T0, 30_000);
    assert.equal(t.deadlineMs(T0), 8_000);
    assert.equal(t.timeoutMs(T0), 8_000);
    assert.equal(t.longestDeadlineMs, 8_000);
  });

  it('forgets round trips older than round_trip_window_ms', () => {
    const t = trips({ round_trip_window_ms: 10_000 });
    t.add(T0, 2_000);
    t.add(T0 + 5_000, 50);
    assert.equal(t.deadlineMs(T0 + 9_999), 5_000);
    assert.equal(t.deadlineMs(T0 + 10_001), 3_050);
    assert.equal(t.p99(T0 + 15_001), undefined);
  });
});
