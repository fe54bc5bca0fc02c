import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Registry } from 'prom-client';
import { signedChannel } from '../../src/exchange/client/diagnostics.js';
import { SCAVENGE_QUIET_MS, quietAt } from '../../src/core/index.js';
import { SpotClient } from '../../src/exchange/index.js';
import type { Executor } from '../../src/executor/index.js';
import { executorSuite, intentFor, until, type ExecHarness } from './harness.js';

const BTC = 'XXBTZUSD';
const bid = { side: 'buy' as const, price: '49000', volume: '0.01' };
/** Made ready this long before the due: wide enough to look in between, whatever the load. */
const PLAN_AHEAD_MS = 500;

/**
 * Fills the pair's ratecount to the max, two points over the executor's limit (default headroom):
 * a one-point AddOrder fits once three points have decayed, 0.8 s later on the pro tier. Returns
 * that due (epoch ms).
 */
async function fillBudget(executor: Executor): Promise<number> {
  const { max, decayPerSec } = executor.ratecount.limits;
  const now = Date.now();
  const level = await executor.ratecount.level(BTC, now);
  await executor.ratecount.add(BTC, max - level, now);
  return now + (3 / decayPerSec) * 1000;
}

/** Publishes a bid that must wait for budget; resolves once its record is written, ahead. */
async function bidMadeReady(
  h: ExecHarness,
  executor: Executor,
): Promise<{ dueMs: number; readyAtMs: number; bookThen: number }> {
  const dueMs = await fillBudget(executor);
  await h.publish([intentFor(BTC, 'bid:0', bid)]);
  await until(
    'the bid recorded pending',
    async () => (await executor.tracker.live(BTC)).some((o) => o.state === 'pending-new'),
    5_000,
    10,
  );
  const readyAtMs = Date.now();
  return { dueMs, readyAtMs, bookThen: (await h.simOrders()).length };
}

async function counter(registry: Registry, name: string, labels: Record<string, string>) {
  const values = (await registry.getSingleMetric(name)?.get())?.values ?? [];
  const v = values.find((x) => Object.entries(labels).every(([k, val]) => x.labels[k] === val));
  return v?.value ?? 0;
}

void describe('Executor: a call waiting for budget is planned ahead of its due', () => {
  void describe('sent at its due', () => {
    const suite = executorSuite({ plan_ahead_ms: PLAN_AHEAD_MS });

    void it('has its record written before the due, and is signed no earlier than it', async () => {
      const { h, executor } = suite;
      const signed: number[] = [];
      const events: string[] = [];
      const onSigned = (m: unknown): void => {
        if ((m as { endpoint?: string }).endpoint !== 'AddOrder') return;
        signed.push(Date.now());
        events.push('signed');
      };
      signedChannel.subscribe(onSigned);
      // The client's signing is warmed just before the due: seen through the prototype, as the
      // harness builds the executor's client itself.
      const warm = Object.getOwnPropertyDescriptor(SpotClient.prototype, 'warm');
      const warmedAt: number[] = [];
      SpotClient.prototype.warm = function (this: SpotClient) {
        warmedAt.push(Date.now());
        events.push('warmed');
        (warm?.value as () => void).call(this);
      };
      try {
        const { dueMs, readyAtMs, bookThen } = await bidMadeReady(h, executor);
        assert.equal(bookThen, 0, 'nothing on the book while the call waits for its due');
        assert.ok(readyAtMs < dueMs - 100, `ready ${dueMs - readyAtMs} ms before the due`);
        await until('the bid on the book', async () =>
          (await h.simOrders()).length === 1 ? true : undefined,
        );
        assert.equal(signed.length, 1);
        // The model counts whole milliseconds.
        const at = signed[0] as number;
        assert.ok(at >= Math.floor(dueMs), `signed ${at - dueMs} ms after the due`);
        // Warmed just before the due, unless a busy turn jumped past it (due-wait.test.ts).
        assert.ok(
          events.join() === 'signed' ||
            (events.join() === 'warmed,signed' && (warmedAt[0] as number) >= Math.floor(dueMs) - 2),
          `${events.join()} (warmed ${dueMs - (warmedAt[0] ?? dueMs)} ms before the due)`,
        );
      } finally {
        signedChannel.unsubscribe(onSigned);
        if (warm !== undefined) Object.defineProperty(SpotClient.prototype, 'warm', warm);
      }
      const rejections = await h.simRejections();
      assert.equal(rejections['EOrder:Rate limit exceeded'] ?? 0, 0);
    });
  });

  void describe('halted before its due', () => {
    const suite = executorSuite({ plan_ahead_ms: PLAN_AHEAD_MS });

    void it('is not sent, and is counted as not sent', async () => {
      const { h, executor, registry } = suite;
      const { dueMs, bookThen } = await bidMadeReady(h, executor);
      assert.equal(bookThen, 0);
      await h.flags.halt('test halt', 'operator:test', Date.now());
      await until(
        'the call stopped',
        async () =>
          (await counter(registry, 'makerd_order_actions_total', {
            action: 'AddOrder',
            outcome: 'not_sent',
          })) === 1,
        5_000,
      );
      assert.ok(Date.now() >= dueMs, 'stopped at its due, not before');
      assert.deepEqual(await h.simOrders(), [], 'nothing placed');
      // The outcome is counted when known; its record's write to Redis lands just after.
      await until(
        'its record is no longer pending',
        async () =>
          (await executor.tracker.live(BTC)).filter((o) => o.state === 'pending-new').length === 0,
        2_000,
      );
    });
  });

  void describe('early collections around its due', () => {
    // Planned ahead by the default (2 ms): the window before the due is what holds them off.
    const suite = executorSuite();

    void it('are held off from SCAVENGE_QUIET_MS before the due until the answer, not before', async () => {
      const { h, executor } = suite;
      const dueMs = await fillBudget(executor);
      await h.publish([intentFor(BTC, 'bid:0', bid)]);
      // The drain the publish started has deferred it.
      await executor.pair(BTC)?.idle();
      assert.deepEqual(await h.simOrders(), [], 'not placed before its due');
      assert.ok(Date.now() < dueMs - 200, 'checked well before the due');
      const before = (ms: number) => performance.now() + (dueMs - ms - Date.now());
      assert.equal(quietAt(), true, 'nothing held off long before the due');
      assert.equal(quietAt(before(SCAVENGE_QUIET_MS + 3)), true, 'nor just before the window');
      // Before the drain planned ahead of the due (plan_ahead_ms) holds them off itself.
      assert.equal(quietAt(before(SCAVENGE_QUIET_MS - 3)), false, 'held off in the window');
      await until('the bid on the book', async () =>
        (await h.simOrders()).length === 1 ? true : undefined,
      );
      await until('its answer recorded', async () =>
        (await executor.tracker.live(BTC))[0]?.state === 'open' ? true : undefined,
      );
      await executor.pair(BTC)?.idle();
      assert.equal(quietAt(), true, 'the window closed with the answer');
    });
  });
});
