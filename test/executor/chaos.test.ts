import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Registry } from 'prom-client';
import { RestLimiter } from '../../src/exchange/index.js';
import type { Executor } from '../../src/executor/index.js';
import { pseudoRandom } from './random.js';
import { assertBookMatchesTracker, startExecHarness, until, type ExecHarness } from './harness.js';

const ORDER_ENTRY = ['AddOrder', 'AddOrderBatch', 'EditOrder', 'CancelOrder', 'CancelOrderBatch'];
const SLOTS = ['bid:0', 'bid:1', 'bid:2', 'ask:0', 'ask:1', 'ask:2'];

/**
 * Issue #5 item 7: the simulator executes every order-entry call and then drops 20 % of the
 * answers. 1000 intents later nothing is duplicated and nothing on the book is unknown to us:
 * with one call in flight per pair, and with four (calls overlapping their unknown outcomes).
 * The clock moves 20 ms per intent, so budgets decay and unknown outcomes come due as they would.
 */
for (const inFlight of [1, 4]) {
  void describe(`executor with 20 % of order-entry answers dropped, max_calls_in_flight ${inFlight}`, () => {
    let h: ExecHarness;
    let executor: Executor;
    let registry: Registry;

    before(async () => {
      h = await startExecHarness({ tier: 'pro' });
      await h.sim.admin('POST', '/_sim/faults', {
        rules: [{ paths: ORDER_ENTRY, drop_response_rate: 0.2 }],
        seed: 7,
      });
      ({ executor, registry } = await h.executor(
        {
          deadline_ms: 2_500,
          resolve_grace_ms: 300,
          request_timeout_ms: 2_000,
          max_calls_in_flight: inFlight,
        },
        { restLimiter: new RestLimiter({ tier: 'pro', headroom: 1, clock: h.clock }) },
      ));
    });
    after(async () => {
      await h.close();
    });

    void it('1000 intents: zero duplicate orders, zero orders the tracker does not know', async () => {
      const rand = pseudoRandom(42);
      for (let i = 0; i < 1000; i++) {
        const pair = h.pairs[i % 2]?.id as string;
        const slot = SLOTS[Math.floor(rand() * SLOTS.length)] as string;
        const bid = slot.startsWith('bid');
        const level = Number(slot.split(':')[1]);
        const base = pair === 'XXBTZUSD' ? 50_000 : 3_000;
        const offset = (level + 1) * base * 0.002 + Math.floor(rand() * 20) * base * 0.0001;
        const price = (bid ? base - offset : base + offset).toFixed(pair === 'XXBTZUSD' ? 1 : 2);
        const cancel = rand() < 0.15;
        await h.publish([
          h.intent(
            pair,
            slot,
            cancel ? undefined : { side: bid ? 'buy' : 'sell', price, volume: '0.01' },
          ),
        ]);
        await h.advance(20);
      }

      // Quiet: nothing pending, nothing in doubt, as the clock moves on.
      await until(
        'every intent handled and every outcome resolved',
        async () => {
          await h.advance(500);
          for (const p of h.pairs) {
            if ((await h.bus.pending(p.id)).length > 0) return undefined;
          }
          const st = executor.status();
          return st.every((s) => s.held && s.unknown === 0) &&
            st.every((s) =>
              [...(executor.pair(s.pair)?.ctx.orders.values() ?? [])].every(
                (o) => o.pendingCall === null && o.state !== 'pending-new',
              ),
            )
            ? true
            : undefined;
        },
        90_000,
      );
      // A full sync of each pair, then the book and the tracker agree.
      const fullSyncs = async (): Promise<number> => {
        const m = await registry.getSingleMetric('makerd_reconciles_total')?.get();
        return (m?.values ?? [])
          .filter((v) => v.labels.outcome === 'all')
          .reduce((n, v) => n + v.value, 0);
      };
      const before = await fullSyncs();
      await h.advance(60_000);
      await until('both pairs synced', async () =>
        (await fullSyncs()) >= before + 2 ? true : undefined,
      );

      const dropped = h.sim.ctx.faults.counts.dropped;
      assert.ok(dropped >= 15, `the simulator dropped ${dropped} answers`);
      const { open, closed } = await assertBookMatchesTracker(h, executor.tracker);

      const rejections = await h.simRejections();
      console.log(JSON.stringify({ dropped, open, closed, rejections }));
      assert.equal(rejections['EOrder:Rate limit exceeded'] ?? 0, 0);
      assert.equal(rejections['EAPI:Rate limit exceeded'] ?? 0, 0);
      assert.ok(open > 0 && closed > 50, `${open} open, ${closed} closed`);
    });
  });
}
