import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { carryRestLevel, restLevelKeyFor } from '../../src/daemon/rest-level.js';
import { ManualClock } from '../../src/core/index.js';
import { RestLimiter } from '../../src/exchange/index.js';
import { REDIS_URL } from '../support/redis.js';

void describe('the REST counter level kept in Redis for the key', () => {
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  const keys: string[] = [];
  const freshKey = (): { apiKey: string; key: string } => {
    const apiKey = `test-${randomUUID()}`;
    keys.push(restLevelKeyFor(apiKey));
    return { apiKey, key: restLevelKeyFor(apiKey) };
  };
  const stored = async (key: string): Promise<{ level: number; atMs: number }> => {
    // The scripts went out on this connection before the PING: its answer means they ran.
    await redis.ping();
    return JSON.parse((await redis.get(key)) ?? '{}') as { level: number; atMs: number };
  };
  after(async () => {
    await redis.del(...keys);
    await redis.quit();
  });

  void it('a kill -9 right after a burst loses none of its points', async () => {
    const { apiKey, key } = freshKey();
    const clock = new ManualClock(1_800_000_000_000);
    const first = new RestLimiter({ tier: 'starter', clock });
    await carryRestLevel(redis, key, first, undefined);
    for (let i = 0; i < 12; i++) await first.acquire(1);
    // Killed at once: no close(), no timer ran.
    const left = await stored(key);
    assert.deepEqual(left, { level: 12, atMs: clock.now() });
    assert.ok(!JSON.stringify(left).includes(apiKey), 'the API key is not stored');

    await clock.advance(3_000);
    const second = new RestLimiter({ tier: 'starter', clock });
    const next = await carryRestLevel(redis, key, second, undefined);
    // 12 points, 3 s of 0.33/s decay since the calls.
    assert.ok(Math.abs(second.snapshot().level - (12 - 3 * 0.33)) < 0.001);
    next.close();
  });

  void it('two processes on the key: each one’s model counts the other’s calls', async () => {
    const { key } = freshKey();
    const clock = new ManualClock(1_850_000_000_000);
    const bot = new RestLimiter({ tier: 'starter', clock });
    const shell = new RestLimiter({ tier: 'starter', clock });
    const botLevel = await carryRestLevel(redis, key, bot, undefined);
    const shellLevel = await carryRestLevel(redis, key, shell, undefined);
    for (let i = 0; i < 10; i++) await bot.acquire(1);
    await stored(key);
    // The shell (makerd halt --config) started before the bot's calls; its next call adds to them.
    await shell.acquire(1);
    assert.deepEqual(await stored(key), { level: 11, atMs: clock.now() });
    assert.equal(shell.snapshot().level, 11, 'the shell counts the bot’s 10 points');
    await clock.advance(1_000);
    await bot.acquire(1);
    await redis.ping();
    // The bot's own 11 decayed 1 s would be 10.67; the key's level is one point more.
    assert.ok(Math.abs(bot.snapshot().level - (11 - 0.33 + 1)) < 0.002, `${bot.snapshot().level}`);
    botLevel.close();
    shellLevel.close();
  });

  void it('writes only when calls raise the level; a refusal stores a full counter', async () => {
    const { key } = freshKey();
    await redis.set(key, 'not a level');
    const clock = new ManualClock(1_900_000_000_000);
    const limiter = new RestLimiter({ tier: 'starter', clock });
    const carried = await carryRestLevel(redis, key, limiter, undefined);
    await limiter.acquire(1);
    const written = await stored(key);
    assert.deepEqual(written, { level: 1, atMs: clock.now() }, 'an unreadable value counts as 0');
    await clock.advance(2_000);
    assert.deepEqual(await stored(key), written, 'no call, no write');
    await limiter.acquire(2);
    // The first point, 2 s of 0.33/s decay later, and two more.
    const { level } = await stored(key);
    assert.ok(Math.abs(level - (1 - 2 * 0.33 + 2)) < 0.002, `stored ${level}`);

    limiter.onRateLimited();
    assert.deepEqual(await stored(key), { level: 15, atMs: clock.now() });
    carried.close();
    await clock.advance(60_000);
    await limiter.acquire(1);
    assert.equal((await stored(key)).level, 15, 'closed: no more writes');
  });
});
