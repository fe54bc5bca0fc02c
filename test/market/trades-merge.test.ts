import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mergeTrades, type TradeRow } from '../../src/market/index.js';

describe('trades merging', () => {
  const row = (id: number, time: number): TradeRow => ['1', '1', time, 'b', 'l', '', id];
  it('dedupes by trade id, keeps time order and the newest rows', () => {
    const merged = mergeTrades([row(1, 1), row(2, 2)], [row(2, 2), row(3, 3), row(4, 4)], 3);
    assert.deepEqual(
      merged.map((r) => r[6]),
      [2, 3, 4],
    );
  });
});
