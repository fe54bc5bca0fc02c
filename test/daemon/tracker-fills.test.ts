import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { TrackerFills, type FillReads } from '../../src/daemon/tracker-fills.js';
import { ManualClock, silentLog } from '../../src/core/index.js';
import { RedisOrderTracker, type OrderTracker } from '../../src/orders/index.js';
import { restingOrder } from '../executor/plan/fixtures.js';
import type { FillEvent } from '../../src/runner/strategy-api.js';
import { XBTUSD } from '../support/pairs.js';
import { REDIS_URL, deleteKeys, freshPrefix } from '../support/redis.js';

const ours = restingOrder('bid:0', 1_000, { txid: 'OABCDE-1', price: '50000', volume: '0.1' });

void describe("TrackerFills: the runner's fills, from the executor's tracker", () => {
  let redis: Redis;
  let tracker: OrderTracker;
  const prefix = freshPrefix();
  before(() => {
    redis = new Redis(REDIS_URL);
    tracker = new RedisOrderTracker({ redis, prefix });
  });
  after(async () => {
    await tracker.close();
    await deleteKeys(redis, prefix);
    await redis.quit();
  });

  /** The tracker records a fill as the executor does: a view of the order that executed more. */
  const executes = (volume: string, atMs: number) =>
    tracker.applyView(
      {
        ...ours,
        volumeExecuted: volume,
        cost: String(50_000 * Number(volume)),
        fee: '0.5',
        state: 'partially-filled',
      },
      atMs,
    );

  /** TrackerFills over `reads`, checking every second, and the fills it hands on. */
  function listen(reads: FillReads, clock: ManualClock) {
    const fills = new TrackerFills({
      tracker: reads,
      pairs: [XBTUSD],
      clock,
      everyMs: 1_000,
      log: silentLog,
    });
    const heard: FillEvent[] = [];
    fills.onFill((f) => heard.push(f));
    return { fills, heard };
  }

  void it('hands on the fills recorded since start, oldest first, once each', async () => {
    await tracker.put(ours);
    await executes('0.01', 2_000);
    const { fills, heard } = listen(tracker, new ManualClock(10_000));
    await fills.start();
    await executes('0.03', 11_000);
    await executes('0.06', 12_000);
    await fills.check();
    assert.deepEqual(
      heard.map((f) => [f.txid, f.side, f.price.toFixed(), f.volume.toFixed(), f.feeIn, f.timeMs]),
      [
        ['OABCDE-1', 'buy', '50000', '0.02', 'quote', 11_000],
        ['OABCDE-1', 'buy', '50000', '0.03', 'quote', 12_000],
      ],
      'the fill before start is history',
    );
    await fills.check();
    assert.equal(heard.length, 2, 'nothing twice');
    await fills.stop();
  });

  void it('hands on a fill recorded between its count and its read, in order', async () => {
    const clock = new ManualClock(20_000);
    let racing = false;
    // The tracker as TrackerFills reads it, with one more fill recorded just after the count.
    const reads: FillReads = {
      position: async (pair) => {
        const position = await tracker.position(pair);
        if (racing) await executes('0.10', 22_000);
        return position;
      },
      recentFills: (pair, limit) => tracker.recentFills(pair, limit),
    };
    const { fills, heard } = listen(reads, clock);
    await fills.start();
    await executes('0.08', 21_000);
    racing = true;
    await fills.check();
    racing = false;
    assert.deepEqual(
      heard.map((f) => [f.volume.toFixed(), f.timeMs]),
      [
        ['0.02', 21_000],
        ['0.02', 22_000],
      ],
    );
    await fills.check();
    assert.equal(heard.length, 2, 'nothing twice');
  });
});
