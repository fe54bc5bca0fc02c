import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ManualClock, MakerdError } from '../../src/core/index.js';
import { BudgetWaitTooLongError } from '../../src/exchange/index.js';
import { PollLoop, type PlannedPoll } from '../../src/market/index.js';
import { silentLog } from '../../src/core/index.js';

const poll = (intervalMs: number, offsetMs = 0): PlannedPoll => ({
  id: 'level3:XXBTZUSD',
  source: 'level3',
  pair: 'XXBTZUSD',
  scope: 'private',
  cost: 1,
  wishedIntervalMs: intervalMs,
  intervalMs,
  offsetMs,
});

describe('poll loop', () => {
  it('runs at its offset, then every interval; stop leaves no sleeper behind', async () => {
    const clock = new ManualClock(0);
    const runs: number[] = [];
    const loop = new PollLoop({
      poll: poll(1000, 250),
      clock,
      log: silentLog,
      run: () => {
        runs.push(clock.now());
        return Promise.resolve(1);
      },
    });
    const stop = new AbortController();
    const done = loop.loop(stop.signal, clock.now());
    await clock.advance(3300);
    assert.deepEqual(runs, [250, 1250, 2250, 3250]);
    assert.equal(loop.status().counts.ok, 4);
    stop.abort();
    await done;
    assert.equal(clock.pending, 0);
  });

  it('a run that spent two calls pushes the next one back an extra interval', async () => {
    const clock = new ManualClock(0);
    const runs: number[] = [];
    const loop = new PollLoop({
      poll: poll(1000),
      clock,
      log: silentLog,
      run: () => {
        runs.push(clock.now());
        return Promise.resolve(runs.length === 1 ? 2 : 1);
      },
    });
    const stop = new AbortController();
    const done = loop.loop(stop.signal, 0);
    await clock.advance(3500);
    assert.deepEqual(runs, [0, 2000, 3000]);
    stop.abort();
    await done;
  });

  it('backs off exponentially on budget refusals, capped at 60 s, and resets on success', async () => {
    const clock = new ManualClock(0);
    const runs: number[] = [];
    let fail = true;
    const loop = new PollLoop({
      poll: poll(10_000),
      clock,
      log: silentLog,
      run: () => {
        runs.push(clock.now());
        if (fail) return Promise.reject(new BudgetWaitTooLongError('Level3', 20_000, 10_000));
        return Promise.resolve(1);
      },
    });
    const stop = new AbortController();
    const done = loop.loop(stop.signal, 0);
    await clock.advance(100_000);
    // 0, +20 s, +40 s, then capped at 60 s.
    assert.deepEqual(runs, [0, 20_000, 60_000]);
    const s = loop.status();
    assert.equal(s.consecutiveFailures, 3);
    assert.equal(s.backoffMs, 60_000);
    assert.equal(s.counts.skipped, 3);
    assert.match(s.lastError ?? '', /REST budget needs/);
    fail = false;
    await clock.advance(20_000);
    assert.equal(runs.at(-1), 120_000);
    assert.equal(loop.status().consecutiveFailures, 0);
    assert.equal(loop.status().backoffMs, 0);
    assert.equal(loop.status().lastError, undefined);
    await clock.advance(10_000);
    assert.equal(runs.at(-1), 130_000);
    stop.abort();
    await done;
  });

  it('keeps its interval on other errors and records the code', async () => {
    const clock = new ManualClock(0);
    const runs: number[] = [];
    const warned: Record<string, unknown>[] = [];
    const loop = new PollLoop({
      poll: poll(1000),
      clock,
      log: { ...silentLog, warn: (o) => warned.push(o) },
      run: () => {
        runs.push(clock.now());
        return Promise.reject(new MakerdError('TRANSPORT_HTTP_STATUS', 'HTTP 502'));
      },
    });
    const stop = new AbortController();
    const done = loop.loop(stop.signal, 0);
    await clock.advance(2500);
    assert.deepEqual(runs, [0, 1000, 2000]);
    assert.equal(loop.status().lastErrorCode, 'TRANSPORT_HTTP_STATUS');
    assert.equal(loop.status().counts.error, 3);
    // One log line for a run of identical failures.
    assert.equal(warned.length, 1);
    stop.abort();
    await done;
  });
});
