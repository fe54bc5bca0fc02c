import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { deleteKeysUnder } from '../../src/bus/index.js';
import { freshPrefix, REDIS_URL } from '../support/redis.js';

describe('deleteKeysUnder', () => {
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  after(() => redis.disconnect());

  it("deletes every key of the namespace, over several SCAN pages, and nothing of another's", async () => {
    const prefix = freshPrefix();
    const neighbour = `${prefix}x`;
    const keys = Array.from({ length: 1_200 }, (_, i) => `${prefix}:k${i}`);
    await redis.mset(Object.fromEntries([...keys, `${neighbour}:kept`].map((k) => [k, '1'])));
    await deleteKeysUnder(redis, prefix);
    assert.equal(await redis.exists(...keys), 0);
    assert.equal(await redis.get(`${neighbour}:kept`), '1');
    await redis.del(`${neighbour}:kept`);
  });
});
