import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BEAT_EVERY_MS } from '../../src/bus/index.js';
import { cancelPenalty } from '../../src/exchange/index.js';
import { executorSuite, until } from './harness.js';

const BTC = 'XXBTZUSD';
const bid = (price: string) => ({ side: 'buy' as const, price, volume: '0.01' });

void describe('Executor: halt and resume', () => {
  // The executor follows the halt flag on its lease loop, every lease_retry_ms.
  const suite = executorSuite({ lease_retry_ms: 1_000 });

  void it('counts the CancelAll penalty of its orders, records them cancelled, sends nothing until resumed', async () => {
    const { h, executor } = suite;
    await h.publish([h.intent(BTC, 'bid:0', bid('49000'))]);
    await until('the bid tracked open', async () =>
      (await executor.tracker.live(BTC))[0]?.state === 'open' ? true : undefined,
    );
    const haltedAt = h.clock.now();
    const before = (await executor.ratecount.level(BTC, haltedAt)).level;

    // What the supervisor does on a halt: the flag, then CancelAll.
    await h.flags.halt('test halt', 'operator:test', haltedAt);
    await h.keyClient().cancelAll();
    await h.advance(1_000);
    await until('the halt seen', () =>
      suite.logs.some((l) => l.msg === 'halted: counting the CancelAll penalty of our orders'),
    );
    const { level } = await executor.ratecount.level(BTC, h.clock.now());
    // A one-second-old order's cancel penalty, less a second of decay (pro: 3.75 points/s).
    assert.equal(level, Math.max(0, before - 3.75) + cancelPenalty(1_000));

    // The full sync soon after records the cancellation.
    await h.advance(2_500);
    await until('the order recorded cancelled', async () =>
      (await executor.tracker.live(BTC)).length === 0 ? true : undefined,
    );
    assert.equal((await executor.tracker.history(BTC))[0]?.state, 'canceled');

    const step = await h.publishAndStep([h.intent(BTC, 'bid:0', bid('49001'))]);
    assert.deepEqual([step.sent, step.deferred, step.dropped], [0, 0, 1]);
    assert.deepEqual(await h.simOrders(), [], 'nothing placed while halted');

    await h.flags.resume();
    await h.advance(1_000);
    await h.publish([h.intent(BTC, 'bid:0', bid('49002'))]);
    await until('the bid placed after the resume', async () => {
      const o = await h.simOrders();
      return o.length === 1 && o[0]?.price === '49002.0' ? true : undefined;
    });
  });
});

void describe('Executor: liveness', () => {
  const suite = executorSuite({ hung_after_ms: 1_000, reconcile_interval_ms: 5_000 });

  void it('stops beating while a step hangs and beats again once it ends', async () => {
    const { h, logs } = suite;
    // OpenOrders answers a minute late: the full sync due in 5 s waits for it.
    await h.sim.admin('POST', '/_sim/faults', { paths: ['OpenOrders'], latency_ms: 60_000 });
    await h.advance(5_000);
    await until('the sync waiting', () => (h.sim.ctx.faults.counts.delayed > 0 ? true : undefined));
    const beatBefore = await h.flags.alive('executor');
    await h.advance(5_000);
    const hung = await until('the hang noticed', () =>
      logs.find((l) => l.msg === 'executor step hung: liveness beats stop'),
    );
    // Both pairs' syncs wait for the key's one OpenOrders call.
    assert.deepEqual(hung.fields.stuck, [
      { pair: BTC, busyMs: 5_000 },
      { pair: 'XETHZUSD', busyMs: 5_000 },
    ]);
    assert.equal(await h.flags.alive('executor'), beatBefore, 'no beat while hung');

    await h.sim.admin('POST', '/_sim/faults', {});
    // Past the end of any OpenOrders held since the hang was noticed (a minute after it began).
    await h.advance(60_000);
    await until('both steps ended', () =>
      h.pairs.every((p) => suite.executor.pair(p.id)?.busyForMs(h.clock.now()) === 0),
    );
    const endedAt = h.clock.now();
    await h.advance(BEAT_EVERY_MS);
    await until('beats again', () =>
      logs.some((l) => l.msg === 'executor steps move again: liveness beats resume'),
    );
    // The beat loop keeps its own phase, and under load its turn may come after the advance
    // above: time moves on in small steps until a beat later than the hang's end is seen.
    const beat = await until('a beat after the hang', async () => {
      const at = await h.flags.alive('executor');
      if (at !== undefined && at >= endedAt) return at;
      await h.advance(BEAT_EVERY_MS / 4);
      return undefined;
    });
    assert.ok(beat <= endedAt + 2 * BEAT_EVERY_MS, 'beats resume within two beat periods');
  });
});
