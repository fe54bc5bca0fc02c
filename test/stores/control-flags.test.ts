import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { ManualClock, promised } from '../../src/core/index.js';
import { MemoryControlFlags, RedisControlFlags } from '../../src/bus/index.js';
import { REDIS_URL, deleteKeys, freshPrefix } from '../support/redis.js';
import { controlFlagsContract } from './control-flags.contract.js';

controlFlagsContract('RedisControlFlags', () =>
  promised(() => {
    const prefix = freshPrefix();
    const clock = new ManualClock();
    const flags = new RedisControlFlags({ connection: REDIS_URL, prefix, clock });
    // "Another process": its own connection, same prefix.
    const other = new RedisControlFlags({ connection: REDIS_URL, prefix, clock });
    return {
      flags,
      other,
      clock,
      elapse: async (ms) => {
        await clock.advance(ms);
        await sleep(ms);
      },
      close: async () => {
        await flags.close();
        await other.close();
        const admin = new Redis(REDIS_URL);
        await deleteKeys(admin, prefix);
        await admin.quit();
      },
    };
  }),
);

controlFlagsContract('MemoryControlFlags', () =>
  promised(() => {
    const clock = new ManualClock();
    const flags = new MemoryControlFlags(clock);
    return {
      flags,
      other: flags,
      clock,
      elapse: (ms) => clock.advance(ms),
      close: () => flags.close(),
    };
  }),
);
