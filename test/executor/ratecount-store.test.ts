import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { MATCHING_ENGINE } from '../../src/exchange/limits/index.js';
import { RedisRatecountStore } from '../../src/executor/index.js';
import { REDIS_URL } from '../support/redis.js';

const PAIR = 'XXBTZUSD';
/** starter: max 60, 1 point a second. */
const LIMITS = MATCHING_ENGINE.starter;
const T0 = 1_800_000_000_000;

void describe('RatecountStore', () => {
  let redis: Redis;
  const bases: string[] = [];
  const store = (): RedisRatecountStore => {
    const base = `makerd-test:ratecount:${randomUUID()}`;
    bases.push(base);
    return new RedisRatecountStore(redis, base, LIMITS);
  };
  before(() => {
    redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  });
  after(async () => {
    for (const b of bases) await redis.del(`${b}:${PAIR}`);
    await redis.quit();
  });

  void it('goes on from its own level, decayed, when Redis lost the state; a new store starts at 0', async () => {
    const base = `makerd-test:ratecount:${randomUUID()}`;
    bases.push(base);
    const seeded: [string, number][] = [];
    const s = new RedisRatecountStore(redis, base, LIMITS, (pair, level) =>
      seeded.push([pair, level]),
    );
    assert.equal((await s.add(PAIR, 50, T0)).level, 50);
    await redis.del(`${base}:${PAIR}`);
    // Ten seconds later the exchange's counter has decayed to 40; the model must not say 0.
    assert.deepEqual(await s.reserve(PAIR, 10, 58, T0 + 10_000), {
      ok: true,
      level: 50,
      waitMs: 0,
    });
    assert.deepEqual(seeded, [[PAIR, 50]]);
    assert.equal((await s.level(PAIR, T0 + 10_000)).level, 50, 'stored again in Redis');
    assert.equal(seeded.length, 1, 'told once');
    const fresh = new RedisRatecountStore(redis, `makerd-test:ratecount:${randomUUID()}`, LIMITS);
    assert.equal((await fresh.level(PAIR, T0)).level, 0);
  });

  void it('reserves within the limit, and says how long a refused reserve must wait', async () => {
    const s = store();
    assert.deepEqual(await s.reserve(PAIR, 50, 58, T0), { ok: true, level: 50, waitMs: 0 });
    // 50 + 10 > 58: two points must decay first, two seconds on starter.
    assert.deepEqual(await s.reserve(PAIR, 10, 58, T0), { ok: false, level: 50, waitMs: 2_000 });
    assert.deepEqual(await s.reserve(PAIR, 10, 58, T0 + 2_000), {
      ok: true,
      level: 58,
      waitMs: 0,
    });
  });

  void it('decays by the tier rate when read', async () => {
    const s = store();
    await s.add(PAIR, 20, T0);
    assert.equal((await s.level(PAIR, T0 + 5_500)).level, 14.5);
    assert.equal((await s.level(PAIR, T0 + 60_000)).level, 0);
    // A read at an earlier time than the last write does not undo decay already counted.
    assert.equal((await s.level(PAIR, T0)).level, 20);
  });

  void it('adds whatever the level, fills to the max, and gives points back', async () => {
    const s = store();
    await s.add(PAIR, 55, T0);
    assert.equal((await s.add(PAIR, 10, T0)).level, 65, 'a batch cancel over the max counts');
    assert.equal((await s.refund(PAIR, 10, T0)).level, 55);
    assert.equal((await s.fill(PAIR, T0)).level, LIMITS.max);
    assert.equal((await s.refund(PAIR, 100, T0)).level, 0, 'never below zero');
  });

  void it('is shared: a reserve sees what another process added', async () => {
    const a = store();
    const b = new RedisRatecountStore(redis, a.key(PAIR).slice(0, -PAIR.length - 1), LIMITS);
    await b.add(PAIR, 57, T0);
    const refused = await a.reserve(PAIR, 2, 58, T0);
    assert.equal(refused.ok, false);
    assert.equal(refused.waitMs, 1_000);
  });
});
