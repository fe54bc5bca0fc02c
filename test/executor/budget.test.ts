import type { Registry } from 'prom-client';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { penalty } from '../../src/exchange/index.js';
import { RedisRatecountStore, type Executor } from '../../src/executor/index.js';
import { executorSuite, until, type ExecHarness } from './harness.js';
import { metricValue } from '../support/metrics.js';
import { quote } from './quotes.js';

const BTC = 'XXBTZUSD';
/** The simulator holds EditOrder this long (on the shared clock) when a test slows it. */
const EDIT_LATENCY_MS = 300;

/** A histogram's count and sum for XBTUSD as a scrape shows them. */
async function histogram(
  registry: Registry,
  name: string,
): Promise<{ count: number; sum: number }> {
  const text = await registry.metrics();
  const read = (which: 'count' | 'sum'): number =>
    Number(new RegExp(`^${name}_${which}\\{pair="XBTUSD"\\} (\\S+)$`, 'm').exec(text)?.[1] ?? 0);
  return { count: read('count'), sum: read('sum') };
}

/**
 * Spends points in the pair's ratecount model so that `room` points are left under the
 * executor's limit (max − the default headroom of 2): as another bot on the key would, through
 * the same Redis model.
 */
async function leaveRoom(h: ExecHarness, executor: Executor, room: number): Promise<void> {
  const store = new RedisRatecountStore(h.redis, h.ratecountKey, executor.ratecount.limits);
  const now = h.clock.now();
  const { level } = await store.level(BTC, now);
  await store.add(BTC, executor.ratecount.limits.max - 2 - level - room, now);
}

/** Publishes quotes and returns the result of the step that read them. */
function publishAndStep(h: ExecHarness, ...slots: [string, number][]) {
  return h.publishAndStep(slots.map(([slot, offset]) => h.intent(BTC, slot, quote(slot, offset))));
}

void describe('Executor: tick-to-wire', () => {
  const suite = executorSuite();

  void it('counts from the snapshot for a quote sent at once, and from its due for one that waited', async () => {
    const { h, executor, registry, wires } = suite;
    const now = h.clock.now();
    await h.publish([
      h.intent(BTC, 'bid:0', quote('bid:0', 0), {
        snapshotAtMs: now - 400,
        createdAtMs: now - 150,
      }),
    ]);
    await until('the bid on the book', async () =>
      (await h.simOrders()).length === 1 ? true : undefined,
    );
    assert.deepEqual(
      wires.map((w) => [w.action, w.from, w.tickToWireMs, w.intentAgeMs]),
      [['AddOrder', 'snapshot', 400, 150]],
    );
    assert.deepEqual(await histogram(registry, 'makerd_tick_to_wire_seconds'), {
      count: 1,
      sum: 0.4,
    });
    assert.deepEqual(await histogram(registry, 'makerd_intent_wait_seconds'), {
      count: 1,
      sum: 0.15,
    });

    // No room: the next quote waits for the points it needs, and goes at its due.
    await leaveRoom(h, executor, 0);
    const step = await publishAndStep(h, ['bid:1', 0]);
    assert.deepEqual({ sent: step.sent, deferred: step.deferred }, { sent: 0, deferred: 1 });
    const dueInMs = (step.retryAtMs as number) - h.clock.now();
    // One AddOrder point decays in 1 / 3.75 s on the pro tier.
    assert.equal(dueInMs, Math.ceil(1000 / 3.75));
    assert.equal((await h.simOrders()).length, 1, 'not sent before its due');
    await h.advance(dueInMs);
    await until('the second bid on the book', async () =>
      (await h.simOrders()).length === 2 ? true : undefined,
    );
    assert.deepEqual(
      wires.slice(1).map((w) => [w.action, w.from, w.tickToWireMs, w.intentAgeMs]),
      [['AddOrder', 'budget', 0, dueInMs]],
    );
  });
});

void describe('Executor: ratecount budget', () => {
  void describe('a quote waiting for its due when the venue halts', () => {
    const suite = executorSuite();

    void it('is not sent at its due, and is counted as dropped for the mode', async () => {
      const { h, executor, registry } = suite;
      await leaveRoom(h, executor, 0);
      const step = await publishAndStep(h, ['bid:0', 0]);
      assert.equal(step.deferred, 1);
      await h.flags.halt('test halt', 'operator:test', h.clock.now());
      const seen = (await h.steps(BTC)).length;
      await h.advance((step.retryAtMs as number) - h.clock.now());
      const atDue = await h.stepReading(BTC, step.read[0] as string, seen);
      assert.deepEqual([atDue.sent, atDue.deferred, atDue.dropped], [0, 0, 1]);
      assert.equal(
        await metricValue(registry, 'makerd_executor_intents_total', { outcome: 'mode' }),
        1,
      );
      assert.deepEqual(await h.simOrders(), []);
      await h.flags.resume();
    });
  });

  void describe("another bot on the key spending the pair's points", () => {
    const suite = executorSuite();

    void it('refuses the reserve, sends nothing, and sends once the points are there again', async () => {
      const { h, executor } = suite;
      const other = new RedisRatecountStore(h.redis, h.ratecountKey, executor.ratecount.limits);
      // Between the executor's read of the level and its reserve, the other bot takes all of it.
      const reserve = executor.ratecount.reserve.bind(executor.ratecount);
      executor.ratecount.reserve = async (pair, points, limit, nowMs) => {
        executor.ratecount.reserve = reserve;
        await other.add(pair, executor.ratecount.limits.max, nowMs);
        return reserve(pair, points, limit, nowMs);
      };
      const step = await publishAndStep(h, ['bid:0', 0]);
      assert.deepEqual({ sent: step.sent, deferred: step.deferred }, { sent: 0, deferred: 1 });
      assert.equal((await h.bus.pending(BTC)).length, 1, 'the intent back in the register');
      await h.advance((step.retryAtMs as number) - h.clock.now());
      await until('the bid on the book', async () =>
        (await h.simOrders()).length === 1 ? true : undefined,
      );
      assert.deepEqual(await h.simRejections(), {}, 'nothing refused by the exchange');
      assert.deepEqual(await h.bus.pending(BTC), []);
    });
  });

  void describe('a quote waiting for budget when a refusal gives points back', () => {
    // Four in flight: the add does not wait behind the held edit.
    const suite = executorSuite({ max_calls_in_flight: 4 });

    void it('goes at once with the gone order placed anew, both counted from the refusal', async () => {
      const { h, executor, registry, wires } = suite;
      await publishAndStep(h, ['bid:0', 0], ['bid:1', 0]);
      assert.equal((await h.simOrders()).length, 2);
      // A taker fills bid:0, unseen by the executor.
      const taker = h.sim.addAccount();
      await h.sim
        .client({ key: taker })
        .addOrder({ pair: 'XBTUSD', type: 'sell', ordertype: 'market', volume: '0.01' });
      assert.equal((await h.simOrders()).length, 1);
      // Room for one edit and an add: bid:0's edit, the farther move, goes first and is refused
      // as gone after EDIT_LATENCY_MS; bid:1's edit waits for points, which the refusal gives back.
      await leaveRoom(h, executor, penalty('EditOrder', 0) + penalty('AddOrder', 0));
      await h.sim.admin('POST', '/_sim/faults', {
        paths: ['EditOrder'],
        latency_ms: EDIT_LATENCY_MS,
      });
      const before = wires.length;
      await h.publish([
        h.intent(BTC, 'bid:0', quote('bid:0', 50)),
        h.intent(BTC, 'bid:1', quote('bid:1', 5)),
      ]);
      await until('the edit held', () =>
        h.sim.ctx.faults.counts.delayed === 1 ? true : undefined,
      );
      await h.advance(EDIT_LATENCY_MS);
      await until('bid:0 placed anew, bid:1 edit held', async () =>
        (await h.simOrders()).some((o) => o.price === '49050.0') &&
        h.sim.ctx.faults.counts.delayed === 2
          ? true
          : undefined,
      );
      await h.advance(EDIT_LATENCY_MS);
      await until('bid:1 moved', async () =>
        (await h.simOrders()).some((o) => o.price === '48995.0') ? true : undefined,
      );
      await h.sim.admin('POST', '/_sim/faults', {});
      // From their snapshots both would count EDIT_LATENCY_MS.
      assert.deepEqual(
        wires.slice(before).map((w) => [w.slot, w.action, w.from, w.tickToWireMs]),
        [
          ['bid:0', 'EditOrder', 'snapshot', 0],
          ['bid:1', 'EditOrder', 'budget', 0],
          ['bid:0', 'AddOrder', 'retry', 0],
        ],
      );
      assert.equal(
        await metricValue(registry, 'makerd_order_rejections_total', {
          error: 'EOrder:Unknown order',
        }),
        1,
      );
      assert.equal((await h.simRejections())['EOrder:Unknown order'], 1, 'refused once, no retry');

      // The next full sync takes the gone order's execution from ClosedOrders.
      await h.advance(60_000);
      const [fill] = await until('the fill settled', async () => {
        const f = await executor.tracker.fills(BTC);
        return f.length === 1 ? f : undefined;
      });
      assert.equal(fill?.volume, '0.01');
      assert.equal(fill?.price, '49000');
      assert.equal(
        (await executor.tracker.history(BTC)).find((o) => o.reason === 'gone')?.state,
        'filled',
      );

      // The refused edit was not charged by the exchange, and no longer is by our model.
      const { body } = await h.sim.admin('GET', '/_sim/state');
      const sim = (body as { ratecount: Record<string, Record<string, { level: number }>> })
        .ratecount[h.key.apiKey]?.[BTC]?.level;
      const { level: ours } = await executor.ratecount.level(BTC, h.clock.now());
      assert.ok(sim !== undefined);
      // Ours also holds what leaveRoom added, which decayed as the exchange's count did.
      assert.ok(ours >= sim, `model ${ours} vs exchange ${sim}`);
    });
  });

  void describe('an amend waiting for budget whose order the periodic sync finds filled', () => {
    const suite = executorSuite({ reconcile_interval_ms: 5_000 }, { tier: 'starter' });

    void it('is placed right after the sync, not when the edit would have fitted', async () => {
      const { h, executor, wires } = suite;
      // The order opens a second in: the sync due at 5 s finds it younger than 5 s, when an
      // edit still costs 6.
      await h.advance(1_000);
      await publishAndStep(h, ['bid:0', 0]);
      // Room for an AddOrder (1 point), not for the edit of a young order (6): at starter's decay
      // of 1 point a second the edit fits in 5.5 s, after the sync due in 4 s.
      await leaveRoom(h, executor, 0.5);
      const step = await publishAndStep(h, ['bid:0', 3]);
      assert.equal(step.deferred, 1);
      assert.equal((step.retryAtMs as number) - h.clock.now(), 5_500);
      const taker = h.sim.addAccount();
      await h.sim
        .client({ key: taker })
        .addOrder({ pair: 'XBTUSD', type: 'sell', ordertype: 'market', volume: '0.01' });

      const syncAt = h.clock.now() + 4_000;
      await h.advance(4_000);
      await until('the bid placed at its new price', async () => {
        const o = await h.simOrders();
        return o.length === 1 && o[0]?.price === '49003.0' ? true : undefined;
      });
      const placed = wires.at(-1);
      assert.deepEqual([placed?.action, placed?.sentAtMs], ['AddOrder', syncAt]);
      assert.equal((await h.simRejections())['EOrder:Unknown order'], undefined);
    });
  });
});
