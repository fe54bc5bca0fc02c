import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { PulledPairs } from '../../src/bus/index.js';
import { REDIS_URL, deleteKeys, freshPrefix } from '../support/redis.js';

/** Redis-only: values it did not write. The contract is in test/stores. */
void describe('PulledPairs', () => {
  const redis = new Redis(REDIS_URL);
  const prefix = freshPrefix();
  after(async () => {
    await deleteKeys(redis, prefix);
    redis.disconnect();
  });

  it('counts a garbled entry as pulled, saying so', async () => {
    const pulled = new PulledPairs(redis, prefix);
    await redis.hset(pulled.key, 'XBTUSD', 'not json');
    await pulled.read();
    assert.equal(pulled.has('XBTUSD'), true);
    assert.match(pulled.current().get('XBTUSD')?.reason ?? '', /unreadable pull entry: not json/);
  });
});
