import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { InvalidInputError } from '../../src/core/index.js';
import type { Leases } from '../../src/executor/index.js';
import {
  TrackerError,
  emptyPosition,
  type OrderState,
  type OrderTracker,
  type TrackedOrder,
} from '../../src/orders/index.js';
import { trackedOrder } from '../support/tracked-order.js';

export const PAIR = 'XXBTZUSD';
const ETH = 'XETHZUSD';

export interface TrackerFixture {
  readonly tracker: OrderTracker;
  /** The leases whose fences this tracker checks (the same store). */
  readonly leases: Leases;
  close(): Promise<void>;
}

export interface TrackerLimits {
  readonly historyLimit?: number;
  readonly fillsLimit?: number;
}

export function order(overrides: Partial<TrackedOrder> = {}): TrackedOrder {
  return trackedOrder({
    userref: 1000,
    txid: 'OABCDE-1',
    pair: PAIR,
    price: '50000',
    volume: '0.01',
    openedAtMs: 1_000,
    sentAtMs: 900,
    deadlineMs: 5_900,
    updatedAtMs: 1_000,
    ...overrides,
  });
}

/** The view of `base` after `vol` executed for `cost` quote and `fee`. */
export const executed = (
  base: TrackedOrder,
  vol: string,
  cost: string,
  fee: string,
  state: OrderState = 'partially-filled',
): TrackedOrder => ({ ...base, volumeExecuted: vol, cost, fee, state });

const fenced = (key: string) => (err: unknown) => {
  assert.ok(err instanceof TrackerError, `expected a TrackerError, got ${String(err)}`);
  assert.equal(err.code, 'TRACKER_FENCED');
  assert.equal(err.retryable, false);
  assert.equal(err.key, key);
  assert.ok(err.message.includes(key), `message names ${key}: ${err.message}`);
  return true;
};

/**
 * OrderTracker's contract (src/orders/order-tracker.ts): what every reader and the executor rely
 * on, run against each implementation with the same assertions so they cannot drift.
 */
export function orderTrackerContract(
  name: string,
  make: (limits?: TrackerLimits) => Promise<TrackerFixture>,
): void {
  void describe(`OrderTracker contract: ${name}`, () => {
    let fx: TrackerFixture;
    let tracker: OrderTracker;
    const others: TrackerFixture[] = [];
    const withLimits = async (limits: TrackerLimits): Promise<OrderTracker> => {
      const other = await make(limits);
      others.push(other);
      return other.tracker;
    };

    beforeEach(async () => {
      fx = await make();
      tracker = fx.tracker;
    });
    afterEach(async () => {
      for (const other of others.splice(0)) await other.close();
      await fx.close();
    });

    void describe('records', () => {
      void it('tells its onChange listeners the pair of each write it committed, of no read', async () => {
        const heard: string[] = [];
        const unlisten = tracker.onChange((pair) => heard.push(pair));
        const a = order();
        await tracker.put([a, order({ userref: 2, txid: 'T2', pair: ETH })]);
        assert.deepEqual(heard, [PAIR, ETH], 'told once per pair of a put');
        await tracker.applyView(executed(a, '0.004', '200', '0.32', 'canceled'), 2_000);
        await tracker.live(PAIR);
        await tracker.position(PAIR);
        await tracker.fills(PAIR);
        // A view that changes nothing writes nothing.
        await tracker.applyView(executed(a, '0.004', '200', '0.32', 'canceled'), 3_000);
        await tracker.settle([executed(a, '0.006', '300', '0.48', 'canceled')], 4_000);
        // A settle that adds nothing writes nothing.
        await tracker.settle([executed(a, '0.006', '300', '0.48', 'canceled')], 5_000);
        assert.deepEqual(heard, [PAIR, ETH, PAIR, PAIR]);
        unlisten();
        await tracker.put(order({ userref: 3, txid: 'T3' }));
        assert.equal(heard.length, 4, 'not told after unsubscribing');
      });

      void it('put, live, get and byTxid round-trip; live is sorted by slot then userref', async () => {
        const ask = order({ userref: 3, txid: 'T3', slot: 'ask:0', side: 'sell' });
        const bid1 = order({ userref: 2, txid: 'T2', slot: 'bid:1' });
        const bid0b = order({ userref: 9, txid: 'T9', slot: 'bid:0' });
        const bid0a = order({ userref: 5, txid: null, slot: 'bid:0', state: 'pending-new' });
        const foreign = order({ userref: 1, txid: 'TF', slot: 'foreign', origin: 'adopted' });
        const bid10 = order({ userref: 4, txid: 'T4', slot: 'bid:10' });
        await tracker.put([ask, bid1, bid0b, foreign, bid10]);
        await tracker.put(bid0a);

        assert.deepEqual(await tracker.live(PAIR), [bid0a, bid0b, bid1, bid10, ask, foreign]);
        assert.deepEqual(await tracker.get(PAIR, 3), ask);
        assert.equal(await tracker.get(PAIR, 77), undefined);
        assert.deepEqual(await tracker.byTxid(PAIR, 'T2'), bid1);
        assert.equal(await tracker.byTxid(PAIR, 'nope'), undefined);
        assert.deepEqual(await tracker.live(ETH), []);
        assert.deepEqual(await tracker.pairs(), [PAIR]);

        // Upsert by (pair, userref).
        const moved = { ...bid1, price: '49990', pendingCall: 'edit' as const };
        await tracker.put(moved);
        assert.deepEqual(await tracker.get(PAIR, 2), moved);
        assert.equal((await tracker.live(PAIR)).length, 6);
      });

      void it('keeps exactly the known fields, as a copy of what was put', async () => {
        const given = { ...order(), extra: 'dropped' } as TrackedOrder;
        await tracker.put(given);
        (given as { price: string }).price = '1';
        assert.deepEqual(await tracker.get(PAIR, 1000), order());
      });

      void it('a terminal state moves the record out of live and onto the history', async () => {
        await tracker.put(order());
        const canceled = order({ state: 'canceled', reason: 'moved', updatedAtMs: 2_000 });
        await tracker.put(canceled);
        assert.deepEqual(await tracker.live(PAIR), []);
        assert.equal(await tracker.get(PAIR, 1000), undefined);
        assert.equal(await tracker.byTxid(PAIR, 'OABCDE-1'), undefined);
        assert.deepEqual(await tracker.history(PAIR), [canceled]);
        assert.deepEqual(await tracker.pairs(), [], 'no live record and no position');

        // Records of one call apply in order.
        await tracker.put([order({ userref: 5 }), order({ userref: 5, state: 'rejected' })]);
        assert.deepEqual(await tracker.live(PAIR), []);
        assert.deepEqual(
          (await tracker.history(PAIR)).map((o) => [o.userref, o.state]),
          [
            [5, 'rejected'],
            [1000, 'canceled'],
          ],
        );
      });

      void it('caps the history at historyLimit, newest first', async () => {
        const small = await withLimits({ historyLimit: 3 });
        for (let userref = 1; userref <= 5; userref++) {
          await small.put(order({ userref, txid: `T${userref}`, updatedAtMs: userref }));
          await small.put(
            order({ userref, txid: `T${userref}`, state: 'filled', updatedAtMs: userref }),
          );
        }
        assert.deepEqual(
          (await small.history(PAIR)).map((o) => o.userref),
          [5, 4, 3],
        );
        assert.deepEqual(
          (await small.history(PAIR, 2)).map((o) => o.userref),
          [5, 4],
        );
        assert.equal((await small.history(PAIR, 0)).length, 0);
      });

      void it('remembers finished userrefs as long as the history: later views of them are dropped', async () => {
        const small = await withLimits({ historyLimit: 3 });
        for (let userref = 1; userref <= 5; userref++) {
          await small.put(order({ userref, txid: `T${userref}`, updatedAtMs: 10 + userref }));
          await small.put(
            order({ userref, txid: `T${userref}`, state: 'canceled', updatedAtMs: 10 + userref }),
          );
        }
        // 3..5 are remembered: a late view of them changes nothing.
        for (const userref of [3, 4, 5]) {
          assert.equal(
            await small.applyView(order({ userref, txid: `T${userref}` }), 50),
            undefined,
          );
        }
        assert.deepEqual(await small.live(PAIR), []);
        // 1 and 2 were forgotten with their history entries: the view is a record again.
        await small.applyView(order({ userref: 1, txid: 'T1' }), 50);
        assert.deepEqual(
          (await small.live(PAIR)).map((o) => o.userref),
          [1],
        );
      });

      void it('forgets the oldest finished userref first, equal times by userref as text', async () => {
        const small = await withLimits({ historyLimit: 2 });
        // All finished at the same time: "10" < "11" < "9" as text, so 10 is forgotten.
        for (const userref of [9, 10, 11]) {
          await small.put(
            order({ userref, txid: `T${userref}`, state: 'canceled', updatedAtMs: 5 }),
          );
        }
        for (const userref of [9, 10, 11]) {
          await small.applyView(order({ userref, txid: `T${userref}` }), 50);
        }
        assert.deepEqual(
          (await small.live(PAIR)).map((o) => o.userref),
          [10],
        );
      });

      void it('countsByState counts live records only', async () => {
        await tracker.put([
          order({ userref: 1, state: 'open' }),
          order({ userref: 2, state: 'open' }),
          order({ userref: 3, state: 'partially-filled' }),
          order({ userref: 4, state: 'pending-new', txid: null }),
          order({ userref: 5, state: 'unknown', pendingCall: 'add' }),
          order({ userref: 6, state: 'canceled' }),
        ]);
        assert.deepEqual(await tracker.countsByState(PAIR), {
          'pending-new': 1,
          open: 2,
          'partially-filled': 1,
          filled: 0,
          canceled: 0,
          rejected: 0,
          unknown: 1,
        });
        assert.deepEqual(await tracker.countsByState(ETH), {
          'pending-new': 0,
          open: 0,
          'partially-filled': 0,
          filled: 0,
          canceled: 0,
          rejected: 0,
          unknown: 0,
        });
      });

      void it('pairs() lists pairs with a live record or a position, sorted', async () => {
        await tracker.put([
          order({ pair: PAIR }),
          order({ pair: ETH, userref: 2 }),
          order({ pair: 'ADAUSD', userref: 3 }),
        ]);
        assert.deepEqual(await tracker.pairs(), ['ADAUSD', ETH, PAIR]);

        // ADAUSD: all records done, no fill → gone. ETH: done but it has a position → stays.
        await tracker.put(order({ pair: 'ADAUSD', userref: 3, state: 'canceled' }));
        const eth = order({ pair: ETH, userref: 2 });
        await tracker.applyView(executed(eth, '0.01', '20', '0.01', 'filled'), 5_000);
        assert.deepEqual(await tracker.live(ETH), []);
        assert.deepEqual(await tracker.pairs(), [ETH, PAIR]);
      });

      void it('checks input before writing anything, naming the field', async () => {
        await assert.rejects(
          tracker.put([order({ userref: 1 }), order({ userref: 2, price: '1e5' })]),
          (err) => err instanceof InvalidInputError && err.field === 'orders[1].price',
        );
        await assert.rejects(
          tracker.put(order({ slot: 'middle' })),
          (err) => err instanceof InvalidInputError && err.field === 'order.slot',
        );
        await assert.rejects(
          tracker.applyView(order({ volumeExecuted: '-1' }), 1),
          (err) => err instanceof InvalidInputError && err.field === 'view.volumeExecuted',
        );
        await assert.rejects(
          tracker.applyView(order(), Number.NaN),
          (err) => err instanceof InvalidInputError && err.field === 'atMs',
        );
        await assert.rejects(
          tracker.put(order(), { key: '', token: 't' }),
          (err) => err instanceof InvalidInputError && err.field === 'fence.key',
        );
        await assert.rejects(
          tracker.history(PAIR, -1),
          (err) => err instanceof InvalidInputError && err.field === 'limit',
        );
        await assert.rejects(
          tracker.recentFills(PAIR, 1.5),
          (err) => err instanceof InvalidInputError && err.field === 'limit',
        );
        await assert.rejects(
          tracker.get(PAIR, 1.5),
          (err) => err instanceof InvalidInputError && err.field === 'userref',
        );
        assert.deepEqual(await tracker.live(PAIR), []);
        assert.deepEqual(await tracker.pairs(), []);
        await assert.rejects(
          make({ fillsLimit: 0 }),
          (err) => err instanceof InvalidInputError && err.field === 'fillsLimit',
        );
      });
    });

    void describe('fills', () => {
      void it('applyView records a fill once, however often the view is applied', async () => {
        const placed = order();
        await tracker.put(placed);
        const view = executed(placed, '0.004', '200', '0.32');

        const fill = await tracker.applyView(view, 5_000);
        assert.deepEqual(fill, {
          pair: PAIR,
          txid: 'OABCDE-1',
          userref: 1000,
          side: 'buy',
          price: '50000',
          volume: '0.004',
          cost: '200',
          fee: '0.32',
          feeIn: 'quote',
          atMs: 5_000,
        });
        assert.equal(await tracker.applyView(view, 6_000), undefined);
        assert.equal(await tracker.applyView(view, 7_000), undefined);

        assert.deepEqual(await tracker.fills(PAIR), [fill]);
        assert.deepEqual(await tracker.position(PAIR), {
          pair: PAIR,
          base: '0.004',
          quote: '-200.32',
          fees: '0.32',
          avgPrice: '50000',
          realizedPnl: '-0.32',
          fills: 1,
          updatedAtMs: 5_000,
        });
        assert.deepEqual(await tracker.get(PAIR, 1000), view);
      });

      void it('a view that only changes other fields is stored and counts no fill', async () => {
        await tracker.put(order());
        const moved = { ...order(), pendingCall: 'cancel' as const, updatedAtMs: 3_000 };
        assert.equal(await tracker.applyView(moved, 3_000), undefined);
        assert.deepEqual(await tracker.get(PAIR, 1000), moved);
        assert.deepEqual(await tracker.fills(PAIR), []);
      });

      void it('partial then full fill: two fills, the position sums them, the order retires', async () => {
        const placed = order();
        await tracker.put(placed);
        const partial = executed(placed, '0.004', '200', '0.32');
        const full = executed(placed, '0.01', '500.06', '0.8', 'filled');

        const first = await tracker.applyView(partial, 5_000);
        const second = await tracker.applyView(full, 6_000);
        assert.equal(second?.volume, '0.006');
        assert.equal(second?.cost, '300.06');
        assert.equal(second?.price, '50010');
        assert.equal(second?.fee, '0.48');
        assert.deepEqual(await tracker.fills(PAIR), [second, first], 'newest first');
        assert.deepEqual(await tracker.fills(PAIR, 1), [second]);
        assert.deepEqual(await tracker.fills(PAIR, 0), []);
        assert.deepEqual(await tracker.recentFills(PAIR, 1), { total: 2, fills: [second] });
        assert.deepEqual(await tracker.recentFills(PAIR, 0), { total: 2, fills: [] });
        assert.deepEqual(await tracker.recentFills(ETH, 5), { total: 0, fills: [] });

        assert.deepEqual(await tracker.position(PAIR), {
          pair: PAIR,
          base: '0.01',
          quote: '-500.86',
          fees: '0.8',
          avgPrice: '50006',
          realizedPnl: '-0.8',
          fills: 2,
          updatedAtMs: 6_000,
        });
        assert.deepEqual(await tracker.live(PAIR), []);
        assert.deepEqual(await tracker.history(PAIR), [full]);

        // A late copy of an older view of the finished order neither revives it nor counts again.
        assert.equal(await tracker.applyView(partial, 7_000), undefined);
        assert.equal(await tracker.applyView(full, 7_000), undefined);
        assert.deepEqual(await tracker.live(PAIR), []);
        assert.equal((await tracker.fills(PAIR)).length, 2);
        assert.equal((await tracker.history(PAIR)).length, 1);
      });

      void it('with no stored record a view is stored and counts no fill', async () => {
        const adopted = order({ origin: 'adopted', slot: 'foreign' });
        assert.equal(await tracker.applyView(executed(adopted, '0.005', '250', '0'), 1), undefined);
        assert.deepEqual(await tracker.fills(PAIR), []);
        assert.deepEqual(await tracker.position(PAIR), emptyPosition(PAIR));
        assert.equal((await tracker.get(PAIR, 1000))?.volumeExecuted, '0.005');

        const fill = await tracker.applyView(executed(adopted, '0.006', '300.1', '0'), 2);
        assert.equal(fill?.volume, '0.001');
        assert.equal(fill?.price, '50100');
      });

      void it('an older view (less executed) changes nothing', async () => {
        const placed = order();
        await tracker.put(executed(placed, '0.006', '300', '0'));
        assert.equal(await tracker.applyView(executed(placed, '0.004', '200', '0'), 1), undefined);
        assert.equal((await tracker.get(PAIR, 1000))?.volumeExecuted, '0.006');
        assert.deepEqual(await tracker.fills(PAIR), []);
      });

      void it('a view of another txid under the same userref is refused', async () => {
        await tracker.put(order());
        await assert.rejects(
          tracker.applyView(executed(order({ txid: 'OTHER' }), '0.001', '50', '0'), 1),
          (err) => err instanceof InvalidInputError && err.field === 'view.txid',
        );
        assert.deepEqual(await tracker.fills(PAIR), []);
      });

      void it('a view without txid keeps the stored txid', async () => {
        await tracker.put(order());
        const fill = await tracker.applyView(
          executed(order({ txid: null }), '0.001', '50', '0'),
          1,
        );
        assert.equal(fill?.txid, 'OABCDE-1');
        assert.equal((await tracker.get(PAIR, 1000))?.txid, 'OABCDE-1');
      });

      void it('put never moves execution backwards, so a stale copy cannot double-count', async () => {
        const placed = order();
        await tracker.put(placed);
        const view = executed(placed, '0.004', '200', '0.32');
        await tracker.applyView(view, 1);
        // The executor marks a cancel in flight on its older copy of the record.
        await tracker.put({ ...placed, pendingCall: 'cancel' });
        const stored = await tracker.get(PAIR, 1000);
        assert.equal(stored?.pendingCall, 'cancel');
        assert.equal(stored?.volumeExecuted, '0.004');
        assert.equal(stored?.cost, '200');
        assert.equal(stored?.fee, '0.32');
        assert.equal(await tracker.applyView(view, 2), undefined);
        assert.equal((await tracker.position(PAIR)).fills, 1);

        // Another order under the userref (a new txid) is put as given.
        await tracker.put(order({ txid: 'ONEW-2' }));
        assert.equal((await tracker.get(PAIR, 1000))?.volumeExecuted, '0');
      });

      void it('settle: fills only for closed orders that executed more; the entry takes the view', async () => {
        const [a, b, c] = [1, 2, 3].map((userref) => order({ userref, txid: `OA-${userref}` }));
        assert.ok(a !== undefined && b !== undefined && c !== undefined);
        await tracker.put([a, b, c]);
        await tracker.put([a, b, c].map((o) => ({ ...o, state: 'canceled' as const })));

        const fills = await tracker.settle(
          [
            executed(a, '0.004', '200', '0.32', 'canceled'),
            { ...b, state: 'canceled' },
            executed(order({ userref: 9, txid: 'OA-9' }), '0.01', '500', '0'),
            executed(c, '0.01', '500', '0.8', 'filled'),
            // Its txid, another userref: not this order.
            executed(order({ userref: 4, txid: 'OA-2' }), '0.01', '500', '0'),
          ],
          7_000,
        );
        assert.deepEqual(
          fills.map((f) => [f.txid, f.volume, f.atMs]),
          [
            ['OA-1', '0.004', 7_000],
            ['OA-3', '0.01', 7_000],
          ],
        );
        assert.deepEqual(
          (await tracker.fills(PAIR)).map((f) => f.txid),
          ['OA-3', 'OA-1'],
        );
        const position = await tracker.position(PAIR);
        assert.equal(position.fills, 2);
        assert.equal(position.base, '0.014');
        const byTxid = new Map((await tracker.history(PAIR)).map((o) => [o.txid, o]));
        assert.equal(byTxid.get('OA-1')?.volumeExecuted, '0.004');
        assert.equal(byTxid.get('OA-1')?.state, 'canceled');
        assert.equal(byTxid.get('OA-2')?.volumeExecuted, '0');
        assert.equal(byTxid.get('OA-3')?.state, 'filled', 'a final view gives its state');
        assert.equal(byTxid.get('OA-3')?.updatedAtMs, 7_000);
        assert.equal(byTxid.get('OA-3')?.cost, '500');
        assert.deepEqual(await tracker.pairs(), [PAIR], 'a position keeps the pair listed');

        // Settled again, the same views add nothing.
        assert.deepEqual(
          await tracker.settle([executed(a, '0.004', '200', '0.32', 'canceled')], 8_000),
          [],
        );
        assert.equal((await tracker.position(PAIR)).fills, 2);
        assert.deepEqual(await tracker.settle([], 8_000), []);
      });

      void it('settle takes each view’s time from a function, and counts two views of one order once', async () => {
        const a = order({ userref: 1, txid: 'OA-1' });
        await tracker.put({ ...a, state: 'canceled' });
        const fills = await tracker.settle(
          [
            executed(a, '0.004', '200', '0', 'canceled'),
            executed(a, '0.006', '300', '0', 'canceled'),
          ],
          (view) => 1_000 + Number(view.volumeExecuted) * 1_000_000,
        );
        assert.deepEqual(
          fills.map((f) => [f.volume, f.atMs]),
          [
            ['0.004', 5_000],
            ['0.002', 7_000],
          ],
        );
        assert.equal((await tracker.position(PAIR)).base, '0.006');
        assert.equal((await tracker.history(PAIR))[0]?.volumeExecuted, '0.006');
      });

      void it('settle refuses views of two pairs, naming the field', async () => {
        await assert.rejects(
          tracker.settle([order(), order({ pair: ETH, userref: 2 })], 1),
          (err) =>
            err instanceof InvalidInputError &&
            err.field === 'views[1].pair' &&
            err.message.includes(PAIR),
        );
      });

      void it('keeps at most fillsLimit fills; the position counts them all', async () => {
        const small = await withLimits({ fillsLimit: 2 });
        await small.put(order());
        for (const step of [1, 2, 3]) {
          await small.applyView(executed(order(), `0.00${step}`, `${50 * step}`, '0'), step);
        }
        assert.deepEqual(
          (await small.fills(PAIR)).map((f) => f.atMs),
          [3, 2],
        );
        assert.equal((await small.position(PAIR)).fills, 3);
        assert.equal((await small.recentFills(PAIR, 5)).total, 3);
      });
    });

    void describe('fences', () => {
      void it('writes under a held lease; a lease another holder took fences the old one out', async () => {
        const first = fx.leases.lease(PAIR, 'exec-a', 30_000);
        assert.equal(await first.tryAcquire(), true);
        await tracker.put(order(), first.fence);
        const view = executed(order(), '0.004', '200', '0');
        assert.equal((await tracker.applyView(view, 1, first.fence))?.volume, '0.004');

        await first.release();
        // Released: nobody holds the key.
        await assert.rejects(
          tracker.put(order({ pendingCall: 'cancel' }), first.fence),
          (err) => fenced(first.key)(err) && /is not set/.test((err as Error).message),
        );
        const second = fx.leases.lease(PAIR, 'exec-b', 30_000);
        assert.equal(await second.tryAcquire(), true);

        const more = executed(order(), '0.006', '300', '0');
        await assert.rejects(
          tracker.applyView(more, 2, first.fence),
          (err) => fenced(first.key)(err) && /another writer/.test((err as Error).message),
        );
        await assert.rejects(
          tracker.put(order({ state: 'canceled' }), first.fence),
          fenced(first.key),
        );
        await assert.rejects(
          tracker.settle([executed(order(), '0.01', '500', '0', 'filled')], 3, first.fence),
          fenced(first.key),
        );
        // Nothing was written by the refused calls.
        assert.equal((await tracker.get(PAIR, 1000))?.volumeExecuted, '0.004');
        assert.equal((await tracker.get(PAIR, 1000))?.pendingCall, null);
        assert.equal((await tracker.position(PAIR)).fills, 1);

        assert.equal((await tracker.applyView(more, 2, second.fence))?.volume, '0.002');
        await second.release();
      });
    });
  });
}
