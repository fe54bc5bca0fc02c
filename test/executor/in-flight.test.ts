import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Registry } from 'prom-client';
import { Redis } from 'ioredis';
import { signedChannel } from '../../src/exchange/client/diagnostics.js';
import { penalty } from '../../src/exchange/index.js';
import { RatecountStore, type Executor } from '../../src/executor/index.js';
import { REDIS_URL } from '../support/redis.js';
import type { UnpublishedIntent } from '../../src/bus/index.js';
import { executorSuite, intentFor, startExecHarness, until, type ExecHarness } from './harness.js';

const BTC = 'XXBTZUSD';
const SLOTS = ['bid:0', 'bid:1', 'ask:0', 'ask:1'] as const;
/** The simulator holds every EditOrder this long before handling it. */
const EDIT_LATENCY_MS = 300;

const quote = (slot: string, offset: number) => {
  const level = Number(slot.slice(4));
  return slot.startsWith('bid')
    ? { side: 'buy' as const, price: String(49_000 - 10 * level + offset), volume: '0.01' }
    : { side: 'sell' as const, price: String(51_000 + 10 * level + offset), volume: '0.01' };
};

async function metric(registry: Registry, name: string, labels: Record<string, string>) {
  const m = await registry.getSingleMetric(name)?.get();
  const v = m?.values.find((x) => Object.entries(labels).every(([k, val]) => x.labels[k] === val));
  return v?.value ?? 0;
}

/**
 * A histogram's count and sum for XBTUSD as a scrape shows them: labelled by the pair's altname,
 * as every metric family labels pairs.
 */
async function histogram(
  registry: Registry,
  name: string,
): Promise<{ count: number; sum: number }> {
  const text = await registry.metrics();
  const read = (which: 'count' | 'sum'): number =>
    Number(new RegExp(`^${name}_${which}\\{pair="XBTUSD"\\} (\\S+)$`, 'm').exec(text)?.[1] ?? 0);
  return { count: read('count'), sum: read('sum') };
}

/** Places the first bid and waits until the executor tracks it open. */
async function placeFirstBid(h: ExecHarness, executor: Executor): Promise<void> {
  await h.publish([intentFor(BTC, 'bid:0', quote('bid:0', 0))]);
  await until('the bid tracked open', async () =>
    (await executor.tracker.live(BTC))[0]?.state === 'open' ? true : undefined,
  );
}

/**
 * Spends points so that `room` points are left under the executor's limit (max − default
 * headroom): through the executor's own store (its level in memory follows, as for any call it
 * makes), or through `other`, as another bot on the key quoting the pair would, unseen by the
 * executor until its next write to the pair's ratecount.
 */
async function leaveRoom(executor: Executor, room: number, other?: RatecountStore): Promise<void> {
  const store = other ?? executor.ratecount;
  const limits = executor.ratecount.limits;
  const now = Date.now();
  const level = await store.level(BTC, now);
  await store.add(BTC, limits.max - 2 - level - room, now);
}

/** Places the four quotes, slows EditOrder down, moves all four, and returns when each was signed. */
async function moveAll(h: ExecHarness): Promise<number[]> {
  await h.publish(SLOTS.map((slot) => intentFor(BTC, slot, quote(slot, 0))));
  await until('four quotes on the book', async () =>
    (await h.simOrders()).length === 4 ? true : undefined,
  );
  await h.sim.admin('POST', '/_sim/faults', { paths: ['EditOrder'], latency_ms: EDIT_LATENCY_MS });
  const signed: number[] = [];
  const onSigned = (m: unknown): void => {
    if ((m as { endpoint?: string }).endpoint === 'EditOrder') signed.push(performance.now());
  };
  signedChannel.subscribe(onSigned);
  try {
    await h.publish(SLOTS.map((slot) => intentFor(BTC, slot, quote(slot, 5))));
    await until(
      'four quotes moved',
      async () => {
        const prices = (await h.simOrders()).map((o) => Number(o.price)).sort((a, b) => a - b);
        return prices.join() === '48995,49005,51005,51015' ? true : undefined;
      },
      15_000,
    );
  } finally {
    signedChannel.unsubscribe(onSigned);
    await h.sim.admin('POST', '/_sim/faults', {});
  }
  return signed;
}

void describe('Executor: calls in flight', () => {
  void describe('max_calls_in_flight 4', () => {
    let h: ExecHarness;
    before(async () => {
      h = await startExecHarness();
      await h.executor({ max_calls_in_flight: 4 });
    });
    after(() => h.close());

    void it('sends the edits of four slots together, without waiting for answers', async () => {
      const signed = await moveAll(h);
      assert.equal(signed.length, 4);
      const span = (signed[3] as number) - (signed[0] as number);
      assert.ok(span < EDIT_LATENCY_MS - 100, `all four signed within ${span.toFixed(0)} ms`);
    });
  });

  void describe('max_calls_in_flight 1 (the default)', () => {
    let h: ExecHarness;
    before(async () => {
      h = await startExecHarness();
      await h.executor();
    });
    after(() => h.close());

    void it('sends one call at a time: each edit waits for the previous answer', async () => {
      const signed = await moveAll(h);
      assert.equal(signed.length, 4);
      for (let i = 1; i < signed.length; i++) {
        const gap = (signed[i] as number) - (signed[i - 1] as number);
        assert.ok(
          gap >= EDIT_LATENCY_MS - 10,
          `edit ${i} signed ${gap.toFixed(0)} ms after the previous`,
        );
      }
    });
  });

  void describe('tick-to-wire', () => {
    const suite = executorSuite();
    void it('is observed once per intent sent, from its snapshot to the request written', async () => {
      const { h, registry } = suite;
      const snapshotAgoMs = 400;
      const createdAgoMs = 150;
      const now = Date.now();
      await h.publish([
        intentFor(BTC, 'bid:0', quote('bid:0', 0), {
          snapshotAtMs: now - snapshotAgoMs,
          createdAtMs: now - createdAgoMs,
        }),
      ]);
      await until('the bid on the book', async () =>
        (await h.simOrders()).length === 1 ? true : undefined,
      );
      const count = async (name: string) => (await histogram(registry, name)).count;
      const sum = async (name: string) => (await histogram(registry, name)).sum;
      await until('the call observed', async () =>
        (await count('makerd_tick_to_wire_seconds')) === 1 ? true : undefined,
      );
      const t2w = await sum('makerd_tick_to_wire_seconds');
      assert.ok(t2w >= snapshotAgoMs / 1000 && t2w < snapshotAgoMs / 1000 + 1, `${t2w} s`);
      // The sample handed to onWire says when the request was written: its tick-to-wire back.
      const [sample] = suite.wires;
      assert.ok(sample !== undefined && sample.action === 'AddOrder', JSON.stringify(sample));
      assert.ok(sample.writtenAtMs >= now && sample.writtenAtMs <= Date.now());
      assert.ok(
        Math.abs(sample.writtenAtMs - sample.tickToWireMs - (now - snapshotAgoMs)) < 1,
        JSON.stringify(sample),
      );
      assert.equal(await count('makerd_intent_wait_seconds'), 1);
      const wait = await sum('makerd_intent_wait_seconds');
      assert.ok(wait >= createdAgoMs / 1000 && wait < snapshotAgoMs / 1000, `${wait} s`);

      // An intent that waits for ratecount points counts from when they were due: the wait is
      // the exchange's, and the intent's own wait shows it.
      await leaveRoom(suite.executor, 0);
      const before = { t2w: await sum('makerd_tick_to_wire_seconds'), wait };
      const sent = Date.now();
      await h.publish([
        intentFor(BTC, 'bid:1', quote('bid:1', 0), { snapshotAtMs: sent, createdAtMs: sent }),
      ]);
      await until('the second call observed', async () =>
        (await count('makerd_tick_to_wire_seconds')) === 2 ? true : undefined,
      );
      const waited = (await sum('makerd_intent_wait_seconds')) - before.wait;
      const counted = (await sum('makerd_tick_to_wire_seconds')) - before.t2w;
      // One point decays in 1 / 3.75 s on the pro tier.
      assert.ok(waited > 0.2, `waited ${waited} s for the point`);
      assert.ok(counted < waited - 0.15, `${counted} s counted from the due, of ${waited} s`);
    });
  });

  void describe('tick-to-wire of an intent that fits before its due', () => {
    const suite = executorSuite();
    void it('counts from the newer snapshot whose drain found it room, not from its own', async () => {
      const { h, executor, registry } = suite;
      // Three points over the limit: the first quote's due is 3 / 3.75 s = 0.8 s away.
      await leaveRoom(executor, -2);
      const first = Date.now();
      await h.publish([
        intentFor(BTC, 'bid:0', quote('bid:0', 0), { snapshotAtMs: first, createdAtMs: first }),
      ]);
      await new Promise((r) => setTimeout(r, 200));
      assert.equal((await h.simOrders()).length, 0, 'the first quote waits for points');
      // Points come back unseen by the pair (as a lower level after another bot's refund would),
      // and a newer snapshot of the pair brings another quote: its drain finds room for both.
      await executor.ratecount.refund(BTC, 10, Date.now());
      const second = Date.now();
      await h.publish([
        intentFor(BTC, 'ask:0', quote('ask:0', 0), { snapshotAtMs: second, createdAtMs: second }),
      ]);
      await until('both quotes on the book', async () =>
        (await h.simOrders()).length === 2 ? true : undefined,
      );
      assert.ok(Date.now() - first < 700, 'both went before the first one was due');
      const t2w = () => histogram(registry, 'makerd_tick_to_wire_seconds');
      await until('both calls observed', async () =>
        (await t2w()).count === 2 ? true : undefined,
      );
      // From its own snapshot the first would count at least 0.2 s; from the second's, a few ms.
      const counted = (await t2w()).sum;
      assert.ok(counted < 0.15, `${counted} s for both`);
    });
  });

  void describe('an edit of an order filled meanwhile', () => {
    const suite = executorSuite();

    void it('is refused once, its points are given back, and the quote is placed at once', async () => {
      const { h, executor, registry } = suite;
      await placeFirstBid(h, executor);
      // A taker fills it; the executor has not synced, so it still thinks the bid is open.
      const taker = h.sim.addAccount();
      await h.sim
        .client({ key: taker })
        .addOrder({ pair: 'XBTUSD', type: 'sell', ordertype: 'market', volume: '0.01' });
      assert.equal((await h.simOrders()).length, 0);

      // The refusal comes EDIT_LATENCY_MS after the edit is written.
      await h.sim.admin('POST', '/_sim/faults', {
        paths: ['EditOrder'],
        latency_ms: EDIT_LATENCY_MS,
      });
      const before = await histogram(registry, 'makerd_tick_to_wire_seconds');
      try {
        await h.publish([intentFor(BTC, 'bid:0', quote('bid:0', 5))]);
        const placed = await until('the moved bid placed anew', async () => {
          const o = await h.simOrders();
          return o.length === 1 && o[0]?.price === '49005.0' ? o[0] : undefined;
        });
        assert.equal(placed.side, 'buy');
      } finally {
        await h.sim.admin('POST', '/_sim/faults', {});
      }
      // The edit and the add placed again: the add counts from the refusal, not from the
      // snapshot (which would be EDIT_LATENCY_MS more).
      const after = await until('both calls observed', async () => {
        const t = await histogram(registry, 'makerd_tick_to_wire_seconds');
        return t.count === before.count + 2 ? t : undefined;
      });
      const counted = after.sum - before.sum;
      assert.ok(counted < 0.1, `${counted} s for the edit and the add`);
      assert.equal(
        await metric(registry, 'makerd_order_rejections_total', { error: 'EOrder:Unknown order' }),
        1,
      );
      assert.equal((await h.simRejections())['EOrder:Unknown order'], 1, 'refused once, no retry');

      // The next full sync takes the gone order's execution from ClosedOrders.
      await executor.pair(BTC)?.reconcile();
      const [fill] = await executor.tracker.fills(BTC);
      assert.equal(fill?.volume, '0.01');
      assert.equal(fill?.price, '49000');
      const gone = (await executor.tracker.history(BTC)).find((o) => o.reason === 'gone');
      assert.equal(gone?.state, 'filled');
      assert.equal((await executor.tracker.position(BTC)).base, '0.01');

      // The refused edit was not charged by the exchange, and no longer is by our model.
      const { body } = await h.sim.admin('GET', '/_sim/state');
      const sim = (body as { ratecount: Record<string, Record<string, { level: number }>> })
        .ratecount[h.key.apiKey]?.[BTC]?.level;
      const ours = await executor.ratecount.level(BTC, Date.now());
      assert.ok(sim !== undefined);
      assert.ok(
        Math.abs(ours - sim) < 0.5,
        `model ${ours.toFixed(2)} vs exchange ${sim.toFixed(2)}`,
      );
    });
  });

  void describe('a quote waiting for budget when a refusal gives points back', () => {
    const suite = executorSuite();

    void it('goes at once, and counts tick-to-wire from the refusal, not its snapshot', async () => {
      const { h, executor, registry } = suite;
      await h.publish([
        intentFor(BTC, 'bid:0', quote('bid:0', 0)),
        intentFor(BTC, 'bid:1', quote('bid:1', 0)),
      ]);
      await until('both bids tracked open', async () =>
        (await executor.tracker.live(BTC)).filter((o) => o.state === 'open').length === 2
          ? true
          : undefined,
      );
      // A taker fills bid:0, unseen by the executor.
      const taker = h.sim.addAccount();
      await h.sim
        .client({ key: taker })
        .addOrder({ pair: 'XBTUSD', type: 'sell', ordertype: 'market', volume: '0.01' });
      assert.equal((await h.simOrders()).length, 1);
      // Room for one edit and an add: bid:0's edit, the farther move, goes first and is refused;
      // bid:1's waits for points. Its snapshot is old: counted from it, it would show 300 ms at
      // least. The refusal's points are enough for it and bid:0's add.
      await leaveRoom(executor, penalty('EditOrder', 1_000) + penalty('AddOrder', 0));
      const before = await histogram(registry, 'makerd_tick_to_wire_seconds');
      const now = Date.now();
      await h.publish([
        intentFor(BTC, 'bid:0', quote('bid:0', 50)),
        intentFor(BTC, 'bid:1', quote('bid:1', 5), { snapshotAtMs: now - 300, createdAtMs: now }),
      ]);
      await until('bid:0 placed anew and bid:1 moved', async () => {
        const prices = (await h.simOrders()).map((o) => Number(o.price)).sort((a, b) => a - b);
        return prices.join() === '48995,49050' ? true : undefined;
      });
      const dueInMs = (penalty('EditOrder', 1_000) / executor.ratecount.limits.decayPerSec) * 1000;
      assert.ok(
        Date.now() - now < dueInMs / 2,
        `moved ${Date.now() - now} ms on, due in ${dueInMs}`,
      );
      assert.equal((await h.simRejections())['EOrder:Unknown order'], 1);
      const after = await until('three calls observed', async () => {
        const t = await histogram(registry, 'makerd_tick_to_wire_seconds');
        return t.count === before.count + 3 ? t : undefined;
      });
      const counted = after.sum - before.sum;
      assert.ok(counted < 0.1, `${counted} s for the refused edit, the add and the edit`);
    });
  });

  void describe('a place for a slot the runner saw empty', () => {
    const suite = executorSuite({ vanished_margin_ms: 50 });

    /** Waits until bid:0 is tracked open at `price`, then past the margin. */
    const trackedAt = async (price: number) => {
      const { executor } = suite;
      const o = await until(`the bid tracked open at ${price}`, async () => {
        const [live] = await executor.tracker.live(BTC);
        return live?.state === 'open' && Number(live.price) === price ? live : undefined;
      });
      await new Promise((r) => setTimeout(r, 60));
      return o;
    };
    /** Publishes bid:0 at offset `to` with the runner's view, waits for it on the book; edits sent. */
    const moveTo = async (to: number, view: Partial<UnpublishedIntent>): Promise<number> => {
      const { h } = suite;
      let edits = 0;
      const onSigned = (m: unknown): void => {
        if ((m as { endpoint?: string }).endpoint === 'EditOrder') edits += 1;
      };
      signedChannel.subscribe(onSigned);
      try {
        await h.publish([intentFor(BTC, 'bid:0', quote('bid:0', to), view)]);
        const price = `${49_000 + to}.0`;
        await until(`the bid on the book at ${price}`, async () => {
          const o = await h.simOrders();
          return o.length === 1 && o[0]?.price === price ? true : undefined;
        });
      } finally {
        signedChannel.unsubscribe(onSigned);
      }
      return edits;
    };
    const fillTheBid = async (): Promise<void> => {
      const { h } = suite;
      const taker = h.sim.addAccount();
      await h.sim
        .client({ key: taker })
        .addOrder({ pair: 'XBTUSD', type: 'sell', ordertype: 'market', volume: '0.01' });
      assert.equal((await h.simOrders()).length, 0);
    };

    void it('amends our order when it opened after the runner asked for OpenOrders', async () => {
      const { h } = suite;
      await h.publish([intentFor(BTC, 'bid:0', quote('bid:0', 0))]);
      const open = await trackedAt(49_000);
      // The runner's OpenOrders predates our order: its "empty slot" says nothing about it.
      assert.equal(
        await moveTo(5, { ordersAsOfMs: open.openedAtMs - 10 }),
        1,
        'moved by EditOrder',
      );
    });

    void it('places at once, without an edit, when the runner found our order gone', async () => {
      const { h, executor, registry } = suite;
      const open = await trackedAt(49_005);
      await fillTheBid();
      const edits = await moveTo(7, { ordersAsOfMs: Date.now() });
      assert.equal(edits, 0, 'no EditOrder into "Unknown order"');
      assert.equal((await h.simRejections())['EOrder:Unknown order'], undefined);
      assert.equal(
        await metric(registry, 'makerd_order_rejections_total', { error: 'EOrder:Unknown order' }),
        0,
      );
      const gone = (await executor.tracker.history(BTC)).find((o) => o.txid === open.txid);
      assert.equal(gone?.reason, 'gone');

      // The next full sync records what the vanished order executed.
      await executor.pair(BTC)?.reconcile();
      const settled = (await executor.tracker.history(BTC)).find((o) => o.txid === open.txid);
      assert.equal(settled?.state, 'filled');
      const [fill] = await executor.tracker.fills(BTC);
      assert.equal(fill?.price, '49005');
      assert.equal((await executor.tracker.position(BTC)).base, '0.01');
    });

    void it('takes our order as gone when Depth showed no level at its price, within its range', async () => {
      const { h, executor } = suite;
      await trackedAt(49_007);
      // Depth shows our price: the order is there, and is amended.
      const shown = { asOfMs: Date.now(), prices: ['49007.0', '48990.0'] };
      assert.equal(await moveTo(9, { depthSeen: shown }), 1);
      await trackedAt(49_009);
      // Our price lies beyond the deepest level Depth showed: it says nothing about our order.
      const shallow = { asOfMs: Date.now(), prices: ['49030.0', '49020.0'] };
      assert.equal(await moveTo(10, { depthSeen: shallow }), 1);

      const open = await trackedAt(49_010);
      await fillTheBid();
      const missing = { asOfMs: Date.now(), prices: ['49011.0', '48990.0'] };
      assert.equal(await moveTo(11, { depthSeen: missing }), 0, 'placed, not edited');
      assert.equal((await h.simRejections())['EOrder:Unknown order'], undefined);
      // Retired with the new order's record, in the script that leaves after its request.
      const gone = await until('the vanished order in history', async () =>
        (await executor.tracker.history(BTC)).find((o) => o.txid === open.txid),
      );
      assert.equal(gone.reason, 'gone');
    });
  });

  void describe('an amend waiting for budget whose order a sync finds filled', () => {
    const suite = executorSuite({}, { tier: 'starter' });

    void it('is placed as soon as the slot is found empty, not when the edit would have fitted', async () => {
      const { h, executor } = suite;
      await placeFirstBid(h, executor);
      // Room for an AddOrder (1 point) but not for an EditOrder of a young order (6): at starter's
      // decay of 1 point a second the edit would wait about five seconds.
      await leaveRoom(executor, 1.5);
      await h.publish([intentFor(BTC, 'bid:0', quote('bid:0', 3))]);
      await until('the amend deferred for budget', async () =>
        (await h.bus.pending(BTC)).length === 1 ? true : undefined,
      );
      const taker = h.sim.addAccount();
      await h.sim
        .client({ key: taker })
        .addOrder({ pair: 'XBTUSD', type: 'sell', ordertype: 'market', volume: '0.01' });

      const syncedAt = Date.now();
      await executor.pair(BTC)?.reconcile();
      await until('the bid placed at its new price', async () => {
        const o = await h.simOrders();
        return o.length === 1 && o[0]?.price === '49003.0' ? true : undefined;
      });
      const waited = Date.now() - syncedAt;
      assert.ok(waited < 2_500, `placed ${waited} ms after the sync, not after the edit's wait`);
      assert.equal((await h.simRejections())['EOrder:Unknown order'], undefined);
    });
  });

  void describe("another bot on the key spending the pair's points", () => {
    const suite = executorSuite();

    void it('is noticed at the next write; then calls stop at their gate when the points were spent elsewhere, and go once the budget is there', async () => {
      const { h, executor, registry } = suite;
      await placeFirstBid(h, executor);
      assert.ok(executor.ratecount.sole(BTC, Date.now()), 'alone on the pair so far');
      const other = new RatecountStore(h.redis, h.ratecountKey, executor.ratecount.limits);
      await other.add(BTC, 1, Date.now());
      // Plenty of room: this amend goes out, and its write tells the executor of the other bot.
      await h.publish([intentFor(BTC, 'bid:0', quote('bid:0', 1))]);
      await until('the first bid amended', async () =>
        (await h.simOrders()).some((o) => o.price === '49001.0') ? true : undefined,
      );
      await until('the other writer noticed', () =>
        Promise.resolve(executor.ratecount.sole(BTC, Date.now()) ? undefined : true),
      );

      // One AddOrder fits again after about half a second of decay.
      await leaveRoom(executor, 1 - executor.ratecount.limits.decayPerSec / 2, other);
      await h.publish([intentFor(BTC, 'bid:1', quote('bid:1', 0))]);
      const placed = await until('the second bid placed', async () => {
        const o = (await h.simOrders()).filter((x) => x.price === '48990.0');
        return o.length > 0 ? o : undefined;
      });
      assert.equal(placed.length, 1, 'placed once');
      assert.equal(
        await metric(registry, 'makerd_order_actions_total', {
          action: 'AddOrder',
          outcome: 'not_sent',
        }),
        1,
        'the first attempt stopped at its gate',
      );
      assert.deepEqual(await h.simRejections(), {}, 'nothing refused by the exchange');
      const history = await executor.tracker.history(BTC);
      const stopped = history.filter((o) => o.slot === 'bid:1' && o.state === 'rejected');
      assert.equal(stopped.length, 1);
      assert.match(stopped[0]?.reason ?? '', /spent elsewhere/);
      assert.equal(stopped[0]?.txid, null, 'never reached the exchange');
      await until('the second bid tracked open', async () =>
        (await executor.tracker.live(BTC)).some((o) => o.slot === 'bid:1' && o.state === 'open')
          ? true
          : undefined,
      );
      assert.deepEqual(await h.bus.pending(BTC), []);
    });
  });

  void describe('an executor on a Redis connection of its own', () => {
    let h: ExecHarness;
    let own: Redis;
    before(async () => {
      h = await startExecHarness();
      own = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
      await h.executor({}, undefined, undefined, own);
    });
    after(async () => {
      await h.close();
      await own.quit();
    });

    void it('follows a burst of publishes to the last one, with one order in the slot', async () => {
      // Its takes may reach Redis before the publishes it was told of: such a take misses, and the
      // drain reads the register again instead of sending a stale quote or none at all.
      for (let i = 0; i <= 20; i++) await h.publish([intentFor(BTC, 'bid:0', quote('bid:0', i))]);
      await until('the last quote on the book', async () => {
        const o = await h.simOrders();
        return o.length === 1 && o[0]?.price === '49020.0' ? true : undefined;
      });
      assert.deepEqual(await h.bus.pending(BTC), []);
    });
  });
});
