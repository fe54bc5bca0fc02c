import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Decimal } from '../../../src/core/index.js';
import { EARN_OPERATION_MS, earnRoutes } from '../../../src/sim/endpoints/earn.js';
import { direct, rejectsWith, resultOf, type Direct } from './rest-support.js';

const ETH = 'ESDQCOL-WTZEU-NU55QF';
const XBT = 'ESRFUO3-Q62XD-WIOIL7';
const USD_FLEX = 'ESMWVX6-JAPVY-23L3CV';
const HOUR = 3600_000;
const DAY = 24 * HOUR;

interface Item {
  id: string;
  can_allocate: boolean;
  allocation_restriction_info: string[];
  lock_type: { type: string };
}
interface Allocation {
  strategy_id: string;
  amount_allocated: {
    total: { native: string; converted: string };
    pending?: { native: string; converted: string };
    bonding?: { native: string; allocation_count: number };
    exit_queue?: { native: string };
    unbonding?: { native: string };
  };
  total_rewarded: { native: string; converted: string };
}
interface Allocations {
  converted_asset: string;
  total_allocated: string;
  total_rewarded: string;
  next_cursor: null;
  items: Allocation[];
}

function setup(tier: 'starter' | 'intermediate' = 'intermediate') {
  const d = direct();
  const routes = earnRoutes(d.ctx);
  const account = d.account({ tier });
  const call = (name: string, params: Record<string, unknown> = {}) =>
    d.call(routes, `Earn/${name}`, account, params);
  const allocations = async (params: Record<string, unknown> = {}) =>
    resultOf(await call('Allocations', params)) as Allocations;
  return { d, routes, account, call, allocations };
}

async function settle(d: Direct): Promise<void> {
  await d.advance(EARN_OPERATION_MS);
}

describe('Earn strategies', () => {
  it('shows can_allocate false with a tier restriction below intermediate', async () => {
    const { call } = setup('starter');
    const res = resultOf(await call('Strategies')) as { next_cursor: null; items: Item[] };
    assert.equal(res.next_cursor, null);
    const byId = new Map(res.items.map((i) => [i.id, i]));
    assert.equal(byId.get(ETH)?.can_allocate, false);
    assert.deepEqual(byId.get(ETH)?.allocation_restriction_info, ['tier']);
    assert.equal(byId.get(XBT)?.can_allocate, false);
    // flex cannot be allocated by anyone, and that is not a tier matter
    assert.equal(byId.get(USD_FLEX)?.can_allocate, false);
    assert.deepEqual(byId.get(USD_FLEX)?.allocation_restriction_info, []);
  });

  it('lets an intermediate key allocate and filters by lock_type and asset', async () => {
    const { call } = setup('intermediate');
    const all = resultOf(await call('Strategies', { ascending: true })) as { items: Item[] };
    assert.deepEqual(
      all.items.map((i) => i.id),
      [ETH, XBT, USD_FLEX].sort(),
    );
    assert.equal(all.items.find((i) => i.id === ETH)?.can_allocate, true);
    const bonded = resultOf(await call('Strategies', { lock_type: ['bonded'] })) as {
      items: Item[];
    };
    assert.deepEqual(
      bonded.items.map((i) => i.lock_type.type),
      ['bonded'],
    );
    const formList = resultOf(await call('Strategies', { lock_type: 'instant,flex' })) as {
      items: Item[];
    };
    assert.equal(formList.items.length, 2);
    const xbt = resultOf(await call('Strategies', { asset: 'XBT' })) as { items: Item[] };
    assert.deepEqual(
      xbt.items.map((i) => i.id),
      [XBT],
    );
    await rejectsWith(
      call('Strategies', { lock_type: ['locked'] }),
      'EGeneral:Invalid arguments:lock_type',
    );
  });
});

describe('Earn preflight', () => {
  it('refuses with the spec strings before anything starts', async () => {
    const { call } = setup('intermediate');
    await rejectsWith(
      call('Allocate', { strategy_id: 'ENOPE00-00000-000000', amount: '1' }),
      'EGeneral:Invalid arguments:Invalid strategy ID',
    );
    await rejectsWith(
      call('Allocate', { strategy_id: XBT, amount: '0.00001' }),
      'EEarnings:Below min:(De)allocation operation amount less than minimum',
    );
    await rejectsWith(
      call('Allocate', { strategy_id: USD_FLEX, amount: '100' }),
      'EGeneral:Invalid arguments:Strategy cannot be allocated manually',
    );
    await rejectsWith(
      call('Allocate', { strategy_id: XBT, amount: 'abc' }),
      'EGeneral:Invalid arguments:amount',
    );
    assert.equal(resultOf(await call('Allocate', { strategy_id: XBT, amount: '1' })), true);
    await rejectsWith(
      call('Allocate', { strategy_id: XBT, amount: '1' }),
      'EEarnings:Busy:Another (de)allocation for the same strategy is in progress',
    );
    await rejectsWith(
      call('Deallocate', { strategy_id: XBT, amount: '1' }),
      'EEarnings:Busy:Another (de)allocation for the same strategy is in progress',
    );
  });

  it('refuses a starter key with the tier error', async () => {
    const { call } = setup('starter');
    await rejectsWith(
      call('Allocate', { strategy_id: ETH, amount: '1' }),
      "EEarnings:Permission denied:The user's tier is not high enough",
    );
  });
});

describe('Earn operations', () => {
  it('allocates asynchronously: pending first, funds move when it completes', async () => {
    const { d, account, call, allocations } = setup();
    assert.equal(resultOf(await call('Allocate', { strategy_id: XBT, amount: '1.5' })), true);
    assert.deepEqual(resultOf(await call('AllocateStatus', { strategy_id: XBT })), {
      pending: true,
    });
    let res = await allocations();
    assert.equal(res.items[0]?.amount_allocated.pending?.native, '1.5');
    assert.equal(res.items[0]?.amount_allocated.total.native, '0');
    assert.equal(account.wallet.balance('XXBT').toFixed(), '100');

    await settle(d);
    assert.deepEqual(resultOf(await call('AllocateStatus', { strategy_id: XBT })), {
      pending: false,
    });
    assert.equal(account.wallet.balance('XXBT').toFixed(), '98.5');
    const entry = account.wallet.ledger.at(-1);
    assert.equal(entry?.type, 'earn');
    assert.equal(entry?.amount.toFixed(), '-1.5');
    res = await allocations();
    assert.equal(res.converted_asset, 'USD');
    assert.equal(res.items[0]?.amount_allocated.total.native, '1.5');
    assert.equal(res.items[0]?.amount_allocated.total.converted, '90000');
    assert.equal(res.items[0]?.amount_allocated.pending, undefined);

    // deallocation: pending is negative, funds come back at completion (instant strategy)
    assert.equal(resultOf(await call('Deallocate', { strategy_id: XBT, amount: '0.5' })), true);
    res = await allocations();
    assert.equal(res.items[0]?.amount_allocated.pending?.native, '-0.5');
    assert.deepEqual(resultOf(await call('DeallocateStatus', { strategy_id: XBT })), {
      pending: true,
    });
    await settle(d);
    assert.deepEqual(resultOf(await call('DeallocateStatus', { strategy_id: XBT })), {
      pending: false,
    });
    assert.equal(account.wallet.balance('XXBT').toFixed(), '99');
  });

  it('reports a failed allocation through the status endpoint and moves nothing', async () => {
    const { d, account, call } = setup();
    assert.equal(resultOf(await call('Allocate', { strategy_id: XBT, amount: '11' })), true);
    await settle(d);
    await rejectsWith(
      call('AllocateStatus', { strategy_id: XBT }),
      'EEarnings:Above max:The allocation exceeds user limit for the strategy',
    );
    assert.equal(account.wallet.balance('XXBT').toFixed(), '100');
    // a new operation clears the old failure
    assert.equal(resultOf(await call('Allocate', { strategy_id: XBT, amount: '1' })), true);
    assert.deepEqual(resultOf(await call('AllocateStatus', { strategy_id: XBT })), {
      pending: true,
    });
  });

  it('allocates only balance minus hold_trade', async () => {
    const { d, account, call } = setup();
    account.wallet.set('XXBT', new Decimal(5), 'test', d.clock.now());
    account.wallet.addHold('XXBT', new Decimal(4));
    assert.equal(resultOf(await call('Allocate', { strategy_id: XBT, amount: '2' })), true);
    await settle(d);
    await rejectsWith(
      call('AllocateStatus', { strategy_id: XBT }),
      'EEarnings:Insufficient funds:Insufficient funds to complete the (de)allocation request',
    );
    assert.equal(account.wallet.balance('XXBT').toFixed(), '5');
  });

  it('enforces the total strategy limit at completion', async () => {
    const { d, call } = setup();
    assert.equal(resultOf(await call('Allocate', { strategy_id: ETH, amount: '11' })), true);
    await settle(d);
    await rejectsWith(
      call('AllocateStatus', { strategy_id: ETH }),
      'EEarnings:Above max:The allocation exceeds the total strategy limit',
    );
  });

  it('fails a deallocation of more than is allocated', async () => {
    const { d, call } = setup();
    await call('Allocate', { strategy_id: XBT, amount: '1' });
    await settle(d);
    assert.equal(resultOf(await call('Deallocate', { strategy_id: XBT, amount: '2' })), true);
    await settle(d);
    await rejectsWith(
      call('DeallocateStatus', { strategy_id: XBT }),
      'EEarnings:Insufficient funds:Insufficient funds to complete the (de)allocation request',
    );
  });

  it('walks a bonded allocation through bonding, exit queue and unbonding', async () => {
    const { d, account, call, allocations } = setup();
    await call('Allocate', { strategy_id: ETH, amount: '2' });
    await settle(d);
    assert.equal(account.wallet.balance('XETH').toFixed(), '998');
    let item = (await allocations()).items[0];
    assert.equal(item?.amount_allocated.bonding?.native, '2');
    assert.equal(item?.amount_allocated.bonding?.allocation_count, 1);

    await d.advance(HOUR);
    item = (await allocations()).items[0];
    assert.equal(item?.amount_allocated.bonding, undefined);
    assert.equal(item?.amount_allocated.total.native.startsWith('2'), true);

    await call('Deallocate', { strategy_id: ETH, amount: '0.5' });
    await settle(d);
    item = (await allocations()).items[0];
    assert.equal(item?.amount_allocated.exit_queue?.native, '0.5');
    assert.equal(account.wallet.balance('XETH').toFixed(), '998');

    await d.advance(DAY);
    item = (await allocations()).items[0];
    assert.equal(item?.amount_allocated.exit_queue, undefined);
    assert.equal(item?.amount_allocated.unbonding?.native, '0.5');

    await d.advance(DAY);
    item = (await allocations()).items[0];
    assert.equal(item?.amount_allocated.unbonding, undefined);
    assert.equal(account.wallet.balance('XETH').toFixed(), '998.5');
    const back = account.wallet.ledger.at(-1);
    assert.equal(back?.type, 'earn');
    assert.equal(back?.subtype, 'deallocation');
  });

  it('accrues rewards on earning funds', async () => {
    const { d, call, allocations } = setup();
    await call('Allocate', { strategy_id: XBT, amount: '10' });
    await settle(d);
    await d.advance(365 * DAY);
    const res = await allocations();
    // 10 XBT at 0.2 % a year; compounding per tick adds a little when ticks are frequent
    const rewarded = new Decimal(res.items[0]?.total_rewarded.native ?? '0');
    assert.ok(rewarded.gte('0.02') && rewarded.lt('0.0201'), rewarded.toFixed());
    assert.ok(new Decimal(res.total_rewarded).gt(1000));
  });

  it('lists every strategy ever used, zero ones unless hide_zero_allocations', async () => {
    const { d, call, allocations } = setup();
    await call('Allocate', { strategy_id: XBT, amount: '11' }); // fails: above the user cap
    await call('Allocate', { strategy_id: ETH, amount: '1' });
    await settle(d);
    const shown = await allocations({ ascending: true });
    assert.deepEqual(
      shown.items.map((i) => [i.strategy_id, i.amount_allocated.total.native]),
      [
        [XBT, '0'],
        [ETH, '1'],
      ],
    );
    const hidden = await allocations({ hide_zero_allocations: true });
    assert.deepEqual(
      hidden.items.map((i) => i.strategy_id),
      [ETH],
    );
  });
});
