import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ManualClock } from '../../src/core/index.js';
import { RedisWatch } from '../../src/daemon/redis-watch.js';
import { logCollector, type LogEntry } from '../safety/log-collector.js';

/** A connection whose PINGs are answered when the test says. */
class Pings {
  readonly waiting: (() => void)[] = [];
  hung = false;
  ping(): Promise<unknown> {
    if (!this.hung) return Promise.resolve('PONG');
    return new Promise((resolve) => this.waiting.push(() => resolve('PONG')));
  }
  answer(): void {
    this.hung = false;
    for (const resolve of this.waiting.splice(0)) resolve();
  }
}

void describe('RedisWatch', () => {
  void it('warns once per episode that Redis is not answering, and says when it answers again', async () => {
    const clock = new ManualClock();
    const redis = new Pings();
    const logs: LogEntry[] = [];
    const watch = new RedisWatch({ redis, clock, log: logCollector(logs) });
    watch.start();
    await clock.advance(3_000);
    assert.equal(logs.length, 0, 'quiet while Redis answers');

    redis.hung = true;
    await clock.advance(1_000);
    assert.equal(
      watch.notAnsweringForMs(),
      undefined,
      'one PING unanswered for a moment is nothing',
    );
    await clock.advance(2_000);
    assert.deepEqual(
      logs.map((l) => [l.level, l.msg.split(':')[0], l.fields]),
      [['warn', 'Redis not answering', { notAnsweringForMs: 2_000 }]],
    );
    await clock.advance(10_000);
    assert.equal(logs.length, 1, 'one warning for the episode');
    assert.equal(redis.waiting.length, 1, 'one PING at a time');
    assert.equal(watch.notAnsweringForMs(), 12_000);

    redis.answer();
    await clock.advance(0);
    assert.deepEqual(logs[1], {
      level: 'info',
      msg: 'Redis answering again',
      fields: { notAnsweredForMs: 12_000 },
    });
    assert.equal(watch.notAnsweringForMs(), undefined);

    redis.hung = true;
    await clock.advance(4_000);
    assert.equal(logs.filter((l) => l.level === 'warn').length, 2, 'a new episode is told');
    redis.answer();
    await watch.close();
  });
});
