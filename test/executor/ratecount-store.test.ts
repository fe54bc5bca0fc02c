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

/** Redis losing the state; what every ratecount store does is in test/stores. */
void describe('RedisRatecountStore', () => {
  let redis: Redis;
  const bases: string[] = [];
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
});
