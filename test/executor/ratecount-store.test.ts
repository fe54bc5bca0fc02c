import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { holdWritesForTurn, issueAfterHold } from '../../src/bus/index.js';
import { MATCHING_ENGINE } from '../../src/exchange/limits/index.js';
import { RatecountStore } from '../../src/executor/index.js';
import { REDIS_URL } from '../support/redis.js';

const PAIR = 'XXBTZUSD';
const LIMITS = MATCHING_ENGINE.starter;
const T0 = 1_800_000_000_000;

void describe('RatecountStore', () => {
  let redis: Redis;
  const bases: string[] = [];
  const base = (): string => {
    const b = `makerd-test:ratecount:${randomUUID()}`;
    bases.push(b);
    return b;
  };
  before(() => {
    redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  });
  after(async () => {
    for (const b of bases) await redis.del(`${b}:${PAIR}`);
    await redis.quit();
  });

  void it('counts an add in the level it knows at once, before Redis answers, and Redis follows', async () => {
    const store = new RatecountStore(redis, base(), LIMITS);
    assert.equal(await store.claim(PAIR, T0), 0);
    const first = store.add(PAIR, 6, T0);
    const second = store.add(PAIR, 1, T0);
    assert.equal(store.estimate(PAIR, T0), 7, 'both counted before either reply');
    // The first reply (level 6) comes while the second is on its way: it does not undo it.
    assert.equal((await first).level, 6);
    assert.equal(store.estimate(PAIR, T0), 7);
    assert.equal((await second).level, 7);
    const b = store.key(PAIR).slice(0, -PAIR.length - 1);
    assert.equal(await new RatecountStore(redis, b, LIMITS).level(PAIR, T0), 7, 'Redis holds it');
    // Decay, in whole milliseconds as the script counts it.
    assert.equal(store.estimate(PAIR, T0 + 2_000), 7 - 2 * LIMITS.decayPerSec);
  });

  void it('an add sent when a hold ends and a refund asked for meanwhile: Redis and the level known agree', async () => {
    const store = new RatecountStore(redis, base(), LIMITS);
    await store.claim(PAIR, T0);
    holdWritesForTurn(redis);
    const added = store.add(PAIR, 10, T0, (send) => issueAfterHold(redis, send));
    const refunded = store.refund(PAIR, 4, T0);
    assert.equal(store.estimate(PAIR, T0), 6, 'both counted at once');
    // Redis runs the add first (it was asked for first), so the refund is not lost to a floor of 0.
    assert.equal((await added).level, 10);
    assert.equal((await refunded).level, 6);
    assert.equal(store.estimate(PAIR, T0), 6);
    assert.equal(await store.level(PAIR, T0), 6);
  });

  void it('gives points back and fills at once too', async () => {
    const store = new RatecountStore(redis, base(), LIMITS);
    await store.claim(PAIR, T0);
    void store.add(PAIR, 10, T0);
    void store.refund(PAIR, 4, T0);
    assert.equal(store.estimate(PAIR, T0), 6);
    const filled = store.fill(PAIR, T0);
    assert.equal(store.estimate(PAIR, T0), LIMITS.max);
    assert.equal((await filled).level, LIMITS.max);
  });

  void it('notices another writer at its next write, and stays off the fast path for a while', async () => {
    const b = base();
    const mine = new RatecountStore(redis, b, LIMITS);
    const theirs = new RatecountStore(redis, b, LIMITS);
    const reader = new RatecountStore(redis, b, LIMITS);
    await mine.claim(PAIR, T0);
    await mine.add(PAIR, 1, T0);
    assert.ok(mine.sole(PAIR, T0));
    // A reader (makerd status) is no writer.
    await reader.level(PAIR, T0);
    await mine.add(PAIR, 1, T0);
    assert.ok(mine.sole(PAIR, T0), 'a read does not count as another writer');

    await theirs.add(PAIR, 5, T0);
    assert.ok(mine.sole(PAIR, T0), 'not seen before its own next write');
    const reply = await mine.add(PAIR, 1, T0 + 10);
    assert.equal(reply.level, 8 - (10 * LIMITS.decayPerSec) / 1000);
    assert.equal(mine.sole(PAIR, T0 + 10), false);
    assert.equal(mine.sole(PAIR, T0 + 10 + 10 * 60_000), true, 'after ten minutes without');
  });

  void it('takes a pair over with claim(): the former holder\u2019s writes are no other writer', async () => {
    const b = base();
    const former = new RatecountStore(redis, b, LIMITS);
    await former.claim(PAIR, T0);
    await former.add(PAIR, 3, T0);
    const holder = new RatecountStore(redis, b, LIMITS);
    assert.equal(holder.estimate(PAIR, T0), undefined);
    assert.equal(await holder.claim(PAIR, T0), 3, 'the level is read when the lease is taken');
    assert.equal(holder.estimate(PAIR, T0), 3);
    await holder.add(PAIR, 1, T0);
    assert.ok(holder.sole(PAIR, T0));
  });
});
