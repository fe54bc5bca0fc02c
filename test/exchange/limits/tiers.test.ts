import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { MakerdError } from '../../../src/core/index.js';
import {
  MATCHING_ENGINE,
  OTHER_LIMITS,
  PENALTY_PER_ORDER,
  REST_CALL_COST,
  REST_COUNTER,
  parseTier,
} from '../../../src/exchange/limits/index.js';

void describe('tier tables', () => {
  void it('hold the spec REST counter numbers', () => {
    assert.deepEqual(REST_COUNTER, {
      starter: { max: 15, decayPerSec: 0.33 },
      intermediate: { max: 20, decayPerSec: 0.5 },
      pro: { max: 20, decayPerSec: 1 },
    });
    assert.deepEqual(REST_CALL_COST, { standard: 1, ledgerOrTradeHistory: 2, orderEntry: 0 });
  });

  void it('hold the spec matching-engine numbers', () => {
    assert.deepEqual(MATCHING_ENGINE, {
      starter: { maxOpenOrders: 60, max: 60, decayPerSec: 1 },
      intermediate: { maxOpenOrders: 80, max: 125, decayPerSec: 2.34 },
      pro: { maxOpenOrders: 225, max: 180, decayPerSec: 3.75 },
    });
  });

  void it('hold the spec penalty rows (per order)', () => {
    assert.deepEqual(PENALTY_PER_ORDER.EditOrder, [6, 5, 4, 2, 1, 0, 0]);
    assert.deepEqual(PENALTY_PER_ORDER.CancelOrder, [8, 6, 5, 4, 2, 1, 0]);
    assert.deepEqual(PENALTY_PER_ORDER.CancelOrderBatch, [8, 6, 5, 4, 2, 1, 0]);
    assert.deepEqual(PENALTY_PER_ORDER.AddOrder, [1, 1, 1, 1, 1, 1, 1]);
  });

  void it('hold the other constants', () => {
    assert.equal(OTHER_LIMITS.addOrderBatchMaxOrders, 15);
    assert.equal(OTHER_LIMITS.cancelOrderBatchMaxIds, 50);
    assert.equal(OTHER_LIMITS.deadlineMinMs, 2_000);
    assert.equal(OTHER_LIMITS.deadlineMaxMs, 60_000);
    assert.equal(OTHER_LIMITS.expiretmRelativeMinSec, 5);
    assert.equal(OTHER_LIMITS.cancelAllOrdersAfterTimeoutBelowSec, 86_400);
    assert.equal(OTHER_LIMITS.ohlcMaxRows, 720);
    assert.deepEqual(OTHER_LIMITS.depthCount, { min: 1, max: 500, default: 100 });
    assert.deepEqual(OTHER_LIMITS.tradesCount, { min: 1, max: 1000, default: 1000 });
    assert.equal(OTHER_LIMITS.closedOrdersPageSize, 50);
    assert.equal(OTHER_LIMITS.wsTokenUseWindowSec, 900);
  });
});

void describe('parseTier', () => {
  for (const [input, expected] of [
    ['starter', 'starter'],
    ['Intermediate', 'intermediate'],
    ['PRO', 'pro'],
    [' Pro ', 'pro'],
  ] as const) {
    void it(`accepts ${JSON.stringify(input)}`, () => {
      assert.equal(parseTier(input), expected);
    });
  }

  for (const input of ['gold', '', 'pro+', 'start']) {
    void it(`rejects ${JSON.stringify(input)} naming the field and the allowed values`, () => {
      assert.throws(
        () => parseTier(input),
        (err: unknown) =>
          err instanceof MakerdError &&
          err.code === 'INVALID_INPUT' &&
          err.message.startsWith('tier:') &&
          err.message.includes('starter, intermediate, pro'),
      );
    });
  }
});
