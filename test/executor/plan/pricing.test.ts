import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { OrderIntent } from '../../../src/core/index.js';
import {
  addCost,
  addGroupCost,
  amendOptions,
  cancelCost,
  cancelGroupCost,
  compareDistance,
  distance,
  editCost,
  groupAdds,
  preferEdit,
  type BatchRules,
} from '../../../src/executor/plan/index.js';
import type { TrackedOrder } from '../../../src/orders/types.js';
import { NOW, restingOrder } from './fixtures.js';

const RULES: BatchRules = { addMin: 2, addMax: 15, cancelMax: 50 };

function order(ageMs: number, over: Partial<TrackedOrder> = {}): TrackedOrder {
  return restingOrder('bid:0', ageMs, { txid: 'T1', deadlineMs: NOW, ...over });
}

function intent(price: string, volume: string, side: 'buy' | 'sell' = 'buy'): OrderIntent {
  return {
    instance: 1,
    pair: 'XXBTZUSD',
    slot: 'bid:0',
    generation: 2,
    action: 'amend',
    desired: { side, price, volume, postOnly: true },
    target: undefined,
    reason: 'moved',
    createdAtMs: NOW,
    deadlineMs: NOW + 5_000,
    snapshotSeq: 1,
    snapshotAtMs: NOW,
  };
}

void describe('pricing: per-order costs by age', () => {
  for (const [ageMs, edit, cancel] of [
    [0, 6, 8],
    [4_999, 6, 8],
    [5_000, 5, 6],
    [14_999, 4, 5],
    [44_999, 2, 4],
    [89_999, 1, 2],
    [299_999, 0, 1],
    [300_000, 0, 0],
    // An order "opened" in the future (clock skew) prices as brand new, never as free.
    [-1_000, 6, 8],
  ] as const) {
    void it(`${ageMs} ms old: edit ${edit}, cancel ${cancel}`, () => {
      assert.equal(editCost(order(ageMs), NOW), edit);
      assert.equal(cancelCost(order(ageMs), NOW), cancel);
      assert.deepEqual(amendOptions(order(ageMs), NOW, false), { edit, cancelAdd: cancel + 1 });
      assert.deepEqual(amendOptions(order(ageMs), NOW, true), { edit, cancelAdd: cancel + 0.5 });
    });
  }

  void it('an add costs 1 alone, 0.5 in a batch', () => {
    assert.equal(addCost(false), 1);
    assert.equal(addCost(true), 0.5);
  });

  void it('a tie prefers EditOrder', () => {
    assert.equal(preferEdit({ edit: 1, cancelAdd: 1 }), true);
    assert.equal(preferEdit({ edit: 1, cancelAdd: 0.5 }), false);
    assert.equal(preferEdit({ edit: 0, cancelAdd: 0.5 }), true);
  });
});

void describe('pricing: groups', () => {
  for (const [n, rules, groups, cost] of [
    [0, RULES, [], 0],
    [1, RULES, [{ batch: false, size: 1 }], 1],
    [2, RULES, [{ batch: true, size: 2 }], 1],
    [15, RULES, [{ batch: true, size: 15 }], 7.5],
    [
      16,
      RULES,
      [
        { batch: true, size: 8 },
        { batch: true, size: 8 },
      ],
      8,
    ],
    [1, { ...RULES, addMin: 1 }, [{ batch: true, size: 1 }], 0.5],
    [4, { ...RULES, addMin: 5 }, [{ batch: false, size: 4 }], 4],
  ] as const) {
    void it(`${n} adds (addMin ${rules.addMin}) cost ${cost}`, () => {
      assert.deepEqual(groupAdds(n, rules), groups);
      assert.equal(addGroupCost(n, rules), cost);
    });
  }

  void it('cancels cost the sum of their penalties, capped at max per batch', () => {
    assert.equal(cancelGroupCost([], RULES, 60), 0);
    assert.equal(cancelGroupCost([1_000, 60_000, 400_000], RULES, 60), 10);
    assert.equal(cancelGroupCost(Array<number>(10).fill(1_000), RULES, 60), 60);
    // Two batches of 5 (8 × 5 = 40 each), each under the cap.
    assert.equal(
      cancelGroupCost(Array<number>(10).fill(1_000), { ...RULES, cancelMax: 5 }, 60),
      80,
    );
  });
});

void describe('pricing: distance', () => {
  void it('is infinite for an empty slot or an order on the other side', () => {
    const d = distance({ intent: intent('100', '2'), live: undefined });
    assert.equal(d.price, Infinity);
    assert.equal(d.volume, 2);
    const wrongSide = distance({ intent: intent('100', '2', 'sell'), live: order(0) });
    assert.equal(wrongSide.price, Infinity);
  });

  void it('is the relative price gap, then the remaining-volume gap', () => {
    const live = order(0, { price: '99', volume: '3', volumeExecuted: '1' });
    const d = distance({ intent: intent('100', '0.5'), live });
    assert.equal(d.price, 0.01);
    assert.equal(d.volume, 1.5);
  });

  void it('orders the farthest first', () => {
    const far = distance({ intent: intent('100', '1'), live: order(0, { price: '90' }) });
    const near = distance({ intent: intent('100', '1'), live: order(0, { price: '99' }) });
    const empty = distance({ intent: intent('100', '1'), live: undefined });
    assert.ok(compareDistance(far, near) < 0);
    assert.ok(compareDistance(empty, far) < 0);
    assert.equal(compareDistance(empty, empty), 0);
  });
});
