import { Redis } from 'ioredis';
import { promised } from '../../src/core/index.js';
import { MemoryPullList, PulledPairs } from '../../src/bus/index.js';
import { REDIS_URL, deleteKeys, freshPrefix } from '../support/redis.js';
import { pullListContract } from './pulled-pairs.contract.js';

pullListContract('PulledPairs (Redis)', () =>
  promised(() => {
    const redis = new Redis(REDIS_URL);
    const prefix = freshPrefix();
    return {
      list: new PulledPairs(redis, prefix),
      other: new PulledPairs(redis, prefix),
      close: async () => {
        await deleteKeys(redis, prefix);
        await redis.quit();
      },
    };
  }),
);

pullListContract('MemoryPullList', () =>
  promised(() => {
    const list = new MemoryPullList();
    return { list, other: list, close: () => Promise.resolve() };
  }),
);
