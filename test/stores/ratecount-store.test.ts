import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { promised } from '../../src/core/index.js';
import { MATCHING_ENGINE } from '../../src/exchange/limits/index.js';
import {
  MemoryRatecountStore,
  RedisRatecountStore,
  type RatecountStore,
} from '../../src/executor/index.js';
import { REDIS_URL } from '../support/redis.js';
import { T0, ratecountContract } from './ratecount-store.contract.js';

ratecountContract('RedisRatecountStore', () =>
  promised(() => {
    const redis = new Redis(REDIS_URL);
    const base = `makerd-test:ratecount:${randomUUID()}`;
    return {
      store: (limits) => new RedisRatecountStore(redis, base, limits),
      close: async () => {
        const keys = await redis.keys(`${base}:*`);
        if (keys.length > 0) await redis.del(...keys);
        await redis.quit();
      },
    };
  }),
);

ratecountContract('MemoryRatecountStore', () =>
  promised(() => {
    // One state per fixture: the stores of one process share one MemoryRatecountStore.
    let shared: MemoryRatecountStore | undefined;
    return {
      store: (limits) => {
        if (shared?.limits !== limits) shared = new MemoryRatecountStore(limits);
        return shared;
      },
      close: () => Promise.resolve(),
    };
  }),
);

void describe('RatecountStore: Redis and memory in lockstep', () => {
  let redis: Redis;
  const base = `makerd-test:ratecount:${randomUUID()}`;
  before(() => {
    redis = new Redis(REDIS_URL);
  });
  after(async () => {
    const keys = await redis.keys(`${base}:*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  void it('answers the same level, to the last digit, after every call of a long mixed run', async () => {
    for (const tier of ['starter', 'intermediate', 'pro'] as const) {
      const limits = MATCHING_ENGINE[tier];
      const live = new RedisRatecountStore(redis, `${base}:${tier}`, limits);
      const memory = new MemoryRatecountStore(limits);
      // A fixed pseudo-random walk (LCG): the same run every time.
      let seed = 42;
      const next = (n: number): number => {
        seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
        return seed % n;
      };
      let now = T0;
      for (let step = 0; step < 300; step++) {
        now += next(900) - 100; // sometimes back in time
        const points = next(40) / 4;
        const op = next(5);
        const call = (s: RatecountStore) =>
          op === 0
            ? s.level('P', now)
            : op === 1
              ? s.reserve('P', points, limits.max - 2, now)
              : op === 2
                ? s.add('P', points, now)
                : op === 3
                  ? s.refund('P', points, now)
                  : s.fill('P', now);
        assert.deepEqual(await call(memory), await call(live), `${tier} step ${step}`);
      }
    }
  });
});
