/**
 * The hour chart's data on the page: the history, then a point and the newest fills each second;
 * it must hold exactly the last hour, each fill once, however long the page stays open.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PairSeries, WINDOW_MS } from '../../console/series.js';
import type { ConsoleFill } from '../../src/console/state.js';

const T0 = Date.UTC(2026, 10, 27, 14, 0, 0);
const fill = (id: string, tMs: number): ConsoleFill => ({
  id,
  tMs,
  side: 'buy',
  price: '100.5',
  volume: '1',
});

test('points join the hour in time order; a repeat or an older point is dropped', () => {
  const s = new PairSeries();
  s.reset([{ tMs: T0, mid: 100, bid: 99, ask: 101 }], []);
  s.addPoint({ tMs: T0 + 1000, mid: 100.5 });
  s.addPoint({ tMs: T0 + 1000, mid: 999 });
  s.addPoint({ tMs: T0 + 500, mid: 999 });
  assert.deepEqual(s.t, [T0 / 1000, T0 / 1000 + 1]);
  assert.deepEqual(s.mid, [100, 100.5]);
  assert.deepEqual(s.bid, [99, null], 'no quote: a gap in the line');
  assert.deepEqual(s.ask, [101, null]);
});

test('a page left open for two hours keeps only the last hour of points and fills', () => {
  const s = new PairSeries();
  s.reset([], [fill('old', T0)]);
  for (let i = 0; i <= 7200; i++) {
    s.addPoint({ tMs: T0 + i * 1000, mid: i });
    if (i % 600 === 0) s.addFills([fill(`f${i}`, T0 + i * 1000)]);
  }
  assert.equal(s.t.length, WINDOW_MS / 1000 + 1);
  assert.equal(s.t[0], (T0 + 3600 * 1000) / 1000);
  assert.equal(s.mid.length, s.t.length);
  assert.deepEqual(
    s.fills().map((f) => f.id),
    ['f3600', 'f4200', 'f4800', 'f5400', 'f6000', 'f6600', 'f7200'],
  );
});

test('each state resends the newest fills: each is kept once, oldest first', () => {
  const s = new PairSeries();
  s.reset([{ tMs: T0, mid: 1 }], [fill('a', T0 - 2000)]);
  s.addFills([fill('b', T0 - 1000), fill('a', T0 - 2000)]);
  s.addFills([fill('c', T0), fill('b', T0 - 1000)]);
  assert.deepEqual(
    s.fills().map((f) => f.id),
    ['a', 'b', 'c'],
  );
  s.reset([{ tMs: T0, mid: 1 }], [fill('z', T0)]);
  assert.deepEqual(
    s.fills().map((f) => f.id),
    ['z'],
    'a new history replaces the old one',
  );
});
