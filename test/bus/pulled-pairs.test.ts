import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { PulledPairs } from '../../src/bus/index.js';
import { REDIS_URL, deleteKeys, freshPrefix } from '../support/redis.js';

void describe('pulled pairs', () => {
  const redis = new Redis(REDIS_URL);
  const prefix = freshPrefix();
  after(async () => {
    await deleteKeys(redis, prefix);
    redis.disconnect();
  });

  it('one process pulls a pair, another sees it on its next read, and a restore lifts it', async () => {
    const consoleSide = new PulledPairs(redis, prefix);
    const runnerSide = new PulledPairs(redis, prefix);
    await runnerSide.read();
    assert.equal(runnerSide.has('ETHUSD'), false);
    const state = { by: 'operator:console (alice)', reason: 'news', sinceMs: 1_700_000_000_000 };
    assert.equal(await consoleSide.pull('ETHUSD', state), true);
    assert.equal(await consoleSide.pull('ETHUSD', { ...state, reason: 'again' }), false);
    assert.equal(runnerSide.has('ETHUSD'), false, 'cached until read');
    await runnerSide.read();
    assert.deepEqual(runnerSide.current().get('ETHUSD'), state, 'the first reason stays');
    assert.equal(runnerSide.has('XBTUSD'), false);
    assert.equal(await consoleSide.restore('ETHUSD'), true);
    assert.equal(await consoleSide.restore('ETHUSD'), false);
    await runnerSide.read();
    assert.equal(runnerSide.has('ETHUSD'), false);
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
