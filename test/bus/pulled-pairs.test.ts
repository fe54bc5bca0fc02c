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

  it('tells subscribers of a pull and a restore, not of a repeat', async () => {
    const sub = redis.duplicate();
    const pulled = new PulledPairs(redis, prefix);
    const heard: string[] = [];
    sub.on('message', (_channel: string, altname: string) => heard.push(altname));
    await sub.subscribe(pulled.changesChannel);
    const state = { by: 'operator', reason: 'news', sinceMs: 1 };
    await pulled.pull('XBTUSD', state);
    await pulled.pull('XBTUSD', state);
    await pulled.restore('XBTUSD');
    await pulled.restore('XBTUSD');
    await pulled.pull('ETHUSD', state);
    const end = Date.now() + 5_000;
    while (heard.length < 3 && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
    assert.deepEqual(heard, ['XBTUSD', 'XBTUSD', 'ETHUSD']);
    await sub.quit();
  });

  it('counts a garbled entry as pulled, saying so', async () => {
    const pulled = new PulledPairs(redis, prefix);
    await redis.hset(pulled.key, 'XBTUSD', 'not json');
    await pulled.read();
    assert.equal(pulled.has('XBTUSD'), true);
    assert.match(pulled.current().get('XBTUSD')?.reason ?? '', /unreadable pull entry: not json/);
  });
});
