import { Redis } from 'ioredis';
import { ManualClock, promised } from '../../src/core/index.js';
import { MemoryLeases, RedisLeases } from '../../src/executor/index.js';
import { MemoryOrderTracker, RedisOrderTracker } from '../../src/orders/index.js';
import { REDIS_URL, deleteKeys, freshPrefix } from '../support/redis.js';
import { orderTrackerContract } from './order-tracker.contract.js';

orderTrackerContract('RedisOrderTracker', (limits) =>
  promised(() => {
    const redis = new Redis(REDIS_URL);
    const prefix = freshPrefix();
    let tracker: RedisOrderTracker;
    try {
      tracker = new RedisOrderTracker({ redis, prefix, ...limits });
    } catch (err) {
      redis.disconnect();
      throw err;
    }
    return {
      tracker,
      leases: new RedisLeases(redis, prefix, new ManualClock()),
      close: async () => {
        await tracker.close();
        await deleteKeys(redis, prefix);
        await redis.quit();
      },
    };
  }),
);

orderTrackerContract('MemoryOrderTracker', (limits) =>
  promised(() => {
    const leases = new MemoryLeases('makerd-test', new ManualClock());
    const tracker = new MemoryOrderTracker({ fenceHolder: (key) => leases.holder(key), ...limits });
    return { tracker, leases, close: () => tracker.close() };
  }),
);
