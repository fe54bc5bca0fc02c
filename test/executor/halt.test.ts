import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { BEAT_EVERY_MS, type ControlFlags } from '../../src/bus/index.js';
import { metricValue } from '../support/metrics.js';
import { executorSuite, startExecHarness, until, type ExecHarness } from './harness.js';

const BTC = 'XXBTZUSD';
const bid = (price: string) => ({ side: 'buy' as const, price, volume: '0.01' });

/** Clears the halt and waits for the step the executor's lease loop wakes on seeing it. */
async function resumeAndStep(h: ExecHarness): Promise<void> {
  const stepsBefore = (await h.steps(BTC)).length;
  await h.flags.resume();
  await h.advance(1_000);
  await until('the step the resume woke', async () =>
    (await h.steps(BTC)).length > stepsBefore ? true : undefined,
  );
}

void describe('Executor: halt and resume', () => {
  // The executor follows the halt flag on its lease loop, every lease_retry_ms.
  const suite = executorSuite({ lease_retry_ms: 1_000 });

  void it('charges each order the CancelAll took, once, records them cancelled, sends nothing until resumed', async () => {
    const { h, executor } = suite;
    await h.publish([h.intent(BTC, 'bid:0', bid('49000'))]);
    await until('the bid tracked open', async () =>
      (await executor.tracker.live(BTC))[0]?.state === 'open' ? true : undefined,
    );
    await h.advance(1_000);
    const model = async (): Promise<number> =>
      (await executor.ratecount.level(BTC, h.clock.now())).level;

    // What the supervisor does on a halt: the flag, then CancelAll, then its word that it is done.
    await h.flags.halt('test halt', 'operator:test', h.clock.now());
    await h.keyClient().cancelAll();
    await executor.pair(BTC)?.cancelledAll();
    assert.deepEqual(await executor.tracker.live(BTC), [], 'recorded cancelled at once');
    // The exchange charged the one-second-old order's cancel penalty; so does the model.
    assert.equal(await model(), await h.simRatecount(BTC));

    // The halt seen on the lease loop; 2.5 s later its own sync finds the CancelAll read already
    // and spends no REST points on it. Another word (a sweep that found one) reads again.
    const syncs = (): Promise<number> =>
      metricValue(suite.registry, 'makerd_reconciles_total', { pair: 'XBTUSD', outcome: 'all' });
    const before = await syncs();
    await h.advance(1_000);
    await until('the halt seen', () =>
      suite.logs.some((l) => l.msg.startsWith('halted: our orders are read again')),
    );
    await h.advance(2_500);
    // After the halt's turn, which came due in that advance.
    await executor.pair(BTC)?.cancelledAll();
    assert.equal(await syncs(), before + 1, "the halt's own sync read nothing");
    assert.equal(await model(), await h.simRatecount(BTC), 'charged once');
    assert.equal((await executor.tracker.history(BTC))[0]?.state, 'canceled');

    const step = await h.publishAndStep([h.intent(BTC, 'bid:0', bid('49001'))]);
    assert.deepEqual([step.sent, step.deferred, step.dropped], [0, 0, 1]);
    assert.deepEqual(await h.simOrders(), [], 'nothing placed while halted');

    // The resume seen on the lease loop wakes the pair; it reads nothing more, the CancelAll read.
    await resumeAndStep(h);
    assert.equal(await syncs(), before + 1, 'no sync on the resume');
    await h.publish([h.intent(BTC, 'bid:0', bid('49002'))]);
    await until('the bid placed after the resume', async () => {
      const o = await h.simOrders();
      return o.length === 1 && o[0]?.price === '49002.0' ? true : undefined;
    });
    await until('the bid tracked open', async () =>
      (await executor.tracker.live(BTC))[0]?.state === 'open' ? true : undefined,
    );
  });

  void it("without the supervisor's word, reads the orders 2.5 s after it saw the halt", async () => {
    const { h, executor } = suite;
    const halts = (): number =>
      suite.logs.filter((l) => l.msg.startsWith('halted: ') && l.fields.pair === BTC).length;
    const seen = halts();
    await h.advance(1_000);
    await h.flags.halt('halt without a word', 'operator:test', h.clock.now());
    await h.keyClient().cancelAll();
    await h.advance(1_000);
    await until('the halt seen', () => halts() > seen);
    const syncs = (): Promise<number> =>
      metricValue(suite.registry, 'makerd_reconciles_total', { pair: 'XBTUSD', outcome: 'all' });
    const halted = await syncs();
    await h.advance(2_500);
    const before = await until("the halt's own sync", async () => {
      const n = await syncs();
      return n > halted ? n : undefined;
    });
    assert.deepEqual(await executor.tracker.live(BTC), [], 'the cancelled bid dropped');
    assert.equal((await executor.tracker.history(BTC))[0]?.state, 'canceled');
    // No word read: the resume reads the book again before anything is sent.
    await resumeAndStep(h);
    assert.equal(await syncs(), before + 1, 'a sync on the resume');
  });
});

void describe('Executor: a halt whose CancelAll no one confirms', () => {
  const suite = executorSuite({ lease_retry_ms: 1_000 });

  void it('reads the orders itself 2.5 s after it sees the halt, and drops the cancelled ones', async () => {
    const { h, executor } = suite;
    await h.publish([h.intent(BTC, 'bid:0', bid('49000'))]);
    await until('the bid tracked open', async () =>
      (await executor.tracker.live(BTC))[0]?.state === 'open' ? true : undefined,
    );
    // A CancelAll whose word never comes (the supervisor's answer lost, another process's).
    await h.flags.halt('test halt', 'operator:test', h.clock.now());
    await h.keyClient().cancelAll();
    await h.advance(1_000);
    await until('the halt seen', () =>
      suite.logs.some((l) => l.msg.startsWith('halted: our orders are read again')),
    );
    await h.advance(2_500);
    await until('the cancelled bid dropped', async () =>
      (await executor.tracker.live(BTC)).length === 0 ? true : undefined,
    );
    assert.equal((await executor.tracker.history(BTC))[0]?.state, 'canceled');
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
    // Under load one pair's step may start after the call went out: wait until both are in it.
    await until('both pairs in their sync', () =>
      h.pairs.every((p) => suite.executor.pair(p.id)?.busyForMs(h.clock.now() + 1) === 1),
    );
    // The beat loop runs on the clock's grid (sleepToNext), whatever the phase of the sync: time
    // moves on in small steps until a beat finds the steps stuck past hung_after_ms.
    const hung = await until('the hang noticed', async () => {
      const line = logs.find((l) => l.msg === 'executor step hung: liveness beats stop');
      if (line === undefined) await h.advance(BEAT_EVERY_MS / 4);
      return line;
    });
    // Both pairs' syncs wait for the key's one OpenOrders call.
    const stuck = hung.fields.stuck as { pair: string; busyMs: number }[];
    assert.deepEqual(
      stuck.map((p) => p.pair),
      [BTC, 'XETHZUSD'],
    );
    const busyMs = stuck[0]?.busyMs ?? 0;
    assert.ok(busyMs > 1_000 && busyMs <= 1_000 + BEAT_EVERY_MS, `stuck for ${busyMs} ms`);
    assert.equal(stuck[1]?.busyMs, busyMs);
    const beatAtHang = await h.flags.alive('executor');
    await h.advance(BEAT_EVERY_MS);
    assert.equal(await h.flags.alive('executor'), beatAtHang, 'no beat while hung');

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
    // Under load the beat loop's turn may come after the advance above: time moves on in small
    // steps until a beat later than the hang's end is seen.
    const beat = await until('a beat after the hang', async () => {
      const at = await h.flags.alive('executor');
      if (at !== undefined && at >= endedAt) return at;
      await h.advance(BEAT_EVERY_MS / 4);
      return undefined;
    });
    assert.ok(beat <= endedAt + 2 * BEAT_EVERY_MS, 'beats resume within two beat periods');
  });
});

void describe('Executor: liveness after a Redis stall', () => {
  let h: ExecHarness | undefined;
  after(() => h?.close());

  void it('a beat that waited on Redis is written again with the time Redis answered', async () => {
    h = await startExecHarness();
    const harness = h;
    // The beats' writes, held while `stalled` is set: Redis hung.
    let stalled: Promise<void> | undefined;
    let writing = (): void => undefined;
    const flags = new Proxy(harness.flags, {
      get: (target, name) => {
        const value: unknown = Reflect.get(target, name);
        if (typeof value !== 'function') return value;
        if (name !== 'beat') return (value as (...args: unknown[]) => unknown).bind(target);
        return async (...args: Parameters<ControlFlags['beat']>) => {
          if (stalled !== undefined) {
            writing();
            await stalled;
          }
          return target.beat(...args);
        };
      },
    });
    await harness.executor({}, { flags });
    let answer = (): void => undefined;
    stalled = new Promise((resolve) => (answer = resolve));
    const held = new Promise<void>((resolve) => (writing = resolve));
    await harness.advance(BEAT_EVERY_MS);
    await held;
    const hungAt = harness.clock.now();
    await harness.advance(10_000);
    stalled = undefined;
    answer();
    const answeredAt = harness.clock.now();
    const beat = await until('a beat stamped when Redis answered', async () => {
      const at = await harness.flags.alive('executor');
      return at !== undefined && at > hungAt ? at : undefined;
    });
    assert.equal(beat, answeredAt);
  });
});
