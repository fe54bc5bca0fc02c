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

  void it('current() is halted until read, then follows another instance at once', async () => {
    assert.equal(flags.current().halted, true, 'fails closed before the first read');
    const clock = new ManualClock(0);
    await flags.watch(60_000, clock);
    assert.deepEqual(flags.current(), { halted: false });

    // Through the subscription: the clock stays at 0, far from the minute's poll.
    await other.halt('exchange maintenance', 'supervisor', 5);
    await waitFor(() => flags.current().halted, 'the watcher to see the halt');
    assert.deepEqual(flags.current(), {
      halted: true,
      reason: 'exchange maintenance',
      by: 'supervisor',
      sinceMs: 5,
    });
    await other.resume();
    await waitFor(() => !flags.current().halted, 'the watcher to see the resume');
    assert.equal(clock.now(), 0);

    await flags.unwatch();
    assert.equal(clock.pending, 0, 'no sleeper left behind');
  });

  void it('the poll catches a flag set without a message', async () => {
    const clock = new ManualClock(0);
    await flags.watch(5_000, clock);
    // By hand, as in redis-cli: no PUBLISH.
    await admin.set(`${prefix}:control:halt`, JSON.stringify({ reason: 'r', by: 'b', sinceMs: 1 }));
    await waitFor(() => clock.pending === 1, 'the watcher to sleep');
    await clock.advance(5_000);
    await waitFor(() => flags.current().halted, 'the poll to see the halt');
    assert.equal(flags.current().reason, 'r');
  });

  void it('after its subscriber reconnects, the watcher reads what changed meanwhile', async () => {
    const clock = new ManualClock(0);
    await flags.watch(60_000, clock);
    const name = `${prefix}:control-watch`;
    const subscriberId = async (): Promise<string | undefined> => {
      const list = (await admin.call('CLIENT', 'LIST', 'TYPE', 'pubsub')) as string;
      return list
        .split('\n')
        .find((line) => line.includes(` name=${name} `))
        ?.match(/^id=(\d+)/)?.[1];
    };
    const id = await subscriberId();
    assert.ok(id !== undefined, 'the subscriber is named in CLIENT LIST');
    await admin.set(`${prefix}:control:halt`, JSON.stringify({ reason: 'r', by: 'b', sinceMs: 1 }));
    await admin.call('CLIENT', 'KILL', 'ID', id);
    await waitFor(() => flags.current().halted, 'the read after the reconnect');
    assert.equal(clock.now(), 0);
    assert.notEqual(await subscriberId(), id, 'a new connection');
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

    void it('says so once, as restored, when two reads find the loss together', async () => {
      await other.halt('max loss', 'supervisor', 1_000);
      await watcher.read();
      await deleteKeys(admin, prefix);
      const halted = { halted: true, reason: 'max loss', by: 'supervisor', sinceMs: 1_000 };
      assert.deepEqual(await Promise.all([watcher.read(), watcher.read()]), [halted, halted]);
      assert.deepEqual(lost, [{ haltRestored: true }]);
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
    const cleared = await flags.resume();
    assert.equal(cleared.halted, true, 'resume clears it and says it was a halt');
    assert.match(cleared.reason ?? '', /WRONGTYPE/);
    assert.deepEqual(await flags.read(), { halted: false });
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
