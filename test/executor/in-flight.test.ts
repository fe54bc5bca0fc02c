import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { signedChannel } from '../../src/exchange/client/diagnostics.js';
import { executorSuite, startExecHarness, until, type ExecHarness } from './harness.js';
import { SLOTS, quote } from './quotes.js';

const BTC = 'XXBTZUSD';
/** The simulator holds every EditOrder this long (on the shared clock) before answering. */
const EDIT_LATENCY_MS = 300;

/**
 * Places the four quotes, makes EditOrder slow, and moves all four: `held` says how many edits
 * the simulator holds before the clock moves EDIT_LATENCY_MS on (all four at once when they go
 * together; one at a time when each waits for the previous answer). Returns when each edit was
 * signed, on the shared clock.
 */
async function moveAll(h: ExecHarness, held: 1 | 4): Promise<number[]> {
  await h.publish(SLOTS.map((slot) => h.intent(BTC, slot, quote(slot, 0))));
  await until('four quotes on the book', async () =>
    (await h.simOrders()).length === 4 ? true : undefined,
  );
  await h.sim.admin('POST', '/_sim/faults', { paths: ['EditOrder'], latency_ms: EDIT_LATENCY_MS });
  const signed: number[] = [];
  const onSigned = (m: unknown): void => {
    if ((m as { endpoint?: string }).endpoint === 'EditOrder') signed.push(h.clock.now());
  };
  signedChannel.subscribe(onSigned);
  try {
    await h.publish(SLOTS.map((slot) => h.intent(BTC, slot, quote(slot, 5))));
    for (let sent = held; sent <= 4; sent += held) {
      await until(`${sent} edits held`, () =>
        h.sim.ctx.faults.counts.delayed >= sent ? true : undefined,
      );
      await h.advance(EDIT_LATENCY_MS);
    }
    await until('four quotes moved', async () => {
      const prices = (await h.simOrders()).map((o) => Number(o.price)).sort((a, b) => a - b);
      return prices.join() === '48995,49005,51005,51015' ? true : undefined;
    });
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

    void it('sends the edits of four slots together, before any answer', async () => {
      const signed = await moveAll(h, 4);
      assert.equal(signed.length, 4);
      assert.equal(new Set(signed).size, 1, `signed at ${signed.join(', ')}`);
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
      const signed = await moveAll(h, 1);
      assert.equal(signed.length, 4);
      for (let i = 1; i < signed.length; i++) {
        const gap = (signed[i] as number) - (signed[i - 1] as number);
        assert.equal(gap, EDIT_LATENCY_MS, `edit ${i} signed ${gap} ms after the previous`);
      }
    });
  });

  void describe('a burst of publishes', () => {
    const suite = executorSuite();

    void it('ends with the last quote, one order in the slot, nothing left pending', async () => {
      const { h } = suite;
      for (let i = 0; i <= 20; i++) await h.publish([h.intent(BTC, 'bid:0', quote('bid:0', i))]);
      await until('the last quote on the book', async () => {
        const o = await h.simOrders();
        return o.length === 1 && o[0]?.price === '49020.0' ? true : undefined;
      });
      assert.deepEqual(await h.bus.pending(BTC), []);
      const steps = await h.steps(BTC);
      const sent = steps.reduce((n, s) => n + s.sent, 0);
      assert.ok(sent <= 21, `${steps.length} steps sent ${sent} calls for 21 publishes`);
    });
  });
});
