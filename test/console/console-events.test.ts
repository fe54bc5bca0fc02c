import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { ConsoleEvents, LogTap } from '../../src/console/console-events.js';
import { createLogger } from '../../src/obs/index.js';
import { REDIS_URL, deleteKeys, freshPrefix } from '../support/redis.js';
import { until } from '../support/until.js';

void describe('console events from the log', () => {
  const redis = new Redis(REDIS_URL);
  const prefix = freshPrefix();
  after(async () => {
    await deleteKeys(redis, prefix);
    redis.disconnect();
  });

  it('keeps warn and error lines with their pair, call and cause apart, redacted, and not info', async () => {
    const events = new ConsoleEvents(redis, prefix);
    const tap = new LogTap();
    const lines: string[] = [];
    const log = createLogger({
      base: { role: 'makerd' },
      destination: { write: (line: string) => void lines.push(line) },
      warnTap: tap,
    });
    log.warn({}, 'before Redis is open');
    tap.attach(events);
    log.info({}, 'an info line');
    log
      .child({ component: 'executor' })
      .warn(
        { pair: 'XXBTZUSD', action: 'EditOrder', error: 'EOrder:Unknown order', token: 's3cret' },
        'order entry refused',
      );
    const [event] = await until('the warning in Redis', async () => {
      const recent = await events.recent(10);
      return recent.length > 0 ? recent : undefined;
    });
    assert.equal(event?.level, 'warn');
    assert.equal(event?.source, 'executor');
    assert.equal(event?.message, 'order entry refused');
    assert.equal(event?.pair, 'XXBTZUSD', 'the page names it by altname (readConsoleState)');
    assert.equal(event?.action, 'EditOrder');
    assert.equal(event?.reason, 'EOrder:Unknown order', "the exchange's error text");
    assert.equal((await events.recent(10)).length, 1, 'neither the info line nor the early one');
    assert.equal(lines.length, 3, 'stdout still gets every line');
    assert.ok(!(await redis.lrange(events.key, 0, -1)).join().includes('s3cret'));
  });
});
