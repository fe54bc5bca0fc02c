import assert from 'node:assert/strict';
import { channel } from 'node:diagnostics_channel';
import { after, before, beforeEach, describe, it } from 'node:test';
import { encodeUserref } from '../../../src/core/index.js';
import type { SignedMessage } from '../../../src/exchange/client/diagnostics.js';
import { SHARE_MS } from '../../../src/executor/exchange-orders.js';
import { PairContext } from '../../../src/executor/pair-context.js';
import { OrderSync } from '../../../src/executor/order-sync.js';
import { PairExecutor } from '../../../src/executor/pair-executor.js';
import { sendCall } from '../../../src/executor/call-send.js';
import { loadPairs } from '../../../src/market/index.js';
import { startParts, type Parts } from './support.js';

/**
 * The pairs' periodic syncs share the key's OpenOrders and ClosedOrders reads (one REST point
 * each) when a read was asked after the pair's last order-entry call was answered and at most
 * SHARE_MS ago. Counted as the exchange counts them: the signed calls the client sends.
 */
void describe('order reads shared by the pairs’ syncs', () => {
  let p: Parts;
  let eth: PairContext;
  const signed: string[] = [];
  const count = (m: unknown) => signed.push((m as SignedMessage).endpoint);
  const calls = (endpoint: string) => signed.filter((e) => e === endpoint).length;
  const syncs = () => [new OrderSync(p.ctx), new OrderSync(eth)] as const;

  before(async () => {
    p = await startParts({ tier: 'pro' });
    const [pair] = await loadPairs(p.client, ['ETHUSD']);
    if (pair === undefined) throw new Error('the simulator has no ETHUSD');
    const lease = p.leases.lease(pair.id, 'parts', 3_600_000);
    assert.ok(await lease.tryAcquire());
    eth = new PairContext({ ...p.ctx.deps, pair, lease });
    channel('makerd:exchange:signed').subscribe(count);
  });
  after(async () => {
    channel('makerd:exchange:signed').unsubscribe(count);
    await p.close();
  });
  beforeEach(async () => {
    // Each case starts a while after the last: no read of an earlier case is fresh.
    await p.advance(SHARE_MS + 1);
    signed.length = 0;
  });

  void it('two pairs syncing together send one OpenOrders and one ClosedOrders', async () => {
    const [btcSync, ethSync] = syncs();
    await Promise.all([btcSync.run('all', -Infinity), ethSync.run('all', -Infinity)]);
    assert.deepEqual([calls('OpenOrders'), calls('ClosedOrders')], [1, 1]);
  });

  void it('a sync after a CancelAll takes no read asked before it was heard of, and shares after', async () => {
    // The bitcoin pair's periodic read, then the supervisor's word of a CancelAll a moment later.
    const both = [
      new PairExecutor(p.ctx, () => Promise.resolve()),
      new PairExecutor(eth, () => Promise.resolve()),
    ];
    await new OrderSync(p.ctx).run('all', -Infinity);
    await p.advance(1);
    await Promise.all(both.map((ex) => ex.cancelledAll(p.clock.now())));
    // One pair of reads for the CancelAll, both pairs: asked after it, so not the periodic one.
    assert.deepEqual([calls('OpenOrders'), calls('ClosedOrders')], [2, 2]);
    // A sync that must ask its own (the start, a replay's last look) does.
    await p.advance(1);
    await new OrderSync(eth).run('all');
    assert.deepEqual([calls('OpenOrders'), calls('ClosedOrders')], [3, 3]);
    await Promise.all(both.map((ex) => ex.stop()));
  });

  void it('a read older than SHARE_MS is not shared', async () => {
    const [btcSync, ethSync] = syncs();
    await btcSync.run('all', -Infinity);
    await p.advance(SHARE_MS + 1);
    await ethSync.run('all', -Infinity);
    assert.deepEqual([calls('OpenOrders'), calls('ClosedOrders')], [2, 2]);
  });

  void it('a pair whose order was answered after the read asks again, and sees the order', async () => {
    const [btcSync, ethSync] = syncs();
    await btcSync.run('all', -Infinity);
    await p.advance(1);
    // Ours (instance 1), placed through the pair's order entry, but with no record: a crash
    // between the answer and the write. A read asked before the answer would not show it.
    const userref = encodeUserref(1, { side: 'buy', level: 2 }, 3);
    const { result } = await sendCall(eth, p.wire, 'AddOrder', [], (o) =>
      p.client.addOrder(
        {
          pair: 'ETHUSD',
          type: 'buy',
          ordertype: 'limit',
          price: '1000.00',
          volume: '0.1',
          userref,
          oflags: 'post',
        },
        o,
      ),
    );
    const txid = result.txid?.[0] ?? '';
    const synced = await ethSync.run('all', -Infinity);
    assert.equal(calls('OpenOrders'), 2);
    assert.equal(synced.adopted, 1);
    assert.equal(eth.byTxid(txid)?.origin, 'adopted');
  });

  void it('pairs whose steps run late by different amounts keep syncing together', async () => {
    // Each pair's wake-up is taken as a job some time later (the queue, a busy process): the
    // ether pair's 300 ms late every time. Its periodic sync keeps its rate rather than
    // restarting from its late step, so it stays 300 ms behind the bitcoin pair's, within
    // SHARE_MS, and shares its reads every round: 6 rounds of two syncs, 6 OpenOrders.
    const intervalMs = p.ctx.deps.config.reconcile_interval_ms;
    const wanted: { ex: PairExecutor; atMs: number }[] = [];
    const executor = (ctx: PairContext, lateMs: number): PairExecutor => {
      const ex: PairExecutor = new PairExecutor(ctx, () => {
        wanted.push({ ex, atMs: p.clock.now() + lateMs });
        return Promise.resolve();
      });
      return ex;
    };
    const both = [executor(p.ctx, 0), executor(eth, 300)];
    await Promise.all(both.map((ex) => ex.start()));
    // As the executor does once a pair is taken: its first job.
    await Promise.all(both.map((ex) => ex.wake()));
    const syncs = async (): Promise<number[]> => [
      await p.metric('makerd_reconciles_total', { outcome: 'all' }),
      await p.metric('makerd_reconciles_total', { pair: eth.label, outcome: 'all' }),
    ];
    const before = await syncs();
    signed.length = 0;
    const end = p.clock.now() + 6 * intervalMs + 500;
    while (p.clock.now() < end) {
      wanted.sort((a, b) => a.atMs - b.atMs);
      const next = wanted.shift();
      if (next === undefined || next.atMs > end) {
        await p.advance(1_000);
        continue;
      }
      await p.advance(Math.max(0, next.atMs - p.clock.now()));
      await next.ex.step();
    }
    await Promise.all(both.map((ex) => ex.stop()));
    const after = await syncs();
    assert.deepEqual(
      after.map((n, i) => n - (before[i] ?? 0)),
      [6, 6],
      'each pair synced every interval',
    );
    assert.deepEqual([calls('OpenOrders'), calls('ClosedOrders')], [6, 6], 'one read a round');
  });
});
