import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseWithSchema } from '../../src/core/index.js';
import {
  CatchUpBudget,
  catchUpPerSec,
  MarketConfig,
  planFromConfig,
  TradesCursor,
  type TradeRow,
} from '../../src/market/index.js';

const T0 = Date.parse('2026-03-02T09:00:00Z');
/** Trade `id` at `ms` after T0. */
const row = (id: number, ms: number): TradeRow => [
  '50000.0',
  '0.001',
  (T0 + ms) / 1000,
  'b',
  'l',
  '',
  id,
];
const rows = (from: number, to: number, ms: number): TradeRow[] =>
  Array.from({ length: to - from + 1 }, (_, i) => row(from + i, ms));
// Cursors are nanoseconds: more digits than a double holds.
const cursorAt = (id: number): string => `17724420000000000${String(id).padStart(2, '0')}`;

describe('TradesCursor', () => {
  it('asks for the newest trades first, then follows `last` as the exchange sent it', () => {
    const c = new TradesCursor(10, 15_000);
    assert.equal(c.since(T0), undefined);
    // Capped, but an answer without `since` holds the newest trades: nothing is waiting.
    assert.deepEqual(c.take(undefined, rows(1, 10, 0), cursorAt(10)), {
      more: false,
      gap: undefined,
    });
    assert.equal(c.since(T0 + 5_000), cursorAt(10));
    assert.equal(c.take(cursorAt(10), rows(11, 20, 4_000), cursorAt(20)).more, true);
    assert.equal(c.last, cursorAt(20));
    assert.equal(c.take(cursorAt(20), rows(21, 23, 4_000), cursorAt(23)).more, false);
    assert.equal(c.since(T0 + 10_000), cursorAt(23));
  });

  it('follows from an empty first answer, and keeps its cursor through an empty answer', () => {
    const c = new TradesCursor(10, 15_000);
    c.take(undefined, [], '0');
    assert.equal(c.since(T0), '0', 'a pair that has not traded: its first trades are followed');
    assert.equal(c.take('0', rows(1, 10, 0), cursorAt(10)).more, true);
    assert.deepEqual(c.take(cursorAt(10), [], '0'), { more: false, gap: undefined });
    assert.equal(c.since(T0 + 5_000), cursorAt(10));
  });

  it('behind for longer than the lag limit: jumps to the newest trades and reports the gap', () => {
    const c = new TradesCursor(10, 15_000);
    c.take(undefined, rows(1, 5, 0), cursorAt(5));
    assert.equal(c.take(cursorAt(5), rows(6, 15, 1_000), cursorAt(15)).more, true);
    // Still behind, but its newest trade is 15 s old, not more: it goes on from the cursor.
    assert.equal(c.since(T0 + 16_000), cursorAt(15));
    assert.equal(c.take(cursorAt(15), rows(16, 25, 1_000), cursorAt(25)).more, true);
    assert.equal(c.since(T0 + 16_001), undefined);
    const step = c.take(undefined, rows(91, 100, 16_000), cursorAt(99));
    assert.deepEqual(step, {
      more: false,
      gap: {
        afterId: 25,
        afterMs: T0 + 1_000,
        resumeId: 91,
        resumeMs: T0 + 16_000,
        missed: 65,
        callsShort: 7,
      },
    });
    assert.equal(c.since(T0 + 20_000), cursorAt(99));
  });

  it('a newest answer that reaches back to what it holds is no gap', () => {
    const c = new TradesCursor(10, 15_000);
    c.take(undefined, rows(1, 5, 0), cursorAt(5));
    c.take(cursorAt(5), rows(6, 15, 0), cursorAt(15));
    assert.equal(c.take(undefined, rows(12, 21, 20_000), cursorAt(21)).gap, undefined);
    assert.equal(c.take(undefined, rows(22, 31, 20_000), cursorAt(31)).gap, undefined);
  });
});

describe('CatchUpBudget', () => {
  const config = (calls: number, pairs: number) =>
    planFromConfig(
      parseWithSchema(MarketConfig, { public_budget: { calls_per_sec: calls } }, 'market'),
      'pro',
      ['XXBTZUSD', 'XETHZUSD'].slice(0, pairs),
    );

  it('shares what the plan leaves of the public budget among the Trades polls', () => {
    // One pair: Depth 1/s, GroupedBook, Trades and SystemStatus 0.2/s each, of 2 calls/s.
    assert.ok(Math.abs(catchUpPerSec(config(2, 1)) - 0.4) < 1e-9);
    // Two pairs: 2.8 + 0.2 planned of 4.
    assert.ok(Math.abs(catchUpPerSec(config(4, 2)) - 0.5) < 1e-9);
    // Stretched to fit: only the crumbs of intervals rounded up to whole ms are left.
    const stretched = catchUpPerSec(config(2, 2));
    assert.ok(stretched >= 0 && stretched < 0.001, `${stretched}`);
  });

  it('starts empty, accrues at its rate and holds one interval of it', () => {
    const poll = config(2, 1).polls.find((p) => p.source === 'trades');
    assert.ok(poll);
    const b = new CatchUpBudget(0.4, poll, T0);
    assert.equal(b.take(T0), false);
    assert.equal(b.take(T0 + 2_400), false);
    assert.equal(b.take(T0 + 2_600), true);
    assert.equal(b.take(T0 + 2_600), false);
    // A minute idle fills it to one 5 s interval's share: 2 calls, not 24.
    const taken = [1, 2, 3].filter(() => b.take(T0 + 62_600)).length;
    assert.equal(taken, 2);
  });
});
