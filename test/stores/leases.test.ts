import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { ManualClock, promised } from '../../src/core/index.js';
import { MemoryLeases, RedisLeases } from '../../src/executor/index.js';
import { REDIS_URL, deleteKeys, freshPrefix } from '../support/redis.js';
import { leasesContract } from './leases.contract.js';

leasesContract('RedisLeases', () =>
  promised(() => {
    const redis = new Redis(REDIS_URL);
    const prefix = freshPrefix();
    const clock = new ManualClock();
    return {
      leases: new RedisLeases(redis, prefix, clock),
      clock,
      elapse: async (ms) => {
        await clock.advance(ms);
        // Redis expires the keys in its own real time.
        await sleep(ms);
      },
      close: async () => {
        await deleteKeys(redis, prefix);
        await redis.quit();
      },
    };
  }),
);

leasesContract('MemoryLeases', () =>
  promised(() => {
    const clock = new ManualClock();
    return {
      leases: new MemoryLeases('makerd-test', clock),
      clock,
      elapse: (ms) => clock.advance(ms),
      close: () => Promise.resolve(),
    };
  }),
);
