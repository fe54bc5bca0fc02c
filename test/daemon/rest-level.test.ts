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
    const carried = await carryRestLevel(redis, apiKey, first, clock, undefined);
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
    const next = await carryRestLevel(redis, apiKey, second, clock, undefined);
    // 12 points, 4 s of 0.33/s decay since the calls.
    assert.ok(Math.abs(second.snapshot().level - (12 - 4 * 0.33)) < 0.01);
    await next.close();
    await carried.close();
  });
});
