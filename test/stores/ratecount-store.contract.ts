import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { MATCHING_ENGINE, type MatchingEngineLimits } from '../../src/exchange/limits/index.js';
import type { RatecountStore } from '../../src/executor/index.js';

const PAIR = 'XXBTZUSD';
const ETH = 'XETHZUSD';
/** starter: max 60, 1 point a second. */
const LIMITS = MATCHING_ENGINE.starter;
export const T0 = 1_800_000_000_000;

export interface RatecountFixture {
  /** A store on this fixture's state: two of them are two processes on one key. */
  store(limits: MatchingEngineLimits): RatecountStore;
  close(): Promise<void>;
}

/**
 * RatecountStore's contract (src/executor/ratecount-store.ts). Times are the callers' (nowMs), so
 * the same numbers hold for both stores; levels are compared exactly.
 */
export function ratecountContract(name: string, make: () => Promise<RatecountFixture>): void {
  void describe(`RatecountStore contract: ${name}`, () => {
    let fx: RatecountFixture;
    let s: RatecountStore;
    beforeEach(async () => {
      fx = await make();
      s = fx.store(LIMITS);
    });
    afterEach(() => fx.close());

    void it('starts at 0 and keeps pairs apart', async () => {
      assert.deepEqual(await s.level(PAIR, T0), { ok: true, level: 0, waitMs: 0 });
      await s.add(PAIR, 30, T0);
      assert.equal((await s.level(ETH, T0)).level, 0);
      assert.equal(s.limits, LIMITS);
    });

    void it('reserves within the limit, and says how long a refused reserve must wait', async () => {
      assert.deepEqual(await s.reserve(PAIR, 50, 58, T0), { ok: true, level: 50, waitMs: 0 });
      // 50 + 10 > 58: two points must decay first, two seconds on starter.
      assert.deepEqual(await s.reserve(PAIR, 10, 58, T0), { ok: false, level: 50, waitMs: 2_000 });
      assert.deepEqual(await s.reserve(PAIR, 10, 58, T0 + 1_999), {
        ok: false,
        level: 48.001,
        waitMs: 1,
      });
      assert.deepEqual(await s.reserve(PAIR, 10, 58, T0 + 2_000), {
        ok: true,
        level: 58,
        waitMs: 0,
      });
    });

    void it('decays by the tier rate when read; a read back in time undoes nothing', async () => {
      await s.add(PAIR, 20, T0);
      assert.equal((await s.level(PAIR, T0 + 5_500)).level, 14.5);
      assert.equal((await s.level(PAIR, T0 + 60_000)).level, 0);
      assert.equal((await s.level(PAIR, T0)).level, 20);
      // A write at an earlier time than the last one stores the later time: no decay counted twice.
      await s.add(PAIR, 5, T0 + 10_000);
      await s.add(PAIR, 1, T0 + 4_000);
      assert.equal((await s.level(PAIR, T0 + 10_000)).level, 16);
    });

    void it('adds whatever the level, fills to the max, and gives points back', async () => {
      await s.add(PAIR, 55, T0);
      assert.equal((await s.add(PAIR, 10, T0)).level, 65, 'a batch cancel over the max counts');
      assert.equal((await s.refund(PAIR, 10, T0)).level, 55);
      assert.equal((await s.fill(PAIR, T0)).level, LIMITS.max);
      assert.equal((await s.add(PAIR, 10, T0)).level, 70);
      assert.equal((await s.fill(PAIR, T0)).level, 70, 'fill never lowers the level');
      assert.equal((await s.refund(PAIR, 100, T0)).level, 0, 'never below zero');
    });

    void it('keeps fractional levels to six decimals, identically at every step', async () => {
      // intermediate: 2.34 points a second, max 125.
      const x = fx.store(MATCHING_ENGINE.intermediate);
      const levels = [
        ['add 7.5', await x.add(PAIR, 7.5, T0)],
        ['read +333', await x.level(PAIR, T0 + 333)],
        ['reserve 1.5 +1001', await x.reserve(PAIR, 1.5, 123, T0 + 1_001)],
        ['refund 0.5 +1002', await x.refund(PAIR, 0.5, T0 + 1_002)],
        ['reserve 120 +1003', await x.reserve(PAIR, 120, 123, T0 + 1_003)],
        ['read +2777', await x.level(PAIR, T0 + 2_777)],
      ];
      assert.deepEqual(levels, [
        ['add 7.5', { ok: true, level: 7.5, waitMs: 0 }],
        ['read +333', { ok: true, level: 6.72078, waitMs: 0 }],
        ['reserve 1.5 +1001', { ok: true, level: 6.65766, waitMs: 0 }],
        ['refund 0.5 +1002', { ok: true, level: 6.15532, waitMs: 0 }],
        ['reserve 120 +1003', { ok: false, level: 6.15298, waitMs: 1_348 }],
        ['read +2777', { ok: true, level: 2.00182, waitMs: 0 }],
      ]);
    });

    void it('is shared by the stores of one state: a reserve sees what another added', async () => {
      const other = fx.store(LIMITS);
      await other.add(PAIR, 57, T0);
      const refused = await s.reserve(PAIR, 2, 58, T0);
      assert.equal(refused.ok, false);
      assert.equal(refused.waitMs, 1_000);
    });
  });
}
