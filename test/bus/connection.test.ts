import assert from 'node:assert/strict';
import { setImmediate as turn } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { holdWritesForTurn, issueAfterHold } from '../../src/bus/index.js';
import { REDIS_URL, deleteKeys, freshPrefix } from './support.js';

void describe('holdWritesForTurn and issueAfterHold', () => {
  let redis: Redis;
  let prefix: string;
  before(async () => {
    redis = new Redis(REDIS_URL);
    await redis.ping();
    prefix = freshPrefix();
  });
  after(async () => {
    await deleteKeys(redis, prefix);
    await redis.quit();
  });

  /** Counts what reaches the connection's socket. */
  const countWrites = (): { writes: number; stop: () => void } => {
    const stream = redis.stream as unknown as {
      _write: (...a: unknown[]) => void;
      _writev?: (...a: unknown[]) => void;
    };
    const seen = { writes: 0, stop: () => undefined as void };
    const write = stream._write;
    const writev = stream._writev;
    stream._write = (...a: unknown[]) => {
      seen.writes += 1;
      write.apply(stream, a);
    };
    if (writev !== undefined) {
      stream._writev = (...a: unknown[]) => {
        seen.writes += 1;
        writev.apply(stream, a);
      };
    }
    seen.stop = () => {
      stream._write = write;
      if (writev !== undefined) stream._writev = writev;
    };
    return seen;
  };

  void it('while held, commands and deferred work are issued when the hold ends, in call order, in one write', async () => {
    const key = `${prefix}:order`;
    const writes = countWrites();
    let built = false;
    try {
      holdWritesForTurn(redis);
      const first = redis.set(key, 'a');
      const deferred = issueAfterHold(redis, () => {
        built = true;
        return redis.append(key, 'b');
      });
      // Read back on the same connection: it sees the deferred append, as it was called first.
      const read = redis.get(key);
      assert.equal(built, false, 'deferred work waits for the hold to end');
      await turn();
      assert.equal(built, false, 'still held after one check phase');
      assert.equal(writes.writes, 0, 'nothing written while held');
      assert.equal(await first, 'OK');
      assert.equal(await deferred, 2);
      assert.equal(await read, 'ab');
      assert.equal(built, true);
      assert.equal(writes.writes, 1, 'the three commands left in one write');
    } finally {
      writes.stop();
    }
  });

  void it('with no hold on, deferred work runs at once', async () => {
    const key = `${prefix}:now`;
    let built = false;
    const done = issueAfterHold(redis, () => {
      built = true;
      return redis.set(key, 'x');
    });
    assert.equal(built, true);
    assert.equal(await done, 'OK');
  });

  void it('deferred work that throws rejects its promise, and the rest still goes', async () => {
    const key = `${prefix}:throws`;
    holdWritesForTurn(redis);
    const failed = issueAfterHold(redis, () => {
      throw new Error('bad input');
    });
    const after = redis.set(key, 'still');
    await assert.rejects(failed, /bad input/);
    assert.equal(await after, 'OK');
  });

  void it('a command whose sending throws when the hold ends is rejected; the others still go', async () => {
    const key = `${prefix}:throwing-send`;
    // A sendCommand of the connection's own that throws for GETDEL, put back after the hold.
    const original = redis.sendCommand.bind(redis);
    const throwing: Redis['sendCommand'] = (...args) => {
      if (args[0].name === 'getdel') throw new Error('cannot send');
      return original(...args);
    };
    redis.sendCommand = throwing;
    try {
      holdWritesForTurn(redis);
      const before = redis.set(key, 'kept');
      const failed = redis.getdel(key);
      const after = redis.get(key);
      await assert.rejects(failed, /cannot send/);
      assert.equal(await before, 'OK');
      assert.equal(await after, 'kept', 'sent after the one that failed');
      assert.equal(
        Object.getOwnPropertyDescriptor(redis, 'sendCommand')?.value,
        throwing,
        "the connection's own sendCommand is put back",
      );
    } finally {
      Reflect.deleteProperty(redis, 'sendCommand');
    }
    assert.equal(await redis.get(key), 'kept');
  });
});
