import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { cancelPenalty } from '../../src/exchange/index.js';
import type { Executor } from '../../src/executor/index.js';
import { intentFor, startExecHarness, until, type ExecHarness } from './harness.js';

const BTC = 'XXBTZUSD';
const bid = (price: string) => ({ side: 'buy' as const, price, volume: '0.01' });

void describe('Executor: halt and resume', () => {
  let h: ExecHarness;
  let executor: Executor;
  before(async () => {
    h = await startExecHarness();
    ({ executor } = await h.executor());
  });
  after(() => h.close());

  void it('counts the CancelAll penalty of its orders, records them cancelled, sends nothing until resumed', async () => {
    await h.publish([intentFor(BTC, 'bid:0', bid('49000'))]);
    await until('the bid tracked open', async () =>
      (await executor.tracker.live(BTC))[0]?.state === 'open' ? true : undefined,
    );
    const before = await executor.ratecount.level(BTC, Date.now());

    // What the supervisor does on a halt: the flag, then CancelAll.
    await h.flags.halt('test halt', 'operator:test', Date.now());
    await h.sim.client({ key: h.key }).cancelAll();
    const counted = await until('the penalty counted', async () => {
      const level = await executor.ratecount.level(BTC, Date.now());
      return level > before + 1 ? level : undefined;
    });
    // A young order's cancel penalty, less what decayed meanwhile (pro: 3.75 points/s).
    assert.ok(counted >= before + cancelPenalty(0) - 3.75, `level ${before} → ${counted}`);
    await until(
      'the order recorded cancelled',
      async () => ((await executor.tracker.live(BTC)).length === 0 ? true : undefined),
      8_000,
    );

    await h.publish([intentFor(BTC, 'bid:0', bid('49001'))]);
    await new Promise((r) => setTimeout(r, 800));
    assert.deepEqual(await h.simOrders(), [], 'nothing placed while halted');

    await h.flags.resume();
    await h.publish([intentFor(BTC, 'bid:0', bid('49002'))]);
    await until('the bid placed after the resume', async () => {
      const o = await h.simOrders();
      return o.length === 1 && o[0]?.price === '49002.0' ? true : undefined;
    });
  });
});

void describe('Executor: liveness', () => {
  let h: ExecHarness;
  let executor: Executor;
  before(async () => {
    h = await startExecHarness();
    ({ executor } = await h.executor({ hung_after_ms: 1_000 }));
  });
  after(() => h.close());

  void it('stops beating while a step hangs and beats again once it ends', async () => {
    const beforeHang = await until('a first beat', () => h.flags.alive('executor'));
    // OpenOrders answers after 8 s: the reconciliation waiting for it is "hung" after 1 s.
    await h.sim.admin('POST', '/_sim/faults', { paths: ['OpenOrders'], latency_ms: 8_000 });
    const hungAt = Date.now();
    const sync = executor.pair(BTC)?.reconcile();
    await new Promise((r) => setTimeout(r, 6_500));
    const last = await h.flags.alive('executor');
    assert.ok(
      last !== undefined && last < hungAt + 1_000,
      `last beat ${last! - hungAt} ms after the hang began`,
    );
    assert.ok(last >= beforeHang);
    await h.sim.admin('POST', '/_sim/faults', {});
    await sync;
    await until(
      'a beat after the step ended',
      async () => (((await h.flags.alive('executor')) ?? 0) > hungAt + 6_500 ? true : undefined),
      8_000,
    );
  });
});
