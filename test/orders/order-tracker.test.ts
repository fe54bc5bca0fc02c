import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { InvalidInputError } from '../../src/core/index.js';
import { RedisOrderTracker, TrackerError } from '../../src/orders/index.js';
import { REDIS_URL, deleteKeys, freshPrefix } from '../support/redis.js';
import type { TrackedOrder } from '../../src/orders/types.js';
import { PAIR, executed, order } from '../stores/order-tracker.contract.js';

const ETH = 'XETHZUSD';

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

/**
 * What only the Redis tracker has: its layout, transactions racing between connections, values in
 * Redis it did not write, and Redis away. What every tracker does is in test/stores.
 */
void describe('RedisOrderTracker', () => {
  let prefix: string;
  let redis: Redis;
  let tracker: RedisOrderTracker;
  const closers: Array<() => Promise<unknown>> = [];

  beforeEach(() => {
    prefix = freshPrefix();
    redis = new Redis(REDIS_URL);
    tracker = new RedisOrderTracker({ redis, prefix });
  });

  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
    await tracker.close();
    await deleteKeys(redis, prefix);
    await redis.quit();
  });

  void describe('Redis layout', () => {
    void it('stores exactly the known fields', async () => {
      await tracker.put({ ...order(), extra: 'dropped' } as TrackedOrder);
      const raw = await redis.hget(tracker.liveKey(PAIR), '1000');
      assert.ok(raw !== null);
      assert.equal((JSON.parse(raw) as Record<string, unknown>).extra, undefined);
    });

    void it('caps the done-refs and the history alike', async () => {
      const small = new RedisOrderTracker({ redis, prefix, historyLimit: 3 });
      closers.push(() => small.close());
      for (let userref = 1; userref <= 5; userref++) {
        await small.put(
          order({ userref, txid: `T${userref}`, state: 'filled', updatedAtMs: userref }),
        );
      }
      assert.equal(await redis.zcard(small.doneRefsKey(PAIR)), 3);
      assert.equal(await redis.llen(small.historyKey(PAIR)), 3);
    });

    void it('refuses a prefix with a space', () => {
      assert.throws(
        () => new RedisOrderTracker({ redis, prefix: 'has space' }),
        (err) => err instanceof InvalidInputError && err.field === 'prefix',
      );
    });
  });

  void describe('transactions', () => {
    void it('settle: every closed order of a sync in one transaction, none for views adding nothing', async () => {
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
      const own = new RedisOrderTracker({ redis: conn, prefix });
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
        fills.map((f) => f.txid),
        ['OA-1', 'OA-3'],
        'the undecodable entry was not in the way',
      );

      // Settled again, the same views add nothing.
      assert.deepEqual(
        await own.settle([executed(a, '0.004', '200', '0.32', 'canceled')], 8_000),
        [],
      );
      assert.equal((await own.position(PAIR)).fills, 2);
      assert.deepEqual(await own.settle([], 8_000), []);
      assert.equal(transactions, 1, 'nothing written for views that add nothing, nor for none');
    });

    void it('concurrent applyView of one view from two trackers records exactly one fill', async () => {
      const otherRedis = new Redis(REDIS_URL);
      const other = new RedisOrderTracker({ redis: otherRedis, prefix });
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

  void describe('failures', () => {
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
      const broken = new RedisOrderTracker({ redis: dead, prefix });
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
