import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { InvalidInputError, ManualClock, systemClock } from '../../src/core/index.js';
import { RedisControlFlags, type ControlFlags } from '../../src/bus/index.js';
import { REDIS_URL, deleteKeys, freshPrefix, waitFor } from './support.js';

const timers = (): number => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;

/** Redis-only: real timers, lost state, values it did not write. The contract is in test/stores. */
void describe('RedisControlFlags', () => {
  let prefix: string;
  let admin: Redis;
  let flags: ControlFlags;
  let other: ControlFlags;

  beforeEach(() => {
    prefix = freshPrefix();
    admin = new Redis(REDIS_URL);
    flags = new RedisControlFlags({ connection: REDIS_URL, prefix });
    // "Another process": its own connection, same prefix.
    other = new RedisControlFlags({ connection: REDIS_URL, prefix });
  });

  afterEach(async () => {
    await flags.close();
    await other.close();
    await deleteKeys(admin, prefix);
    await admin.quit();
  });

  void it('unwatch leaves no timer armed', async () => {
    const before = timers();
    await flags.watch(20, systemClock);
    await waitFor(() => timers() > before, 'the poll timer');
    await flags.unwatch();
    assert.equal(timers(), before);
    await assert.rejects(flags.watch(0), InvalidInputError);
  });

  void describe('Redis losing its state (restarted empty)', () => {
    const lost: { haltRestored: boolean }[] = [];
    let watcher: ControlFlags;
    beforeEach(() => {
      lost.length = 0;
      watcher = new RedisControlFlags({
        connection: REDIS_URL,
        prefix,
        clock: new ManualClock(5_000),
        onStateLost: (info) => lost.push(info),
      });
    });
    afterEach(async () => {
      await watcher.close();
    });

    void it('sets a known halt again, so a lost flag does not resume trading', async () => {
      await watcher.read();
      assert.equal(watcher.stateSinceMs, 5_000);
      await other.halt('max loss', 'supervisor', 1_000);
      await watcher.read();
      await deleteKeys(admin, prefix);
      const halted = { halted: true, reason: 'max loss', by: 'supervisor', sinceMs: 1_000 };
      assert.deepEqual(await watcher.read(), halted);
      assert.deepEqual(await other.read(), halted, 'the flag is in Redis again');
      assert.deepEqual(lost, [{ haltRestored: true }]);
      assert.ok(await admin.exists(`${prefix}:control:epoch`), 'a new epoch');
    });

    void it('says so once when not halted; a resume is not a loss', async () => {
      await other.halt('operator', 'cli', 1_000);
      await watcher.read();
      await other.resume();
      assert.deepEqual(await watcher.read(), { halted: false });
      assert.deepEqual(lost, [], 'the epoch is still there: a resume');
      await deleteKeys(admin, prefix);
      assert.deepEqual(await watcher.read(), { halted: false });
      assert.deepEqual(await watcher.read(), { halted: false });
      assert.deepEqual(lost, [{ haltRestored: false }]);
    });
  });

  void it('an unreadable halt flag reads as halted', async () => {
    await admin.set(`${prefix}:control:halt`, 'stop!');
    const state = await flags.read();
    assert.equal(state.halted, true);
    assert.match(state.reason ?? '', new RegExp(`halt flag at Redis key ${prefix}:control:halt`));
    await admin.del(`${prefix}:control:halt`);
    await admin.hset(`${prefix}:control:halt`, 'x', '1');
    assert.equal((await flags.read()).halted, true);
  });

  void it('a beat is a key with the ttl as its PX', async () => {
    await flags.beat('runner', 1_234, 60_000);
    const ttl = await admin.pttl(`${prefix}:alive:runner`);
    assert.ok(ttl > 0 && ttl <= 60_000, `pttl ${ttl}`);
  });

  void it('a status report that is not a JSON object is BUS_CORRUPT', async () => {
    await admin.set(`${prefix}:status:supervisor`, '[1]');
    await assert.rejects(other.reported('supervisor'), { code: 'BUS_CORRUPT' });
  });
});
