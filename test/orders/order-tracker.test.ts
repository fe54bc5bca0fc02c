import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { InvalidInputError } from '../../src/core/index.js';
import { OrderTracker, TrackerError, emptyPosition, type Fence } from '../../src/orders/index.js';
import type { OrderState, TrackedOrder } from '../../src/orders/types.js';
import { REDIS_URL, deleteKeys, freshPrefix } from '../support/redis.js';
import { trackedOrder } from '../support/tracked-order.js';

const PAIR = 'XXBTZUSD';
const ETH = 'XETHZUSD';

function order(overrides: Partial<TrackedOrder> = {}): TrackedOrder {
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
const executed = (
  base: TrackedOrder,
  vol: string,
  cost: string,
  fee: string,
  state: OrderState = 'partially-filled',
): TrackedOrder => ({ ...base, volumeExecuted: vol, cost, fee, state });

const trackerError = (code: TrackerError['code'], key?: string) => (err: unknown) => {
  assert.ok(err instanceof TrackerError, `expected a TrackerError, got ${String(err)}`);
  assert.equal(err.code, code);
  if (key !== undefined) {
    assert.equal(err.key, key);
    assert.ok(err.message.includes(key), `message names ${key}: ${err.message}`);
  }
  return true;
};

/** Polls `check` in real time: for messages another connection receives. */
async function waitUntil(check: () => boolean): Promise<void> {
  const end = Date.now() + 5_000;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

void describe('OrderTracker', () => {
  let prefix: string;
  let redis: Redis;
  let tracker: OrderTracker;
  const closers: Array<() => Promise<unknown>> = [];

  beforeEach(() => {
    prefix = freshPrefix();
    redis = new Redis(REDIS_URL);
    tracker = new OrderTracker({ redis, prefix });
  });

  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
    await tracker.close();
    await deleteKeys(redis, prefix);
    await redis.quit();
  });

  void describe('records', () => {
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

    void it('stores exactly the known fields', async () => {
      await tracker.put({ ...order(), extra: 'dropped' } as TrackedOrder);
      const raw = await redis.hget(tracker.liveKey(PAIR), '1000');
      assert.ok(raw !== null);
      assert.equal((JSON.parse(raw) as Record<string, unknown>).extra, undefined);
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
      const small = new OrderTracker({ redis, prefix, historyLimit: 3 });
      closers.push(() => small.close());
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
      assert.equal(await redis.zcard(small.doneRefsKey(PAIR)), 3);
      assert.equal((await small.history(PAIR, 0)).length, 0);
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

    void it('checks input before writing anything', async () => {
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
      assert.deepEqual(await tracker.live(PAIR), []);
      assert.deepEqual(await tracker.pairs(), []);
      assert.throws(
        () => new OrderTracker({ redis, prefix: 'has space' }),
        (err) => err instanceof InvalidInputError && err.field === 'prefix',
      );
      assert.throws(
        () => new OrderTracker({ redis, prefix, fillsLimit: 0 }),
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
      const fill = await tracker.applyView(executed(order({ txid: null }), '0.001', '50', '0'), 1);
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
    });

    void it('settle: every closed order of a sync in one transaction; fills only for what executed more', async () => {
      const [a, b, c] = [1, 2, 3].map((userref) => order({ userref, txid: `OA-${userref}` }));
      assert.ok(a !== undefined && b !== undefined && c !== undefined);
      await tracker.put([a, b, c]);
      await tracker.put([a, b, c].map((o) => ({ ...o, state: 'canceled' as const })));
      // An entry of some other order that does not decode is not looked at.
      await redis.rpush(tracker.historyKey(PAIR), '{"broken"');
      // A tracker of its own, whose transaction connection counts its MULTIs.
      const conn = new Redis(REDIS_URL);
      let transactions = 0;
      const duplicateOf = conn.duplicate.bind(conn);
      conn.duplicate = (...args: Parameters<Redis['duplicate']>) => {
        const tx = duplicateOf(...args);
        const multiOn = tx.multi.bind(tx);
        tx.multi = ((...a: Parameters<Redis['multi']>) => {
          transactions += 1;
          return multiOn(...a);
        }) as Redis['multi'];
        return tx;
      };
      const own = new OrderTracker({ redis: conn, prefix });
      closers.push(async () => {
        await own.close();
        await conn.quit();
      });

      const fills = await own.settle(
        [
          executed(a, '0.004', '200', '0.32', 'canceled'),
          { ...b, state: 'canceled' },
          executed(order({ userref: 9, txid: 'OA-9' }), '0.01', '500', '0'),
          executed(c, '0.01', '500', '0.8', 'filled'),
        ],
        7_000,
      );
      assert.equal(transactions, 1, 'one transaction for the four views');
      assert.deepEqual(
        fills.map((f) => [f.txid, f.volume, f.atMs]),
        [
          ['OA-1', '0.004', 7_000],
          ['OA-3', '0.01', 7_000],
        ],
      );
      assert.deepEqual(
        (await own.fills(PAIR)).map((f) => f.txid),
        ['OA-3', 'OA-1'],
      );
      const position = await own.position(PAIR);
      assert.equal(position.fills, 2);
      assert.equal(position.base, '0.014');
      const history = await redis.lrange(tracker.historyKey(PAIR), 0, 2);
      const byTxid = new Map(
        history.map((json) => {
          const o = JSON.parse(json) as TrackedOrder;
          return [o.txid, o];
        }),
      );
      assert.equal(byTxid.get('OA-1')?.volumeExecuted, '0.004');
      assert.equal(byTxid.get('OA-1')?.state, 'canceled');
      assert.equal(byTxid.get('OA-2')?.volumeExecuted, '0');
      assert.equal(byTxid.get('OA-3')?.state, 'filled', 'a final view gives its state');
      assert.equal(byTxid.get('OA-3')?.updatedAtMs, 7_000);

      // Settled again, the same views add nothing.
      assert.deepEqual(
        await own.settle([executed(a, '0.004', '200', '0.32', 'canceled')], 8_000),
        [],
      );
      assert.equal((await own.position(PAIR)).fills, 2);
      assert.deepEqual(await own.settle([], 8_000), []);
      assert.equal(transactions, 1, 'nothing written for views that add nothing, nor for none');
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

    void it('keeps at most fillsLimit fills', async () => {
      const small = new OrderTracker({ redis, prefix, fillsLimit: 2 });
      closers.push(() => small.close());
      await small.put(order());
      for (const step of [1, 2, 3]) {
        await small.applyView(executed(order(), `0.00${step}`, `${50 * step}`, '0'), step);
      }
      assert.deepEqual(
        (await small.fills(PAIR)).map((f) => f.atMs),
        [3, 2],
      );
      assert.equal((await small.position(PAIR)).fills, 3);
    });

    void it('concurrent applyView of one view from two trackers records exactly one fill', async () => {
      const otherRedis = new Redis(REDIS_URL);
      const other = new OrderTracker({ redis: otherRedis, prefix });
      closers.push(
        () => otherRedis.quit(),
        () => other.close(),
      );
      const placed = order({ volume: '1' });
      await tracker.put(placed);

      const steps = 20;
      for (let step = 1; step <= steps; step++) {
        const view = executed(placed, `${step / 1000}`, `${step * 50}`, `${step / 100}`);
        const results = await Promise.all([
          tracker.applyView(view, step),
          other.applyView(view, step),
          other.applyView(view, step),
          tracker.applyView(view, step),
        ]);
        assert.equal(results.filter((f) => f !== undefined).length, 1, `step ${step}`);
      }
      const fills = await tracker.fills(PAIR);
      assert.equal(fills.length, steps);
      assert.ok(fills.every((f) => f.volume === '0.001' && f.cost === '50'));
      const position = await other.position(PAIR);
      assert.equal(position.base, '0.02');
      assert.equal(position.quote, '-1000.2');
      assert.equal(position.fills, steps);
    });
  });

  void it('tells subscribers the pair of every write, and of no read', async () => {
    const sub = redis.duplicate();
    closers.push(() => sub.quit());
    const heard: string[] = [];
    sub.on('message', (_channel: string, pair: string) => heard.push(pair));
    await sub.subscribe(tracker.changesChannel);
    const a = order();
    await tracker.put([a, order({ userref: 2, txid: 'T2', pair: ETH })]);
    await tracker.applyView(executed(a, '0.004', '200', '0.32', 'canceled'), 2_000);
    await tracker.live(PAIR);
    await tracker.position(PAIR);
    await tracker.settle([executed(a, '0.006', '300', '0.48', 'canceled')], 3_000);
    // A view that changes nothing writes nothing.
    await tracker.applyView(executed(a, '0.004', '200', '0.32', 'canceled'), 4_000);
    await tracker.put(order({ userref: 3, txid: 'T3' }));
    await waitUntil(() => heard.length >= 5);
    assert.deepEqual(heard, [PAIR, ETH, PAIR, PAIR, PAIR]);
  });

  void describe('fences and failures', () => {
    void it('a write under a fence whose token is not current is refused and writes nothing', async () => {
      const fenceKey = `${prefix}:lease:executor`;
      await redis.set(fenceKey, 'token-a');
      const wrong: Fence = { key: fenceKey, token: 'token-b' };
      const right: Fence = { key: fenceKey, token: 'token-a' };

      await assert.rejects(tracker.put(order(), wrong), trackerError('TRACKER_FENCED', fenceKey));
      assert.deepEqual(await tracker.live(PAIR), []);
      assert.deepEqual(await tracker.pairs(), []);

      await tracker.put(order(), right);
      const view = executed(order(), '0.004', '200', '0');
      await assert.rejects(
        tracker.applyView(view, 1, wrong),
        (err) => err instanceof TrackerError && err.code === 'TRACKER_FENCED' && !err.retryable,
      );
      assert.deepEqual(await tracker.fills(PAIR), []);
      assert.deepEqual(await tracker.position(PAIR), emptyPosition(PAIR));
      assert.equal((await tracker.get(PAIR, 1000))?.volumeExecuted, '0');

      assert.equal((await tracker.applyView(view, 1, right))?.volume, '0.004');

      await redis.del(fenceKey);
      await assert.rejects(
        tracker.put(order({ state: 'canceled' }), right),
        trackerError('TRACKER_FENCED', fenceKey),
      );
      assert.equal((await tracker.live(PAIR)).length, 1);
    });

    void it('corrupt JSON in the live hash is TRACKER_CORRUPT naming the key and field', async () => {
      await tracker.put(order({ userref: 1 }));
      const key = tracker.liveKey(PAIR);
      await redis.hset(key, '7', '{not json');
      const corrupt = (err: unknown) => {
        trackerError('TRACKER_CORRUPT', key)(err);
        assert.equal((err as TrackerError).field, '7');
        assert.ok((err as TrackerError).message.includes('field 7'));
        return true;
      };
      await assert.rejects(tracker.live(PAIR), corrupt);
      await assert.rejects(tracker.get(PAIR, 7), corrupt);
      await assert.rejects(tracker.applyView(order({ userref: 7 }), 1), corrupt);
      await assert.rejects(tracker.countsByState(PAIR), corrupt);

      // Valid JSON, wrong member: the member is named.
      await redis.hset(key, '7', JSON.stringify({ ...order({ userref: 7 }), price: 50000 }));
      await assert.rejects(tracker.get(PAIR, 7), (err) => {
        corrupt(err);
        assert.match((err as Error).message, /price must be a non-negative decimal string/);
        return true;
      });
      await redis.hset(key, '7', JSON.stringify({ ...order({ userref: 7 }), cost: '-0.01' }));
      await assert.rejects(tracker.get(PAIR, 7), /cost must be a non-negative decimal string/);
      await redis.hset(key, '7', JSON.stringify({ ...order({ userref: 7 }), fee: '-0.00' }));
      assert.equal((await tracker.get(PAIR, 7))?.fee, '-0.00', 'minus zero is not below zero');
      // A record filed under another userref.
      await redis.hset(key, '7', JSON.stringify(order({ userref: 8 })));
      await assert.rejects(tracker.get(PAIR, 7), corrupt);

      // put repairs it.
      await tracker.put(order({ userref: 7 }));
      assert.equal((await tracker.get(PAIR, 7))?.userref, 7);
    });

    void it('a corrupt position, fill or wrong-typed key is TRACKER_CORRUPT', async () => {
      await redis.set(tracker.positionKey(PAIR), '{"pair":"XXBTZUSD","base":1}');
      await assert.rejects(
        tracker.position(PAIR),
        trackerError('TRACKER_CORRUPT', tracker.positionKey(PAIR)),
      );
      await redis.lpush(tracker.fillsKey(PAIR), 'garbage');
      await assert.rejects(
        tracker.fills(PAIR),
        trackerError('TRACKER_CORRUPT', tracker.fillsKey(PAIR)),
      );
      await redis.set(tracker.liveKey(ETH), 'a string, not a hash');
      await assert.rejects(
        tracker.live(ETH),
        trackerError('TRACKER_CORRUPT', tracker.liveKey(ETH)),
      );
      await assert.rejects(
        tracker.put(order({ pair: ETH })),
        trackerError('TRACKER_CORRUPT', tracker.liveKey(ETH)),
      );
    });

    void it('Redis not answering is TRACKER_UNAVAILABLE, retryable, naming the key', async () => {
      const dead = new Redis({
        port: 1,
        host: '127.0.0.1',
        lazyConnect: true,
        maxRetriesPerRequest: 0,
        retryStrategy: () => null,
      });
      dead.on('error', () => undefined);
      const broken = new OrderTracker({ redis: dead, prefix });
      closers.push(
        () => Promise.resolve(dead.disconnect()),
        () => broken.close(),
      );
      const unavailable = (key: string) => (err: unknown) => {
        trackerError('TRACKER_UNAVAILABLE', key)(err);
        assert.ok((err as TrackerError).retryable);
        assert.ok((err as TrackerError).cause instanceof Error);
        return true;
      };
      await assert.rejects(broken.live(PAIR), unavailable(broken.liveKey(PAIR)));
      await assert.rejects(broken.put(order()), unavailable(broken.liveKey(PAIR)));
      await assert.rejects(broken.applyView(order(), 1), unavailable(broken.liveKey(PAIR)));
    });
  });
});
