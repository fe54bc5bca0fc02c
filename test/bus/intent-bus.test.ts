import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { InvalidInputError, type OrderIntent } from '../../src/core/index.js';
import { BusError, RedisIntentBus, type IntentJobData } from '../../src/bus/index.js';
import { PAIR, REDIS_URL, deferred, deleteKeys, freshPrefix, intent, waitFor } from './support.js';

const bid = (price: string) => ({ side: 'buy' as const, price, volume: '0.01', postOnly: true });
const ask = (price: string) => ({ side: 'sell' as const, price, volume: '0.01', postOnly: true });
const prices = (intents: readonly OrderIntent[]) =>
  intents.map((i) => `${i.slot}@${i.desired?.price ?? '-'}#${i.generation}`);

/**
 * What only the Redis bus has: BullMQ's jobs, publishers on two connections, values in Redis it did
 * not write. The register's contract and the in-process wake-ups are in test/stores.
 */
void describe('RedisIntentBus', () => {
  let prefix: string;
  let admin: Redis;
  let bus: RedisIntentBus;
  const closers: Array<() => Promise<unknown>> = [];

  beforeEach(() => {
    prefix = freshPrefix();
    admin = new Redis(REDIS_URL);
    bus = new RedisIntentBus({ connection: REDIS_URL, prefix });
  });

  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
    await bus.queueFor(PAIR).obliterate({ force: true });
    await bus.close();
    await deleteKeys(admin, prefix);
    await admin.quit();
  });

  const counts = () =>
    bus
      .queueFor(PAIR)
      .getJobCounts('waiting', 'active', 'delayed', 'prioritized', 'completed', 'failed');

  void it('publishing two slots leaves one waiting job for the pair', async () => {
    await bus.publish([
      intent({ slot: 'ask:0', desired: ask('50010') }),
      intent({ slot: 'bid:0', desired: bid('49990') }),
    ]);
    assert.deepEqual(await counts(), {
      waiting: 1,
      active: 0,
      delayed: 0,
      prioritized: 0,
      paused: 0,
      completed: 0,
      failed: 0,
    });
    const [job] = await bus.queueFor(PAIR).getWaiting();
    assert.equal(job?.name, 'intents');
    assert.equal(job?.data.pair, PAIR);
  });

  void it('a newer intent for a slot adds no other job', async () => {
    await bus.publish([intent({ slot: 'bid:0', desired: bid('49990') })]);
    await bus.publish([intent({ slot: 'bid:0', desired: bid('49995') })]);
    assert.equal((await counts()).waiting, 1);
  });

  void it('intents published while a job is active run in exactly one follow-up job', async () => {
    const worker = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
    const taken: OrderIntent[][] = [];
    const firstActive = deferred();
    const release = deferred();
    const w = new Worker<IntentJobData>(
      bus.queueNameFor(PAIR),
      async (job) => {
        taken.push(await bus.takeSlots(job.data.pair, await bus.pending(job.data.pair)));
        if (taken.length === 1) {
          firstActive.resolve();
          await release.promise;
        }
      },
      { connection: worker, prefix: bus.bullPrefix },
    );
    closers.push(
      () => worker.quit(),
      () => w.close(),
    );

    await bus.publish([intent({ slot: 'bid:0', desired: bid('100') })]);
    await firstActive.promise;

    const second = await bus.publish([intent({ slot: 'bid:0', desired: bid('101') })]);
    const third = await bus.publish([
      intent({ slot: 'bid:0', desired: bid('102') }),
      intent({ slot: 'ask:1', desired: ask('110') }),
    ]);
    assert.equal(second.coalesced, 0);
    assert.equal(third.coalesced, 1, '101 was replaced by 102 before any job took it');
    // The follow-up is parked by BullMQ, not waiting: no second job can start for the pair.
    const during = await counts();
    assert.equal(during.active, 1);
    assert.deepEqual([during.waiting, during.prioritized, during.delayed], [0, 0, 0]);

    release.resolve();
    await waitFor(async () => (await counts()).completed === 2, 'two completed jobs');
    assert.equal(taken.length, 2);
    assert.deepEqual(prices(taken[0] ?? []), ['bid:0@100#1']);
    assert.deepEqual(prices(taken[1] ?? []), ['bid:0@102#3', 'ask:1@110#1']);
    assert.deepEqual(await counts(), {
      waiting: 0,
      active: 0,
      delayed: 0,
      prioritized: 0,
      paused: 0,
      completed: 2,
      failed: 0,
    });
    assert.deepEqual(await bus.pending(PAIR), []);
  });

  void it('a forced close returns at once, and the step’s job still completes: the next is not held', async () => {
    // Issue #42: a lease lost to a Redis stall force-closed the worker; BullMQ left its job active
    // and locked, and the pair's next job waited the lock out.
    const release = deferred();
    const running = deferred();
    const errors: string[] = [];
    // A Worker's connection must wait out Redis trouble (BullMQ insists), as the daemon's does.
    const connection = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
    const consuming = new RedisIntentBus({ connection, prefix });
    closers.push(
      () => connection.quit(),
      () => consuming.close(),
    );
    const consumer = consuming.consume(
      PAIR,
      async () => {
        running.resolve();
        await release.promise;
      },
      { lockDurationMs: 30_000, onError: (err, where) => errors.push(`${where}: ${err.message}`) },
    );
    await bus.enqueue(PAIR);
    await running.promise;
    await bus.enqueue(PAIR);
    await consumer.close(true);
    assert.equal((await counts()).active, 1, 'closed while the step still runs');
    release.resolve();
    await waitFor(async () => {
      const c = await counts();
      return c.completed === 1 && c.active === 0;
    }, 'the job completed');
    assert.equal((await counts()).waiting, 1, 'the next job free for the next consumer');
    assert.deepEqual(errors, []);
  });

  void it('two publishers racing on one slot get distinct generations; the highest wins', async () => {
    const other = new RedisIntentBus({ connection: REDIS_URL, prefix });
    closers.push(() => other.close());
    const rounds = 25;
    const results = await Promise.all(
      Array.from({ length: rounds * 2 }, (_, n) =>
        (n % 2 === 0 ? bus : other).publish([intent({ desired: bid(String(1000 + n)) })]),
      ),
    );
    const published = results.map((r) => r.published[0] as OrderIntent);
    const generations = published.map((i) => i.generation).sort((a, b) => a - b);
    assert.deepEqual(
      generations,
      Array.from({ length: rounds * 2 }, (_, i) => i + 1),
    );
    assert.equal(
      results.reduce((sum, r) => sum + r.coalesced, 0),
      rounds * 2 - 1,
    );

    const latest = published.find((i) => i.generation === rounds * 2);
    const intents = await bus.pending(PAIR);
    assert.equal(intents.length, 1);
    assert.equal(intents[0]?.generation, rounds * 2);
    assert.equal(intents[0]?.desired?.price, latest?.desired?.price);
    assert.equal((await counts()).waiting, 1, 'every publish after the first was deduplicated');
  });

  void it('publishes to several pairs at once, one job per pair', async () => {
    await bus.publish([
      intent({ pair: 'XETHZUSD' }),
      intent({ pair: PAIR }),
      intent({ pair: 'XETHZUSD', slot: 'ask:0', desired: ask('3000') }),
    ]);
    for (const pair of ['XETHZUSD', PAIR]) {
      const waiting = await bus.queueFor(pair).getWaiting();
      assert.deepEqual(
        waiting.map((j) => j.data.pair),
        [pair],
        `one job in ${bus.queueNameFor(pair)}`,
      );
    }
    await bus.queueFor('XETHZUSD').obliterate({ force: true });
  });

  void it('a restore adds the job that drains what was put back', async () => {
    await bus.publish([intent({ slot: 'bid:0', desired: bid('49990') })]);
    const taken = await bus.takeSlots(PAIR, [{ slot: 'bid:0', generation: 1 }]);
    await bus.queueFor(PAIR).obliterate({ force: true });
    assert.equal((await counts()).waiting, 0);
    assert.deepEqual(await bus.restore(PAIR, taken), ['bid:0']);
    assert.equal((await counts()).waiting, 1);
  });

  void it('a corrupt register entry fails pending with BUS_CORRUPT naming key and field', async () => {
    const key = bus.registerKey(PAIR);
    await admin.hset(key, 'bid:0', '{not json');
    await assert.rejects(bus.pending(PAIR), (err: unknown) => {
      assert.ok(err instanceof BusError);
      assert.equal(err.code, 'BUS_CORRUPT');
      assert.equal(err.field, 'bid:0');
      assert.match(err.message, new RegExp(`${key} field bid:0: not JSON`));
      return true;
    });
    // Removed anyway, so one bad entry cannot block the pair for good.
    assert.deepEqual(await bus.pending(PAIR), []);

    const good = (await bus.publish([intent()])).published[0];
    await admin.hset(
      key,
      'bid:0',
      JSON.stringify({ ...good, desired: { ...good?.desired, price: 5 } }),
    );
    await assert.rejects(bus.pending(PAIR), {
      code: 'BUS_CORRUPT',
      message: `Redis key ${key} field bid:0: desired.price must be a decimal string, got 5`,
    });
    await admin.hset(key, 'ask:3', JSON.stringify(good));
    await assert.rejects(bus.pending(PAIR), /field ask:3: holds the intent of XXBTZUSD bid:0/);
    assert.deepEqual(await bus.pending(PAIR), []);
  });

  void it('adds no job for refused input', async () => {
    await assert.rejects(bus.publish([intent(), intent({ slot: 'mid:0' })]), InvalidInputError);
    assert.equal((await counts()).waiting, 0);
  });

  void it('close leaves a connection it was given open', async () => {
    const shared = new Redis(REDIS_URL);
    closers.push(() => shared.quit());
    const borrowed = new RedisIntentBus({ connection: shared, prefix });
    await borrowed.publish([intent()]);
    await borrowed.close();
    assert.equal(await shared.ping(), 'PONG');
    assert.equal((await bus.pending(PAIR)).length, 1);
  });
});
