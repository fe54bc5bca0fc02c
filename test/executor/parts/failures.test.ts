import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { errorFromString } from '../../../src/exchange/errors/index.js';
import { classifyFailure } from '../../../src/executor/index.js';
import { recordFailure } from '../../../src/executor/failures.js';
import { TrackerError } from '../../../src/orders/index.js';
import { restingBid, startParts, type Parts } from './support.js';

const refusal = (raw: string) =>
  classifyFailure(errorFromString(raw, { traceId: undefined, endpoint: 'AddOrder' }));

void describe('recordFailure (executor failures)', () => {
  let p: Parts;
  before(async () => {
    p = await startParts({ tier: 'pro' });
  });
  after(() => p.close());
  // Each test its own slot of the one pair, and the pair's learned state reset.
  let n = 0;
  let placing: ReturnType<typeof restingBid>;
  beforeEach(() => {
    n += 1;
    p.ctx.learnedMode = undefined;
    p.ctx.modeUntilMs = 0;
    p.ctx.pausedUntilMs = 0;
    placing = restingBid(p, {
      userref: 100 + n,
      txid: null,
      slot: `bid:${n}`,
      state: 'pending-new',
      pendingCall: 'add',
      openedAtMs: 0,
    });
  });

  void it('an unknown outcome puts the records in state unknown, to be resolved by query', async () => {
    const editing = restingBid(p, { userref: 900, txid: 'OEDIT-1', slot: 'ask:9', side: 'sell' });
    await p.ctx.persist([placing, editing]);
    await p.advance(250);
    const replaced = { ...editing, state: 'canceled' as const, reason: 'replaced' };
    await recordFailure(
      p.ctx,
      [placing],
      'AddOrder',
      classifyFailure(new DOMException('late', 'TimeoutError')),
      [replaced],
    );

    const stored = await p.tracker.get(p.pair.id, placing.userref);
    assert.equal(stored?.state, 'unknown');
    assert.equal(stored?.updatedAtMs, p.clock.now());
    assert.equal(p.ctx.orders.get(placing.userref)?.state, 'unknown', 'the memory copy too');
    assert.equal((await p.tracker.history(p.pair.id))[0]?.reason, 'replaced', '`also` written');
    assert.equal(
      await p.metric('makerd_order_actions_total', { action: 'AddOrder', outcome: 'unknown' }),
      1,
    );
    const line = p.logs.at(-1);
    assert.equal(line?.msg, 'order-entry outcome unknown');
    assert.deepEqual(line?.fields, { action: 'AddOrder', reason: 'TIMEOUT', orders: 1 });
  });

  void it('a refusal rejects the placement and frees its slot; nothing else is learned', async () => {
    await p.ctx.persist([placing]);
    await recordFailure(p.ctx, [placing], 'AddOrder', refusal('EOrder:Insufficient funds'));

    assert.equal(await p.tracker.get(p.pair.id, placing.userref), undefined);
    const [rejected] = await p.tracker.history(p.pair.id, 1);
    assert.equal(rejected?.userref, placing.userref);
    assert.equal(rejected?.state, 'rejected');
    assert.equal(rejected?.reason, 'EOrder:Insufficient funds');
    assert.equal(rejected?.pendingCall, null);
    assert.equal(p.ctx.slotOrder(placing.slot), undefined, 'the slot is free again');
    assert.equal(
      await p.metric('makerd_order_rejections_total', { error: 'EOrder:Insufficient funds' }),
      1,
    );
    assert.equal(p.ctx.mode(), 'online');
    assert.equal(p.ctx.pausedUntilMs, 0);
    assert.equal((await p.ratecount.level(p.pair.id, p.clock.now())).level, 0);
  });

  void it('a refusal of a call on a resting order leaves that order as it was', async () => {
    const resting = restingBid(p, { userref: 300 + n, txid: `OREST-${n}`, slot: `bid:${n}` });
    await p.ctx.persist([resting]);
    await recordFailure(p.ctx, [resting], 'CancelOrder', refusal('EGeneral:Invalid arguments'));
    assert.deepEqual(await p.tracker.get(p.pair.id, resting.userref), resting);
  });

  void it('the venue’s mode is learned for five seconds', async () => {
    await p.ctx.persist([placing]);
    await recordFailure(
      p.ctx,
      [placing],
      'AddOrder',
      refusal('EService:Market in cancel_only mode'),
    );
    assert.equal(p.ctx.mode(), 'cancel_only');
    await p.advance(4_999);
    assert.equal(p.ctx.mode(), 'cancel_only');
    await p.advance(1);
    assert.equal(p.ctx.mode(), 'online');
  });

  void it('a ratecount refusal fills the model to the max', async () => {
    await p.ctx.persist([placing]);
    await recordFailure(p.ctx, [placing], 'AddOrder', refusal('EOrder:Rate limit exceeded'));
    const max = p.ratecount.limits.max;
    assert.equal((await p.ratecount.level(p.pair.id, p.clock.now())).level, max);
    assert.equal(await p.metric('makerd_ratecount_level'), max);
    await p.ratecount.refund(p.pair.id, max, p.clock.now());
  });

  void it('a throttle pauses order entry until the exchange’s time; a pause is never shortened', async () => {
    await p.ctx.persist([placing]);
    const untilSec = Math.ceil(p.clock.now() / 1000) + 30;
    await recordFailure(p.ctx, [placing], 'AddOrder', refusal(`EService:Throttled: ${untilSec}`));
    assert.equal(p.ctx.pausedUntilMs, untilSec * 1000);
    // Another wait with no time of its own: a second, which ends before the throttle does.
    await recordFailure(p.ctx, [], 'AddOrder', refusal('EAPI:Rate limit exceeded'));
    assert.equal(p.ctx.pausedUntilMs, untilSec * 1000);
    p.ctx.pausedUntilMs = 0;
    await recordFailure(p.ctx, [], 'AddOrder', refusal('EAPI:Rate limit exceeded'));
    assert.equal(p.ctx.pausedUntilMs, p.clock.now() + 1_000);
  });

  void it('writes nothing once another executor holds the pair’s lease', async () => {
    await p.ctx.persist([placing]);
    await p.lease.release();
    const other = p.leases.lease(p.pair.id, 'other', 60_000);
    assert.equal(await other.tryAcquire(), true);
    try {
      await assert.rejects(
        recordFailure(p.ctx, [placing], 'AddOrder', refusal('EOrder:Insufficient funds')),
        (err) => err instanceof TrackerError && err.code === 'TRACKER_FENCED',
      );
      assert.equal((await p.tracker.get(p.pair.id, placing.userref))?.state, 'pending-new');
    } finally {
      await other.release();
      assert.equal(await p.lease.tryAcquire(), true);
    }
  });
});
