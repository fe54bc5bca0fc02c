import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { DesiredOrder, OrderIntent, TradingMode } from '../../../src/core/index.js';
import { MATCHING_ENGINE, msUntilFits } from '../../../src/exchange/limits/index.js';
import {
  planCalls,
  type AddItem,
  type Plan,
  type PlanInput,
  type PlannedCall,
  type SlotWork,
} from '../../../src/executor/plan/index.js';
import type { TrackedOrder } from '../../../src/orders/types.js';
import { NOW, restingOrder } from './fixtures.js';

const STARTER = MATCHING_ENGINE.starter;

const order = restingOrder;

function intent(
  action: OrderIntent['action'],
  slot: string,
  desired: Partial<DesiredOrder> | undefined = {},
): OrderIntent {
  return {
    instance: 1,
    pair: 'XXBTZUSD',
    slot,
    generation: 2,
    action,
    desired:
      action === 'cancel' || desired === undefined
        ? undefined
        : {
            side: slot.startsWith('ask') ? 'sell' : 'buy',
            price: '100',
            volume: '1',
            postOnly: true,
            ...desired,
          },
    target: undefined,
    reason: 'test',
    createdAtMs: NOW,
    deadlineMs: NOW + 10_000,
    snapshotSeq: 1,
    snapshotAtMs: NOW,
  };
}

const place = (slot: string, desired: Partial<DesiredOrder> = {}): SlotWork => ({
  intent: intent('place', slot, desired),
  live: undefined,
});
const amend = (live: TrackedOrder, desired: Partial<DesiredOrder> = {}): SlotWork => ({
  intent: intent('amend', live.slot, desired),
  live,
});
const cancel = (live: TrackedOrder | undefined, slot = live?.slot ?? 'bid:0'): SlotWork => ({
  intent: intent('cancel', slot),
  live,
});

function plan(work: readonly SlotWork[], over: Partial<PlanInput> = {}): Plan {
  return planCalls({
    nowMs: NOW,
    limits: STARTER,
    level: 0,
    headroom: 0,
    openOrders: 0,
    mode: 'online',
    batch: { addMin: 2, addMax: 15, cancelMax: 50 },
    work,
    ...over,
  });
}

/** One line per call: kind, slots (with purpose / replacing / edit volume), cost. */
function describeCall(call: PlannedCall): string {
  switch (call.kind) {
    case 'CancelOrder':
      return `CancelOrder ${call.item.order.slot}/${call.item.purpose} ${call.cost}`;
    case 'CancelOrderBatch':
      return `CancelOrderBatch [${call.items.map((i) => `${i.order.slot}/${i.purpose}`).join(' ')}] ${call.cost}`;
    case 'EditOrder':
      return `EditOrder ${call.item.order.slot} ${call.item.price}x${call.item.volume} ${call.cost}`;
    case 'AddOrder':
      return `AddOrder ${addText(call.item)} ${call.cost}`;
    case 'AddOrderBatch':
      return `AddOrderBatch [${call.items.map(addText).join(' ')}] ${call.cost}`;
  }
}

function addText(item: AddItem): string {
  return `${item.intent.slot} ${item.price}x${item.volume}${item.replacing ? ` replacing ${item.replacing.txid}` : ''}`;
}

const calls = (p: Plan): string[] => p.calls.map(describeCall);
const deferred = (p: Plan): string[] => p.deferred.map((d) => `${d.intent.slot} ${d.reason}`);
const dropped = (p: Plan): string[] => p.dropped.map((d) => `${d.intent.slot} ${d.reason}`);

function assertCostIsSum(p: Plan): void {
  assert.equal(
    p.cost,
    p.calls.reduce((s, c) => s + c.cost, 0),
  );
}

void describe('planCalls: placements', () => {
  void it('a fresh place is one AddOrder costing 1', () => {
    const p = plan([place('bid:0', { price: '99.5', volume: '0.25' })]);
    assert.deepEqual(calls(p), ['AddOrder bid:0 99.5x0.25 1']);
    const [call] = p.calls;
    assert.ok(call?.kind === 'AddOrder');
    assert.equal(call.item.side, 'buy');
    assert.equal(call.item.postOnly, true);
    assert.equal(call.item.replacing, undefined);
    assert.equal(p.cost, 1);
    assert.equal(p.retryInMs, undefined);
    assert.deepEqual([p.deferred, p.dropped], [[], []]);
  });

  void it('three places are one AddOrderBatch costing 1.5, in slot order', () => {
    const p = plan([place('bid:2'), place('bid:0'), place('ask:0', { price: '101' })]);
    assert.deepEqual(calls(p), ['AddOrderBatch [ask:0 101x1 bid:0 100x1 bid:2 100x1] 1.5']);
    assert.equal(p.cost, 1.5);
  });

  // Batches are balanced so that no leftover falls under addMin: 16 → 8 + 8 (8 points), where
  // 15 + 1 would cost 7.5 + 1.
  const slots = (n: number): SlotWork[] =>
    Array.from({ length: n }, (_, i) => place(`bid:${String(i).padStart(2, '0')}`));
  const shapes = (p: Plan): string[] =>
    p.calls.map((c) => `${c.kind}:${'items' in c ? c.items.length : 1}:${c.cost}`);
  for (const [n, addMin, expected, cost] of [
    [16, 2, ['AddOrderBatch:8:4', 'AddOrderBatch:8:4'], 8],
    [15, 2, ['AddOrderBatch:15:7.5'], 7.5],
    [31, 2, ['AddOrderBatch:11:5.5', 'AddOrderBatch:10:5', 'AddOrderBatch:10:5'], 15.5],
    [2, 2, ['AddOrderBatch:2:1'], 1],
    [1, 1, ['AddOrderBatch:1:0.5'], 0.5],
    [2, 3, ['AddOrder:1:1', 'AddOrder:1:1'], 2],
    // addMin above the balanced size: both groups go as single AddOrders.
    [16, 9, Array<string>(16).fill('AddOrder:1:1'), 16],
  ] as const) {
    void it(`${n} places with addMin ${addMin}: ${expected.length} call(s), cost ${cost}`, () => {
      const p = plan(slots(n), { batch: { addMin, addMax: 15, cancelMax: 50 } });
      assert.deepEqual(shapes(p), expected);
      assert.equal(p.cost, cost);
      const sent = p.calls.flatMap((c): readonly AddItem[] =>
        c.kind === 'AddOrderBatch' ? c.items : c.kind === 'AddOrder' ? [c.item] : [],
      );
      assert.deepEqual(
        sent.map((i) => i.intent.slot),
        slots(n).map((w) => w.intent.slot),
      );
    });
  }
});

void describe('planCalls: amends', () => {
  // The spec's EditOrder row over the age columns <5s <10s <15s <45s <90s <300s >=300s.
  for (const [ageMs, cost] of [
    [2_000, 6],
    [7_000, 5],
    [12_000, 4],
    [30_000, 2],
    [60_000, 1],
    [120_000, 0],
    [400_000, 0],
  ] as const) {
    void it(`an amend of a ${ageMs / 1000} s old order is an EditOrder costing ${cost}`, () => {
      const live = order('bid:0', ageMs, { volume: '2', volumeExecuted: '0.5' });
      const p = plan([amend(live, { price: '99', volume: '1.25' })]);
      // EditOrder takes the total volume: 0.5 executed + 1.25 still to fill.
      assert.deepEqual(calls(p), [`EditOrder bid:0 99x1.75 ${cost}`]);
      const [call] = p.calls;
      assert.ok(call?.kind === 'EditOrder');
      assert.equal(call.item.order, live);
      assert.equal(call.item.postOnly, true);
      assert.equal(p.cost, cost);
    });
  }

  void it('a place on a slot that holds an order amends it', () => {
    const live = order('ask:1', 400_000, { price: '101' });
    const p = plan([{ intent: intent('place', 'ask:1', { price: '102' }), live }]);
    assert.deepEqual(calls(p), ['EditOrder ask:1 102x1 0']);
  });

  void it('an order on the wrong side is replaced: cancel first, then the add that replaces it', () => {
    const live = order('bid:0', 2_000, { side: 'sell' });
    const p = plan([{ intent: intent('place', 'bid:0', { price: '99' }), live }, place('bid:1')]);
    assert.deepEqual(calls(p), [
      'CancelOrder bid:0/replace 8',
      'AddOrderBatch [bid:0 99x1 replacing T-bid:0 bid:1 100x1] 1',
    ]);
    assert.equal(p.cost, 9);
  });

  void it('an amend the edit cannot fit but cancel + add can, thanks to the batch cap, is replaced', () => {
    // Mechanism test (a negative headroom is not a real configuration): 10 new orders' cancels
    // sum to 80, capped at 60, so one more cancel is free and the replacement add joins a batch.
    const cancels = Array.from({ length: 10 }, (_, i) => cancel(order(`ask:${i}`, 1_000)));
    const live = order('bid:0', 2_000, { price: '90' });
    const p = plan([...cancels, amend(live), place('bid:1'), place('bid:2')], { headroom: -10 });
    assert.deepEqual(calls(p), [
      `CancelOrderBatch [${cancels.map((w) => `${w.intent.slot}/cancel`).join(' ')} bid:0/replace] 60`,
      'AddOrderBatch [bid:1 100x1 bid:2 100x1 bid:0 100x1 replacing T-bid:0] 1.5',
    ]);
    assert.equal(p.cost, 61.5);
  });
});

void describe('planCalls: cancels', () => {
  void it('a lone cancel that fits is a CancelOrder', () => {
    const p = plan([cancel(order('bid:0', 2_000))]);
    assert.deepEqual(calls(p), ['CancelOrder bid:0/cancel 8']);
  });

  void it('several cancels are one CancelOrderBatch costing the sum of their penalties', () => {
    const p = plan([
      cancel(order('bid:0', 2_000)),
      cancel(order('bid:1', 60_000)),
      cancel(order('ask:0', 400_000)),
    ]);
    assert.deepEqual(calls(p), ['CancelOrderBatch [ask:0/cancel bid:0/cancel bid:1/cancel] 10']);
  });

  void it('cancels over the budget still go, as a batch capped at max; the rest waits', () => {
    const work = Array.from({ length: 10 }, (_, i) => cancel(order(`bid:${i}`, 1_000)));
    const live = order('ask:0', 2_000, { price: '101' });
    const p = plan([...work, amend(live, { price: '102' })], { level: 30 });
    // 10 × 8 = 80, capped at the starter max 60, and sent although only 30 points are free.
    assert.deepEqual(calls(p), [
      `CancelOrderBatch [${work.map((w) => `${w.intent.slot}/cancel`).join(' ')}] 60`,
    ]);
    assert.equal(p.cost, 60);
    assert.deepEqual(deferred(p), ['ask:0 budget']);
    // From level 90, the EditOrder's 6 points fit under 60 after 36 s at 1 point/s. (In this plan
    // cancel + add would cost 1, the cancel riding the capped batch free; retried, it cannot.)
    assert.equal(p.retryInMs, 36_000);
  });

  void it('a lone cancel over the budget goes as a CancelOrderBatch of one', () => {
    const p = plan([cancel(order('bid:0', 2_000))], { level: 55 });
    assert.deepEqual(calls(p), ['CancelOrderBatch [bid:0/cancel] 8']);
    assert.equal(p.cost, 8);
    assert.equal(p.retryInMs, undefined);
  });

  void it('a free cancel over max goes as a batch too: the venue refuses CancelOrder over max', () => {
    const p = plan([cancel(order('bid:0', 400_000))], { level: 61 });
    assert.deepEqual(calls(p), ['CancelOrderBatch [bid:0/cancel] 0']);
  });

  void it('more cancels than cancelMax are split, each batch capped on its own', () => {
    const work = Array.from({ length: 7 }, (_, i) => cancel(order(`bid:${i}`, 1_000)));
    const p = plan(work, {
      limits: MATCHING_ENGINE.pro,
      batch: { addMin: 2, addMax: 15, cancelMax: 3 },
    });
    assert.deepEqual(
      p.calls.map((c) => `${c.kind}:${'items' in c ? c.items.length : 1}:${c.cost}`),
      ['CancelOrderBatch:3:24', 'CancelOrderBatch:3:24', 'CancelOrderBatch:1:8'],
    );
  });
});

void describe('planCalls: drops', () => {
  const busy: [string, Partial<TrackedOrder>][] = [
    ['an edit in flight', { pendingCall: 'edit' }],
    ['a cancel in flight', { pendingCall: 'cancel' }],
    ['state unknown', { state: 'unknown', pendingCall: 'add' }],
    ['state pending-new', { state: 'pending-new' }],
    ['state filled', { state: 'filled' }],
  ];
  for (const [what, over] of busy) {
    void it(`busy: nothing touches an order with ${what}`, () => {
      const p = plan([
        amend(order('bid:0', 2_000, over), { price: '99' }),
        cancel(order('bid:1', 2_000, over)),
        { intent: intent('place', 'bid:2'), live: order('bid:2', 2_000, { ...over, price: '98' }) },
      ]);
      assert.deepEqual(calls(p), []);
      assert.deepEqual(dropped(p), ['bid:0 busy', 'bid:1 busy', 'bid:2 busy']);
    });
  }

  void it('gone: a cancel of a slot that holds nothing is dropped', () => {
    const p = plan([cancel(undefined, 'bid:0')]);
    assert.deepEqual(calls(p), []);
    assert.deepEqual(dropped(p), ['bid:0 gone']);
    assert.equal(p.cost, 0);
  });

  void it('an amend of a slot whose order vanished (filled) is placed', () => {
    const p = plan([{ intent: intent('amend', 'bid:1', { price: '99' }), live: undefined }]);
    assert.deepEqual(dropped(p), []);
    assert.deepEqual(calls(p), ['AddOrder bid:1 99x1 1']);
  });

  void it('unchanged: the order already has the price, remaining volume and flags (as decimals)', () => {
    const live = order('bid:0', 2_000, { price: '100.50', volume: '2', volumeExecuted: '0.75' });
    const p = plan([
      amend(live, { price: '100.5', volume: '1.250' }),
      { intent: intent('place', 'bid:1', { price: '100' }), live: order('bid:1', 2_000) },
      // Not unchanged: the flag differs, or the remaining volume does.
      amend(order('bid:2', 2_000), { postOnly: false }),
      amend(order('bid:3', 400_000, { volumeExecuted: '0.5' }), { volume: '1' }),
    ]);
    assert.deepEqual(dropped(p), ['bid:0 unchanged', 'bid:1 unchanged']);
    // bid:3 first: same price distance (0), larger remaining-volume difference.
    assert.deepEqual(calls(p), ['EditOrder bid:3 100x1.5 0', 'EditOrder bid:2 100x1 6']);
  });

  for (const mode of ['cancel_only', 'maintenance', 'halted'] as const satisfies TradingMode[]) {
    void it(`${mode}: places and amends are dropped for the mode, cancels still go`, () => {
      const p = plan(
        [
          place('bid:0'),
          amend(order('bid:1', 2_000), { price: '99' }),
          cancel(order('ask:0', 2_000)),
        ],
        { mode },
      );
      assert.deepEqual(calls(p), ['CancelOrder ask:0/cancel 8']);
      assert.deepEqual(dropped(p), ['bid:0 mode', 'bid:1 mode']);
      assert.deepEqual(p.deferred, []);
    });
  }

  void it('post_only allows everything', () => {
    const p = plan([place('bid:0')], { mode: 'post_only' });
    assert.deepEqual(calls(p), ['AddOrder bid:0 100x1 1']);
  });
});

void describe('planCalls: budget and priority', () => {
  void it('starter at 58 of 60: the 6-point edit waits exactly 4000 ms', () => {
    const p = plan([amend(order('bid:0', 2_000), { price: '99' })], { level: 58 });
    assert.deepEqual(calls(p), []);
    assert.deepEqual(deferred(p), ['bid:0 budget']);
    assert.equal(p.cost, 0);
    assert.equal(p.retryInMs, 4_000);
  });

  void it('the farthest slot gets the budget; the first that does not fit stops the rest', () => {
    const p = plan(
      [
        amend(order('bid:0', 2_000), { price: '99.9' }), // 0.1 %
        amend(order('bid:1', 2_000), { price: '95' }), // 5.3 %
        amend(order('bid:2', 400_000), { price: '99.99' }), // free, but nearest: waits its turn
        amend(order('ask:0', 2_000), { price: '98' }), // 2 %
      ],
      { level: 50 },
    );
    assert.deepEqual(calls(p), ['EditOrder bid:1 95x1 6']);
    assert.deepEqual(deferred(p), ['ask:0 budget', 'bid:0 budget', 'bid:2 budget']);
    // ask:0 needs 6 points on top of 56.
    assert.equal(p.retryInMs, msUntilFits(56, 1, 6, 60));
    assert.equal(p.retryInMs, 2_000);
  });

  void it('placements (no order on the slot) come before amends', () => {
    const p = plan([amend(order('bid:0', 2_000), { price: '50' }), place('bid:1')], { level: 59 });
    assert.deepEqual(calls(p), ['AddOrder bid:1 100x1 1']);
    assert.deepEqual(deferred(p), ['bid:0 budget']);
    assert.equal(p.retryInMs, 6_000);
  });

  void it('adds are priced 0.5 once they batch: one point buys two adds', () => {
    const p = plan([place('bid:0'), place('bid:1'), place('bid:2')], { level: 59 });
    assert.deepEqual(calls(p), ['AddOrderBatch [bid:0 100x1 bid:1 100x1] 1']);
    assert.deepEqual(deferred(p), ['bid:2 budget']);
    // Retried alone the third add is an AddOrder (1 point, not 0.5): it fits at level 59, 1 s on.
    assert.equal(p.retryInMs, 1_000);
    const retried = plan([place('bid:2')], { level: 60 - 1 });
    assert.deepEqual(calls(retried), ['AddOrder bid:2 100x1 1']);
  });

  void it('headroom is kept free: 5 points left under 55, the edit waits 1000 ms', () => {
    const p = plan([amend(order('bid:0', 2_000), { price: '99' })], { level: 50, headroom: 5 });
    assert.deepEqual(calls(p), []);
    assert.deepEqual(deferred(p), ['bid:0 budget']);
    assert.equal(p.retryInMs, 1_000);
    assert.deepEqual(
      calls(plan([amend(order('bid:0', 2_000), { price: '99' })], { level: 49, headroom: 5 })),
      ['EditOrder bid:0 99x1 6'],
    );
  });

  void it('retryInMs is Infinity when the headroom leaves less room than the call costs', () => {
    const p = plan([amend(order('bid:0', 2_000), { price: '99' })], { headroom: 56 });
    assert.equal(p.retryInMs, Infinity);
  });

  void it('an over-max level defers even a free edit until the counter is back under max', () => {
    const p = plan([amend(order('bid:0', 400_000), { price: '99' })], { level: 63 });
    assert.deepEqual(deferred(p), ['bid:0 budget']);
    assert.equal(p.retryInMs, 3_000);
  });
});

void describe('planCalls: open orders', () => {
  void it('placements beyond maxOpenOrders wait; amends and replacements do not count', () => {
    const p = plan(
      [
        place('bid:0'),
        place('bid:1'),
        place('bid:2'),
        amend(order('ask:0', 2_000), { price: '102' }),
        { intent: intent('place', 'ask:1'), live: order('ask:1', 400_000, { side: 'buy' }) },
      ],
      { openOrders: 59 },
    );
    assert.deepEqual(calls(p), [
      'CancelOrder ask:1/replace 0',
      'EditOrder ask:0 102x1 6',
      'AddOrderBatch [ask:1 100x1 replacing T-ask:1 bid:0 100x1] 1',
    ]);
    assert.deepEqual(deferred(p), ['bid:1 open-orders', 'bid:2 open-orders']);
    assert.equal(p.retryInMs, undefined);
  });

  void it("the plan's cancels free their orders' places", () => {
    const p = plan([cancel(order('ask:0', 400_000)), place('bid:0'), place('bid:1')], {
      openOrders: 60,
    });
    assert.deepEqual(calls(p), ['CancelOrder ask:0/cancel 0', 'AddOrder bid:0 100x1 1']);
    assert.deepEqual(deferred(p), ['bid:1 open-orders']);
  });
});

void describe('planCalls: determinism and call order', () => {
  const work = [
    amend(order('bid:1', 2_000, { volume: '3' }), { price: '99' }), // 1 %, volume off by 2
    amend(order('bid:0', 2_000, { volume: '2' }), { price: '99' }), // 1 %, volume off by 1
    amend(order('ask:1', 2_000, { volume: '2' }), { price: '99' }), // same as bid:0 → slot order
    cancel(order('ask:5', 2_000)),
    place('bid:3'),
    place('bid:2'),
  ];

  void it('orders calls cancels, edits, adds; ties go by volume difference then slot', () => {
    const p = plan(work);
    assert.deepEqual(calls(p), [
      'CancelOrder ask:5/cancel 8',
      'EditOrder bid:1 99x1 6',
      'EditOrder ask:1 99x1 6',
      'EditOrder bid:0 99x1 6',
      'AddOrderBatch [bid:2 100x1 bid:3 100x1] 1',
    ]);
    assertCostIsSum(p);
    assert.equal(p.cost, 27);
  });

  void it('gives the same plan whatever the order of the work', () => {
    const expected = plan(work);
    for (let shift = 1; shift < work.length; shift++) {
      const rotated = [...work.slice(shift), ...work.slice(0, shift)];
      assert.deepEqual(plan(rotated), expected);
      assert.deepEqual(plan([...rotated].reverse()), expected);
    }
  });

  void it('a larger volume difference goes first among placements at equal (infinite) distance', () => {
    const p = plan([place('bid:0', { volume: '1' }), place('bid:1', { volume: '2' })], {
      level: 59.5,
    });
    assert.deepEqual(deferred(p), ['bid:1 budget', 'bid:0 budget']);
  });

  void it('rejects batch rules that are not positive integers', () => {
    assert.throws(
      () => plan([], { batch: { addMin: 2, addMax: 0, cancelMax: 50 } }),
      /batch.addMax/,
    );
  });
});
