import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { MakerdError } from '../../../src/core/index.js';
import {
  RatecountMeter,
  ageBucket,
  cancelAllPenalty,
  cancelBatchPenalty,
  cancelPenalty,
  penalty,
  ratecountAdd,
  ratecountLevel,
  MATCHING_ENGINE,
  type RatecountState,
} from '../../../src/exchange/limits/index.js';

// Ages probing both sides of every column edge of the spec's table: <5s <10s <15s <45s <90s <300s >300s.
const AGES_MS = [
  0, 4_999, 5_000, 9_999, 10_000, 14_999, 15_000, 44_999, 45_000, 89_999, 90_000, 299_999, 300_000,
  3_600_000,
];
// The spec's numbers, written out per age above.
const EDIT = [6, 6, 5, 5, 4, 4, 2, 2, 1, 1, 0, 0, 0, 0];
const CANCEL = [8, 8, 6, 6, 5, 5, 4, 4, 2, 2, 1, 1, 0, 0];

void describe('penalty table', () => {
  AGES_MS.forEach((age, i) => {
    void it(`order aged ${age} ms: Add +1, Edit +${EDIT[i]}, Cancel +${CANCEL[i]}`, () => {
      assert.equal(penalty('AddOrder', age), 1);
      assert.equal(penalty('EditOrder', age), EDIT[i]);
      assert.equal(penalty('CancelOrder', age), CANCEL[i]);
      assert.equal(cancelPenalty(age), CANCEL[i]);
      assert.equal(penalty('CancelOrderBatch', age), CANCEL[i]);
      assert.equal(penalty('CancelOrderBatch', age, 3), 3 * (CANCEL[i] ?? NaN));
    });
  });

  for (const [n, expected] of [
    [1, 0.5],
    [2, 1],
    [7, 3.5],
    [15, 7.5],
  ] as const) {
    void it(`AddOrderBatch of ${n} orders adds ${expected}`, () => {
      assert.equal(penalty('AddOrderBatch', 0, n), expected);
      assert.equal(penalty('AddOrderBatch', 400_000, n), expected);
    });
  }

  void it('treats a negative age as a new order and rejects NaN', () => {
    assert.equal(ageBucket(-1_000), 0);
    assert.equal(penalty('CancelOrder', -1), 8);
    assert.throws(() => ageBucket(NaN), MakerdError);
  });

  void it('rejects a count on single-order actions and non-positive counts', () => {
    assert.throws(() => penalty('EditOrder', 0, 2), MakerdError);
    assert.throws(() => penalty('AddOrderBatch', 0, 0), MakerdError);
    assert.throws(() => penalty('AddOrderBatch', 0, 1.5), MakerdError);
  });
});

void describe('cancel batch and cancel all', () => {
  void it('sums per-order penalties of a batch below the max', () => {
    // 8 + 6 + 5 + 4 + 2 + 1 + 0
    assert.equal(
      cancelBatchPenalty([1_000, 6_000, 11_000, 20_000, 60_000, 100_000, 400_000], 60),
      26,
    );
  });

  void it('caps the batch penalty at the max ratecount', () => {
    const fresh = Array.from({ length: 50 }, () => 0);
    assert.equal(cancelBatchPenalty(fresh, 60), 60);
    assert.equal(cancelBatchPenalty(fresh, 125), 125);
    assert.equal(cancelBatchPenalty(fresh, 500), 400);
  });

  void it('adds each cancelled order for cancel-all, uncapped', () => {
    const fresh = Array.from({ length: 50 }, () => 0);
    assert.equal(cancelAllPenalty(fresh), 400);
    assert.equal(cancelAllPenalty([0, 7_000, 400_000]), 14);
    assert.equal(cancelAllPenalty([]), 0);
  });
});

void describe('RatecountMeter', () => {
  const t0 = 1_700_000_000_000;

  void it('decays at the starter rate of 1/s and never goes below 0', () => {
    const m = new RatecountMeter('starter');
    m.add(60, t0);
    assert.equal(m.level(t0), 60);
    assert.equal(m.level(t0 + 10_000), 50);
    assert.equal(m.level(t0 + 59_500), 0.5);
    assert.equal(m.level(t0 + 60_000), 0);
    assert.equal(m.level(t0 + 600_000), 0);
  });

  void it('decays at 2.34/s (intermediate) and 3.75/s (pro)', () => {
    const im = new RatecountMeter('intermediate');
    im.add(125, t0);
    assert.ok(Math.abs(im.level(t0 + 1_000) - 122.66) < 1e-9);
    assert.ok(Math.abs(im.level(t0 + 10_000) - 101.6) < 1e-9);
    const pro = new RatecountMeter('pro');
    pro.add(180, t0);
    assert.equal(pro.level(t0 + 4_000), 165);
    assert.equal(pro.level(t0 + 48_000), 0);
  });

  void it('adds on top of the decayed level', () => {
    const m = new RatecountMeter('starter');
    m.add(10, t0);
    assert.equal(m.add(8, t0 + 4_000), 14);
    assert.deepEqual(m.state, { count: 14, atMs: t0 + 4_000 });
  });

  void it('does not credit decay for a time before the last update', () => {
    const m = new RatecountMeter('starter');
    m.add(10, t0);
    assert.equal(m.level(t0 - 5_000), 10);
    m.add(1, t0 - 5_000);
    assert.deepEqual(m.state, { count: 11, atMs: t0 });
  });

  void it('reports headroom, wouldExceed and the wait for points to fit', () => {
    const m = new RatecountMeter('pro');
    m.add(179, t0);
    assert.equal(m.headroom(t0), 1);
    assert.equal(m.wouldExceed(1, t0), false);
    assert.equal(m.wouldExceed(2, t0), true);
    assert.equal(m.waitMsFor(1, t0), 0);
    // 1 point more than fits at 3.75/s: ceil(1000 / 3.75) = 267 ms.
    assert.equal(m.waitMsFor(2, t0), 267);
    assert.equal(m.wouldExceed(2, t0 + 266), true);
    assert.equal(m.wouldExceed(2, t0 + 267), false);
    assert.equal(m.waitMsFor(181, t0), Infinity);
  });

  void it('waits on the intermediate rate until a cancel fits', () => {
    const m = new RatecountMeter('intermediate');
    m.add(125, t0);
    const wait = m.waitMsFor(8, t0);
    // 8 / 2.34 s = 3418.8 ms
    assert.equal(wait, 3_419);
    assert.equal(m.wouldExceed(8, t0 + wait), false);
    assert.equal(m.wouldExceed(8, t0 + wait - 1), true);
  });

  void it('goes negative on headroom after an accepted over-max batch cancel, then recovers', () => {
    const m = new RatecountMeter('starter');
    m.add(50, t0);
    m.add(
      cancelBatchPenalty(
        Array.from({ length: 20 }, () => 0),
        m.max,
      ),
      t0,
    );
    assert.equal(m.level(t0), 110);
    assert.equal(m.headroom(t0), -50);
    assert.equal(m.waitMsFor(1, t0), 51_000);
  });

  void it('round-trips its state through JSON, as the executor keeps it in Redis', () => {
    const m = new RatecountMeter('intermediate');
    m.add(30, t0);
    const stored = JSON.parse(JSON.stringify(m)) as RatecountState;
    assert.deepEqual(stored, { count: 30, atMs: t0 });
    const restored = new RatecountMeter('intermediate', stored);
    assert.equal(restored.level(t0 + 2_000), m.level(t0 + 2_000));
    assert.ok(Math.abs(restored.level(t0 + 2_000) - 25.32) < 1e-9);
  });

  void it('has pure state functions matching the meter', () => {
    const limits = MATCHING_ENGINE.starter;
    const s = ratecountAdd({ count: 0, atMs: 0 }, limits, 20, t0);
    assert.deepEqual(s, { count: 20, atMs: t0 });
    assert.equal(ratecountLevel(s, limits, t0 + 5_000), 15);
  });

  void it('fill assumes the ratecount is at least full', () => {
    const m = new RatecountMeter('starter');
    m.add(5, t0);
    m.fill(t0);
    assert.equal(m.level(t0), 60);
  });
});
