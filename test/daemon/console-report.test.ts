import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Redis } from 'ioredis';
import { MemoryControlFlags } from '../../src/bus/index.js';
import { ManualClock, type Side } from '../../src/core/index.js';
import {
  CONSOLE_REPORT,
  ConsoleReporter,
  consoleChangesChannel,
  type RunnerConsoleReport,
} from '../../src/daemon/console-report.js';
import type { TickReport } from '../../src/runner/runner.js';
import { PAIR, snapshot } from '../strategies/snapshot-fixture.js';
import { trackedOrder } from '../support/tracked-order.js';

/** The chart history's list, kept and not read here; the messages to the consoles, by channel. */
function fakeRedis(): { redis: Redis; told: string[] } {
  const told: string[] = [];
  const redis = {
    pipeline: () => {
      const batch = { rpush: () => batch, ltrim: () => batch, exec: () => Promise.resolve([]) };
      return batch;
    },
    publish: (channel: string) => {
      told.push(channel);
      return Promise.resolve(1);
    },
  } as unknown as Redis;
  return { redis, told };
}

const resting = (txid: string, side: Side, price: string) =>
  trackedOrder({ txid, side, price, slot: side === 'buy' ? 'bid:0' : 'ask:0', state: 'open' });

/** A started reporter of one pair, its last tick's book 99.9 / 100.1. */
function started() {
  const clock = new ManualClock(1_000_000);
  const flags = new MemoryControlFlags(clock);
  const { redis, told } = fakeRedis();
  const reporter = new ConsoleReporter({
    pairs: [PAIR],
    flags,
    redis,
    prefix: 'test',
    clock,
    reportTtlMs: 10_000,
    log: { warn: () => undefined } as never,
  });
  const listed = async (): Promise<number | undefined> => {
    const report = (await flags.reported(CONSOLE_REPORT)) as RunnerConsoleReport | undefined;
    return report?.pairs[PAIR.altname]?.orders.length;
  };
  reporter.tick({
    pair: PAIR.id,
    snapshot: snapshot({ bids: [['99.9']], asks: [['100.1']] }),
  } as unknown as TickReport);
  reporter.start();
  return { clock, reporter, listed, told };
}

void describe("the runner's console report", () => {
  it('publishes at once when orders are taken off, not at the next second', async () => {
    const { clock, reporter, listed } = started();
    reporter.orders(PAIR, [resting('O1', 'buy', '99.9'), resting('O2', 'sell', '100.1')]);
    await clock.advance(1_000);
    assert.equal(await listed(), 2);

    await clock.advance(300);
    reporter.orders(PAIR, []);
    // The publish takes turns of the event loop (the store's), not time on the clock.
    for (let i = 0; i < 50 && (await listed()) !== 0; i++) await new Promise(setImmediate);
    assert.equal(await listed(), 0, 'the cancelled orders left before the next second');
    await reporter.stop();
  });

  it('publishes a halt cancelling order after order as one report, 200 ms after the last', async () => {
    const { clock, reporter, listed, told } = started();
    reporter.orders(PAIR, [
      resting('O1', 'buy', '99.9'),
      resting('O2', 'buy', '99.8'),
      resting('O3', 'sell', '100.1'),
    ]);
    await clock.advance(1_000);
    assert.equal(await listed(), 3);
    await clock.advance(50);
    reporter.orders(PAIR, [resting('O2', 'buy', '99.8'), resting('O3', 'sell', '100.1')]);
    reporter.orders(PAIR, [resting('O3', 'sell', '100.1')]);
    reporter.orders(PAIR, []);
    await clock.advance(150);
    assert.equal(await listed(), 0, 'the burst, 200 ms after the last report');
    assert.equal(told.length, 2, 'the first report, then one for the burst');
    await reporter.stop();
  });

  it('tells the consoles when a report lists other orders, not each second', async () => {
    const { clock, reporter, told } = started();
    reporter.orders(PAIR, [resting('O1', 'buy', '99.9')]);
    await clock.advance(1_000);
    assert.deepEqual(told, [consoleChangesChannel('test')], 'the first report');
    await clock.advance(3_000);
    assert.equal(told.length, 1, 'three reports more listing the same order');
    reporter.orders(PAIR, [resting('O1', 'buy', '99.9'), resting('O2', 'sell', '100.1')]);
    await clock.advance(1_000);
    assert.equal(told.length, 2, 'an order more');
    reporter.orders(PAIR, [resting('O2', 'sell', '100.1')]);
    await clock.advance(200);
    assert.equal(told.length, 3, 'an order less, at once');
    await reporter.stop();
  });

  it('writes the report when it changed, else before a third of its ttl; repeats no chart point', async () => {
    const clock = new ManualClock(1_000_000);
    const flags = new MemoryControlFlags(clock);
    const written: number[] = [];
    const counted = new Proxy(flags, {
      get: (target, name) =>
        name === 'report'
          ? (role: string, status: object, ttlMs: number) => {
              written.push(clock.now());
              return target.report(role, status, ttlMs);
            }
          : (Reflect.get(target, name) as unknown),
    });
    const points: string[] = [];
    const history = {
      pipeline: () => {
        const batch = {
          rpush: (_key: string, point: string) => (points.push(point), batch),
          ltrim: () => batch,
          exec: () => Promise.resolve([]),
        };
        return batch;
      },
      publish: () => Promise.resolve(0),
    } as unknown as Redis;
    const reporter = new ConsoleReporter({
      pairs: [PAIR],
      flags: counted,
      redis: history,
      prefix: 'test',
      clock,
      reportTtlMs: 15_000,
      log: { warn: () => undefined } as never,
    });
    const tick = (takenAtMs: number) =>
      reporter.tick({
        pair: PAIR.id,
        snapshot: snapshot({ bids: [['99.9']], asks: [['100.1']], takenAtMs }),
      } as unknown as TickReport);
    tick(clock.now());
    reporter.orders(PAIR, [resting('O1', 'buy', '99.9')]);
    reporter.start();
    // Nothing new for 12 s: written at the first second, then every 5 s (a third of 15 s).
    await clock.advance(12_000);
    assert.deepEqual(written, [1_001_000, 1_006_000, 1_011_000]);
    assert.equal(points.length, 1, 'one chart point: no newer snapshot since');

    // A new snapshot is written at the next second, and its point goes to the chart.
    tick(clock.now());
    await clock.advance(1_000);
    assert.deepEqual(written.slice(3), [1_013_000]);
    await clock.advance(4_000);
    assert.equal(points.length, 2);
    await reporter.stop();
  });
});
