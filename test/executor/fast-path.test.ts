import assert from 'node:assert/strict';
import diagnostics from 'node:diagnostics_channel';
import { setTimeout as delay } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { signedChannel } from '../../src/exchange/client/diagnostics.js';
import {
  writtenChannel,
  type WrittenMessage,
} from '../../src/exchange/transport/direct-connection.js';
import { RatecountStore, type Executor } from '../../src/executor/index.js';
import { REDIS_URL } from '../support/redis.js';
import { intentFor, startExecHarness, until, type ExecHarness } from './harness.js';

const BTC = 'XXBTZUSD';
/** How long every Redis reply to the executor is held back once the test slows its connection. */
const REPLY_DELAY_MS = 150;

const bid = (price: number) => ({ side: 'buy' as const, price: String(price), volume: '0.01' });

/**
 * The executor's own connection, whose script replies can be held back: commands still reach
 * Redis at once, only their answers come late, as over a slow link. Each delivered reply is noted.
 */
function slowable(redis: Redis, events: string[]): { slow(on: boolean): void } {
  let slow = false;
  const evalFn = redis.eval.bind(redis) as (...args: unknown[]) => Promise<unknown>;
  (redis as unknown as { eval: (...args: unknown[]) => Promise<unknown> }).eval = (...args) => {
    const reply = evalFn(...args);
    if (!slow) return reply;
    return reply.then(async (v) => {
      await delay(REPLY_DELAY_MS);
      events.push('redis reply');
      return v;
    });
  };
  return { slow: (on) => (slow = on) };
}

/** Moves the bid to `price` and returns what happened first: the EditOrder signed, or a reply. */
async function moveAndWatch(
  h: ExecHarness,
  events: string[],
  price: number,
): Promise<readonly string[]> {
  events.length = 0;
  const onSigned = (m: unknown): void => {
    if ((m as { endpoint?: string }).endpoint === 'EditOrder') events.push('EditOrder signed');
  };
  signedChannel.subscribe(onSigned);
  try {
    await h.publish([intentFor(BTC, 'bid:0', bid(price))]);
    await until('the bid moved', async () =>
      (await h.simOrders()).some((o) => Number(o.price) === price) ? true : undefined,
    );
    return [...events];
  } finally {
    signedChannel.unsubscribe(onSigned);
  }
}

void describe('Executor: the way to the wire', () => {
  let h: ExecHarness;
  let own: Redis;
  let executor: Executor;
  const events: string[] = [];
  let conn: { slow(on: boolean): void };
  before(async () => {
    h = await startExecHarness();
    own = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
    conn = slowable(own, events);
    ({ executor } = await h.executor({}, undefined, undefined, own));
    await h.publish([intentFor(BTC, 'bid:0', bid(49_000))]);
    await until('the bid tracked open', async () =>
      (await executor.tracker.live(BTC))[0]?.state === 'open' ? true : undefined,
    );
  });
  after(async () => {
    conn.slow(false);
    await h.close();
    await own.quit();
  });

  void it('sends without waiting for Redis when the pair is its alone: its writes land behind the call', async () => {
    conn.slow(true);
    try {
      const seen = await moveAndWatch(h, events, 49_001);
      assert.equal(seen[0], 'EditOrder signed', `signed before any reply: ${seen.join(', ')}`);
    } finally {
      conn.slow(false);
    }
    // What was written behind the call: its records, the points, the intent taken.
    await until('the new order tracked open', async () => {
      const live = await executor.tracker.live(BTC);
      return live.length === 1 && live[0]?.price === '49001' && live[0].state === 'open'
        ? true
        : undefined;
    });
    const reader = new RatecountStore(h.redis, h.ratecountKey, executor.ratecount.limits);
    const level = await reader.level(BTC, Date.now());
    assert.ok(level > 0, `Redis counts the edit's points (${level})`);
    assert.deepEqual(await h.bus.pending(BTC), [], 'the intent was taken from the register');
  });

  void it('builds and writes its Redis commands after the request, together in one write', async () => {
    // What leaves the executor's Redis socket, write by write, and when the EditOrder is written.
    const seen: { what: string; text: string }[] = [];
    type Chunk = { chunk: Buffer | string };
    type Writes = {
      _write: (this: Writes, chunk: Buffer | string, ...rest: unknown[]) => void;
      _writev: (this: Writes, chunks: Chunk[], ...rest: unknown[]) => void;
    };
    const socket = own.stream as unknown as Writes;
    const { _write, _writev } = socket;
    socket._write = function (chunk, ...rest) {
      seen.push({ what: 'redis', text: String(chunk) });
      _write.call(this, chunk, ...rest);
    };
    socket._writev = function (chunks, ...rest) {
      seen.push({ what: 'redis', text: chunks.map((c) => String(c.chunk)).join('') });
      _writev.call(this, chunks, ...rest);
    };
    const onWritten = (m: unknown): void => {
      if ((m as WrittenMessage).endpoint === 'EditOrder')
        seen.push({ what: 'EditOrder', text: '' });
    };
    diagnostics.subscribe(writtenChannel.name, onWritten);
    // When the records are encoded: the journal is called once the request is written.
    const tracker = executor.tracker;
    const journal = tracker.journal.bind(tracker);
    tracker.journal = (records, fence) => {
      if (records.some((r) => r.price === '49004')) seen.push({ what: 'journal called', text: '' });
      return journal(records, fence);
    };
    try {
      await moveAndWatch(h, events, 49_004);
      await until('the new order tracked', async () =>
        (await executor.tracker.live(BTC))[0]?.price === '49004' ? true : undefined,
      );
    } finally {
      diagnostics.unsubscribe(writtenChannel.name, onWritten);
      tracker.journal = journal;
      socket._write = _write;
      socket._writev = _writev;
    }
    const request = seen.findIndex((s) => s.what === 'EditOrder');
    const built = seen.findIndex((s) => s.what === 'journal called');
    const written = seen.findIndex((s) => s.text.includes('"price":"49004"'));
    assert.ok(request >= 0 && written >= 0, `request and records seen: ${seen.length} events`);
    assert.ok(built > request, 'the records were built after the request was written');
    assert.ok(written > built, 'and left after that');
    assert.ok(seen[written]?.text.includes(h.ratecountKey), 'the points in the same write');
  });

  void it('waits for its reserve in Redis once another writer spends the pair\u2019s points', async () => {
    const other = new RatecountStore(h.redis, h.ratecountKey, executor.ratecount.limits);
    await other.add(BTC, 0.5, Date.now());
    // Its next write notices the other writer.
    await moveAndWatch(h, events, 49_002);
    await until('the other writer noticed', () =>
      Promise.resolve(executor.ratecount.sole(BTC, Date.now()) ? undefined : true),
    );
    conn.slow(true);
    try {
      const seen = await moveAndWatch(h, events, 49_003);
      assert.equal(seen[0], 'redis reply', `a reply before the call: ${seen.join(', ')}`);
      assert.ok(seen.includes('EditOrder signed'));
    } finally {
      conn.slow(false);
    }
  });
});
