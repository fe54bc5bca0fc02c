import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { dec } from '../../src/core/index.js';
import { ReportFills } from '../../src/lab/backtest-report.js';
import type { FillRecord } from '../../src/pnl/index.js';

function fill(i: number): FillRecord {
  return {
    atMs: i * 1_000,
    side: i % 3 === 0 ? 'buy' : 'sell',
    price: dec('100.5'),
    volume: dec('0.01'),
    fee: dec('0.001'),
    id: String(i),
    mid: dec('100.4'),
    spread: dec('0.001'),
    markouts: [],
  };
}

void describe('the report keeps a bounded, even sample of fills', () => {
  it('keeps every fill while they fit, with exact strings', () => {
    const fills = new ReportFills(8);
    for (let i = 0; i < 8; i++) fills.add(fill(i));
    assert.equal(fills.count, 8);
    assert.deepEqual(
      fills.kept().map((f) => f.tMs),
      [0, 1, 2, 3, 4, 5, 6, 7].map((i) => i * 1_000),
    );
    assert.deepEqual(fills.kept()[0], {
      tMs: 0,
      side: 'buy',
      price: '100.5',
      volume: '0.01',
      fee: '0.001',
    });
  });

  it('past the bound, keeps every 2nd, then every 4th... from first to last, and counts all', () => {
    const fills = new ReportFills(8);
    for (let i = 0; i < 30; i++) fills.add(fill(i));
    assert.equal(fills.count, 30);
    assert.equal(fills.buys, 10, 'every third of 30 is a buy');
    assert.deepEqual(
      fills.kept().map((f) => f.tMs / 1_000),
      [0, 4, 8, 12, 16, 20, 24, 28],
    );
    for (let i = 30; i < 10_000; i++) fills.add(fill(i));
    assert.ok(fills.kept().length <= 8, `${fills.kept().length} kept of 10,000`);
    assert.ok(fills.kept().length >= 4);
  });
});
