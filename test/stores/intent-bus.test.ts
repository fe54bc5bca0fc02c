import { Redis } from 'ioredis';
import { promised } from '../../src/core/index.js';
import { MemoryIntentBus, RedisIntentBus } from '../../src/bus/index.js';
import { ReplayBus } from '../../src/lab/replay/replay-bus.js';
import { REDIS_URL, deleteKeys, freshPrefix } from '../support/redis.js';
import { intentRegisterContract, wakeContract, type BusFixture } from './intent-bus.contract.js';

function onRedis(open: (prefix: string) => RedisIntentBus): () => Promise<BusFixture> {
  return () =>
    promised(() => {
      const prefix = freshPrefix();
      const bus = open(prefix);
      return {
        bus,
        close: async () => {
          await bus.close();
          const admin = new Redis(REDIS_URL);
          await deleteKeys(admin, prefix);
          await admin.quit();
        },
      };
    });
}

const memory = (): Promise<BusFixture> =>
  promised(() => ({ bus: new MemoryIntentBus('makerd-test'), close: () => Promise.resolve() }));

intentRegisterContract(
  'RedisIntentBus',
  onRedis((prefix) => new RedisIntentBus({ connection: REDIS_URL, prefix })),
);
intentRegisterContract('MemoryIntentBus', memory);
wakeContract('MemoryIntentBus', memory);
wakeContract(
  'ReplayBus',
  onRedis((prefix) => new ReplayBus({ connection: REDIS_URL, prefix })),
);
