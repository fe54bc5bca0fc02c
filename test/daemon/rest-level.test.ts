import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { carryRestLevel, restLevelKeyFor } from '../../src/daemon/rest-level.js';
import { ManualClock } from '../../src/core/index.js';
import { RestLimiter } from '../../src/exchange/index.js';
import { REDIS_URL } from '../support/redis.js';

void describe('the REST counter level across a restart', () => {
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  const apiKey = `test-${randomUUID()}`;
  after(async () => {
    await redis.del(restLevelKeyFor(apiKey));
    await redis.quit();
  });

  void it('starts a new process from what the last one left, decayed, not from zero', async () => {
    const clock = new ManualClock(1_800_000_000_000);
    const first = new RestLimiter({ tier: 'starter', clock });
    const carried = await carryRestLevel(redis, apiKey, first, clock, undefined, 0.33);
    for (let i = 0; i < 12; i++) await first.acquire(1);
    await clock.advance(1_000);
    // Killed: no close(), only the write of the last second.
    const stored = JSON.parse((await redis.get(restLevelKeyFor(apiKey))) ?? '{}') as {
      level: number;
    };
    assert.ok(Math.abs(stored.level - (12 - 0.33)) < 0.01, `stored ${stored.level}`);
    assert.ok(!JSON.stringify(stored).includes(apiKey), 'the API key is not stored');

    await clock.advance(3_000);
    const second = new RestLimiter({ tier: 'starter', clock });
    const next = await carryRestLevel(redis, apiKey, second, clock, undefined, 0.33);
    // 12 points, 4 s of 0.33/s decay since the calls.
    assert.ok(Math.abs(second.snapshot().level - (12 - 4 * 0.33)) < 0.01);
    await next.close();
    await carried.close();
  });

  void it('writes only after calls: an idle level is left as stored, and still decays', async () => {
    const clock = new ManualClock(1_900_000_000_000);
    const limiter = new RestLimiter({ tier: 'starter', clock });
    const carried = await carryRestLevel(redis, apiKey, limiter, clock, undefined, 0.33);
    for (let i = 0; i < 6; i++) await limiter.acquire(1);
    await clock.advance(1_000);
    const written = await redis.get(restLevelKeyFor(apiKey));
    await clock.advance(5_000);
    assert.equal(await redis.get(restLevelKeyFor(apiKey)), written, 'no call, no write');
    await limiter.acquire(1);
    await clock.advance(1_000);
    const after = JSON.parse((await redis.get(restLevelKeyFor(apiKey))) ?? '{}') as {
      level: number;
    };
    // 6 points decayed for 7 s, then one more decayed for 1 s.
    assert.ok(Math.abs(after.level - (6 - 7 * 0.33 + 1)) < 0.01, `stored ${after.level}`);

    await clock.advance(4_000);
    const next = new RestLimiter({ tier: 'starter', clock });
    const restarted = await carryRestLevel(redis, apiKey, next, clock, undefined, 0.33);
    assert.ok(Math.abs(next.snapshot().level - (6 - 11 * 0.33 + 1)) < 0.01);
    await restarted.close();
    await carried.close();
  });
});
