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

void describe('IntentBus', () => {
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

  void it('publishing two slots leaves one waiting job for the pair and both intents pending', async () => {
    const result = await bus.publish([
      intent({ slot: 'ask:0', desired: ask('50010') }),
      intent({ slot: 'bid:0', desired: bid('49990') }),
    ]);
    assert.deepEqual(
      result.published.map((i) => [i.slot, i.generation]),
      [
        ['ask:0', 1],
        ['bid:0', 1],
      ],
    );
    assert.equal(result.coalesced, 0);
    assert.deepEqual(result.byPair, { [PAIR]: { published: 2, coalesced: 0 } });

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

    // Bids first, whatever the publish order.
    assert.deepEqual(prices(await bus.pending(PAIR)), ['bid:0@49990#1', 'ask:0@50010#1']);
    assert.deepEqual(await bus.pairsWithPending(), [PAIR]);
  });

  void it('a newer intent for a slot replaces the pending one without another job', async () => {
    await bus.publish([intent({ slot: 'bid:0', desired: bid('49990') })]);
    const again = await bus.publish([intent({ slot: 'bid:0', desired: bid('49995') })]);
    assert.equal(again.coalesced, 1);
    assert.deepEqual(again.byPair, { [PAIR]: { published: 1, coalesced: 1 } });
    assert.equal(again.published[0]?.generation, 2);
    assert.equal((await counts()).waiting, 1);
    assert.deepEqual(prices(await bus.pending(PAIR)), ['bid:0@49995#2']);
  });

  void it('generations keep rising after the register is emptied', async () => {
    await bus.publish([intent({ slot: 'bid:0' }), intent({ slot: 'bid:10' })]);
    await bus.publish([intent({ slot: 'bid:2' }), intent({ slot: 'bid:0', desired: bid('1') })]);
    const pending = await bus.pending(PAIR);
    assert.deepEqual(prices(pending), ['bid:0@1#2', 'bid:2@50000.0#1', 'bid:10@50000.0#1']);
    const taken = await bus.takeSlots(PAIR, pending);
    assert.deepEqual(taken, pending);
    assert.deepEqual(await bus.pending(PAIR), []);
    assert.deepEqual(await bus.pairsWithPending(), []);

    const next = await bus.publish([intent({ slot: 'bid:0' })]);
    assert.equal(next.published[0]?.generation, 3);
    assert.equal(next.coalesced, 0, 'a taken intent is not coalesced away');
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

  void it('an amend and a cancel come back exactly as published, targets included', async () => {
    const target = {
      txid: 'OABCDE-FGHIJ-KLMNOP',
      userref: 16_777_217,
      price: '49990',
      volume: '0.02',
      volumeExecuted: '0.005',
      openedAtMs: 1_700_000_000_123,
    };
    const { published } = await bus.publish([
      intent({ slot: 'bid:0', action: 'amend', target, reason: 'moved', ordersAsOfMs: 1_700 }),
      intent({ slot: 'bid:1', depthSeen: { asOfMs: 1_800, prices: ['49990', '49980.5'] } }),
      intent({
        slot: 'ask:0',
        action: 'cancel',
        desired: undefined,
        target,
        reason: 'pulled:stale',
      }),
    ]);
    const intents = await bus.pending(PAIR);
    assert.deepEqual(intents, [published[0], published[1], published[2]]);
    assert.equal(intents[2]?.desired, undefined);
    assert.equal(intents[0]?.ordersAsOfMs, 1_700);
    assert.equal('ordersAsOfMs' in (intents[2] ?? {}), false);
    assert.deepEqual(intents[1]?.depthSeen, { asOfMs: 1_800, prices: ['49990', '49980.5'] });
  });

  void it('publishes only the known fields: a stray one and a caller’s generation are dropped', async () => {
    const input = { ...intent({ slot: 'bid:0' }), generation: 99, note: 'not for Redis' };
    const { published } = await bus.publish([input]);
    const intents = await bus.pending(PAIR);
    assert.equal(intents.length, 1);
    assert.notEqual(intents[0]?.generation, 99);
    assert.equal(intents[0]?.generation, published[0]?.generation);
    assert.equal('note' in (published[0] ?? {}), false);
    assert.equal('note' in (intents[0] ?? {}), false);
  });

  void it('keeps its own copy of a Depth price list, checked as published', async () => {
    const list = ['49990', '49980.5'];
    const { published } = await bus.publish([
      intent({ slot: 'bid:0', depthSeen: { asOfMs: 1, prices: list } }),
    ]);
    list[0] = 'changed after the publish';
    assert.deepEqual(published[0]?.depthSeen?.prices, ['49990', '49980.5']);
    assert.deepEqual((await bus.pending(PAIR))[0]?.depthSeen?.prices, ['49990', '49980.5']);
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
    const result = await bus.publish([
      intent({ pair: 'XETHZUSD' }),
      intent({ pair: PAIR }),
      intent({ pair: 'XETHZUSD', slot: 'ask:0', desired: ask('3000') }),
    ]);
    assert.deepEqual(result.byPair, {
      XETHZUSD: { published: 2, coalesced: 0 },
      [PAIR]: { published: 1, coalesced: 0 },
    });
    assert.deepEqual(
      result.published.map((i) => i.pair),
      ['XETHZUSD', PAIR, 'XETHZUSD'],
    );
    assert.deepEqual(await bus.pairsWithPending(), ['XETHZUSD', PAIR]);
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

  void it('takeSlots removes only the generations it names; newer publishes stay pending', async () => {
    const first = await bus.publish([
      intent({ slot: 'bid:0', desired: bid('100') }),
      intent({ slot: 'ask:0', desired: ask('110') }),
    ]);
    await bus.publish([intent({ slot: 'bid:0', desired: bid('101') })]);
    const picks = first.published.map((i) => ({ slot: i.slot, generation: i.generation }));
    const taken = await bus.takeSlots(PAIR, picks);
    assert.deepEqual(prices(taken), ['ask:0@110#1'], 'bid:0#1 was replaced by #2 meanwhile');
    assert.deepEqual(prices(await bus.pending(PAIR)), ['bid:0@101#2']);
    assert.deepEqual(await bus.pairsWithPending(), [PAIR]);
    assert.deepEqual(prices(await bus.takeSlots(PAIR, [{ slot: 'bid:0', generation: 2 }])), [
      'bid:0@101#2',
    ]);
    assert.deepEqual(await bus.pairsWithPending(), [], 'an empty register leaves the pair set');
  });

  void it('restore puts a taken intent back only while its slot is empty and it is the latest', async () => {
    await bus.publish([
      intent({ slot: 'bid:0', desired: bid('49990') }),
      intent({ slot: 'bid:1', desired: bid('49980') }),
    ]);
    const taken = await bus.takeSlots(PAIR, [
      { slot: 'bid:0', generation: 1 },
      { slot: 'bid:1', generation: 1 },
    ]);
    // bid:1 was published again meanwhile: the newer one stays, the old one is not revived.
    await bus.publish([intent({ slot: 'bid:1', desired: bid('49970') })]);
    assert.deepEqual(await bus.restore(PAIR, taken), ['bid:0']);
    assert.deepEqual(prices(await bus.pending(PAIR)), ['bid:0@49990#1', 'bid:1@49970#2']);
    assert.equal((await counts()).waiting, 1, 'a job drains what was put back');
    // Taken and superseded by a newer generation that was taken too: not revived either.
    const again = await bus.takeSlots(PAIR, [{ slot: 'bid:1', generation: 2 }]);
    assert.deepEqual(await bus.restore(PAIR, taken.slice(1)), []);
    assert.deepEqual(await bus.restore(PAIR, again), ['bid:1']);
    assert.deepEqual(prices(await bus.pending(PAIR)), ['bid:0@49990#1', 'bid:1@49970#2']);
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

  void it('refuses invalid input before writing anything, naming the field', async () => {
    await assert.rejects(
      bus.publish([intent(), intent({ slot: 'ask:1' }), intent({ slot: 'mid:0' })]),
      (err: unknown) => {
        assert.ok(err instanceof InvalidInputError);
        assert.equal(err.field, 'intents[2].slot');
        assert.match(err.message, /^intents\[2\]\.slot: expected bid:N or ask:N/);
        return true;
      },
    );
    await assert.rejects(bus.publish([intent({ pair: '' })]), { field: 'intents[0].pair' });
    await assert.rejects(bus.publish([intent({ slot: '' })]), { field: 'intents[0].slot' });
    await assert.rejects(bus.publish([intent({ ordersAsOfMs: Number.NaN })]), {
      field: 'intents[0].ordersAsOfMs',
    });
    await assert.rejects(
      bus.publish([intent({ depthSeen: { asOfMs: 1, prices: ['49990', 'x'] } })]),
      { field: 'intents[0].depthSeen.prices', message: /\[1\] must be a decimal string/ },
    );
    await assert.rejects(bus.publish([intent({ action: 'amend' })]), {
      message: 'intents[0].target: is required for action amend',
    });
    assert.deepEqual(await bus.pending(PAIR), []);
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
