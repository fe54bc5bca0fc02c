import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { MATCHING_ENGINE, cancelPenalty } from '../../../src/exchange/limits/index.js';
import { ExecutorMetrics, MemoryRatecountStore } from '../../../src/executor/index.js';
import { CancelCharges } from '../../../src/executor/cancel-charges.js';
import { OrderSync } from '../../../src/executor/order-sync.js';
import { logCollector, type LogEntry } from '../../safety/log-collector.js';
import { metricValue } from '../../support/metrics.js';
import { trackedOrder } from '../../support/tracked-order.js';
import { startParts } from './support.js';

const T0 = 1_800_000_000_000;
const PAIR = { id: 'XXBTZUSD', label: 'XBTUSD' };
/** pro: 3.75 points a second. */
const LIMITS = MATCHING_ENGINE.pro;

function charges() {
  const ratecount = new MemoryRatecountStore(LIMITS);
  const registry = new Registry();
  const logs: LogEntry[] = [];
  const told: [number, number][] = [];
  const c = new CancelCharges(PAIR, {
    ratecount,
    metrics: new ExecutorMetrics(registry),
    log: logCollector(logs),
    onCancelledByOthers: (orders, points) => told.push([orders, points]),
  });
  const level = async (atMs: number): Promise<number> =>
    (await ratecount.level(PAIR.id, atMs)).level;
  return { c, level, logs, told, registry };
}

const open = (txid: string, openedAtMs: number, more = {}) =>
  trackedOrder({ txid, userref: Number(txid.slice(1)), openedAtMs, ...more });
const cancelled = (o: ReturnType<typeof open>) => ({
  ...o,
  state: 'canceled' as const,
  reason: 'User requested',
});

/**
 * Issue #42 item 1: the exchange charges each order a CancelAll or the dead-man timer cancels its
 * age penalty; the model charges each such order once, at the time of the cancel.
 */
void describe('CancelCharges', () => {
  void it('charges an order cancelled without a call of ours by its age, at the time of the cancel', async () => {
    const { c, level, told, logs, registry } = charges();
    const young = open('O1', T0);
    const older = open('O2', T0 - 20_000);
    c.viewed(young, cancelled(young), T0 + 1_000);
    c.viewed(older, cancelled(older), T0 + 1_000);
    assert.equal(await level(T0 + 1_000), 0, 'owed, not charged before charge()');
    await c.charge();
    const points = cancelPenalty(1_000) + cancelPenalty(21_000);
    assert.equal(await level(T0 + 1_000), points);
    // Charged at the cancel: decayed since, as the exchange's counter.
    assert.equal(await level(T0 + 3_000), points - 2 * LIMITS.decayPerSec);
    assert.deepEqual(told, [[2, points]]);
    assert.equal(logs[0]?.fields.orders, 2);
    assert.equal(
      await metricValue(registry, 'makerd_ratecount_points_total', {
        action: 'cancelled-by-others',
      }),
      points,
    );

    await c.charge();
    assert.deepEqual(told, [[2, points]], 'once');
  });

  void it('charges nothing for our own cancels and edits, for fills, or for orders still open', async () => {
    const { c, level } = charges();
    const ours = open('O3', T0, { pendingCall: 'cancel' });
    const edited = open('O4', T0, { pendingCall: 'edit' });
    const filled = open('O5', T0);
    const resting = open('O6', T0);
    c.viewed(ours, cancelled(ours), T0);
    c.viewed(edited, cancelled(edited), T0);
    c.viewed(filled, { ...filled, state: 'filled', reason: 'filled' }, T0);
    c.viewed(resting, resting, T0);
    await c.charge();
    assert.equal(await level(T0), 0);
  });

  void it('charges an order retired as gone once ClosedOrders says it was cancelled, not filled', async () => {
    const { c, level } = charges();
    const gone = open('O7', T0);
    const goneFilled = open('O8', T0);
    c.retiredAsGone(gone);
    c.retiredAsGone(goneFilled);
    const closed = [cancelled(gone), { ...goneFilled, state: 'filled' as const }];
    c.settleGone(closed, () => T0 + 6_000);
    c.settleGone(closed, () => T0 + 6_000);
    await c.charge();
    assert.equal(await level(T0 + 6_000), cancelPenalty(6_000), 'the cancelled one, once');
  });

  void it("charges the key's other orders cancelled, once across overlapping reads; not fills or our own cancels", async () => {
    const { c, level } = charges();
    const foreign = (canceled: boolean, openedAtMs: number, closedAtMs: number) => ({
      canceled,
      openedAtMs,
      closedAtMs,
    });
    // The dead-man timer's CancelAll took two off at T0 + 2 s; one had filled; one we cancelled.
    c.foreignCancelled(['F4']);
    const first = new Map([
      ['F1', foreign(true, T0, T0 + 2_000)],
      ['F2', foreign(true, T0 - 30_000, T0 + 2_000)],
      ['F3', foreign(false, T0, T0 + 1_000)],
      ['F4', foreign(true, T0, T0 + 1_500)],
    ]);
    c.settleForeign(first);
    await c.charge();
    const points = cancelPenalty(2_000) + cancelPenalty(32_000);
    assert.equal(await level(T0 + 2_000), points);
    // The next read starts before the last ended: what it listed then is not charged again.
    c.settleForeign(new Map([...first, ['F5', foreign(true, T0 + 3_000, T0 + 4_000)]]));
    await c.charge();
    assert.equal(
      await level(T0 + 4_000),
      points - 2 * LIMITS.decayPerSec + cancelPenalty(1_000),
      'only F5',
    );
  });

  void it('keeps what it owes when the model cannot be written, for the next try', async () => {
    const store = new MemoryRatecountStore(LIMITS);
    let away = true;
    const c = new CancelCharges(PAIR, {
      ratecount: {
        add: (pair, points, nowMs) =>
          away ? Promise.reject(new Error('Redis away')) : store.add(pair, points, nowMs),
      },
      metrics: new ExecutorMetrics(new Registry()),
      log: logCollector([]),
    });
    const o = open('O9', T0);
    c.viewed(o, cancelled(o), T0);
    await assert.rejects(c.charge(), /Redis away/);
    away = false;
    await c.charge();
    assert.equal((await store.level(PAIR.id, T0)).level, cancelPenalty(0));
  });
});

/**
 * The exchange charges a CancelAll's cancels to the pair's counter for every order it takes off,
 * the key's other orders too (spec: "CancelAll and CancelAllOrdersAfter also add cancellation
 * penalties per pair"); the full sync after it charges the model for them from ClosedOrders.
 */
void describe('CancelCharges on the simulator', () => {
  void it("charges the model for the key's other order a CancelAll took off", async () => {
    const p = await startParts({ tier: 'pro' });
    try {
      const sync = new OrderSync(p.ctx);
      await sync.run('all');
      // Another program on the key (no userref of ours) rests a bid.
      await p.client.addOrder({
        pair: 'XBTUSD',
        type: 'buy',
        ordertype: 'limit',
        price: '30000.0',
        volume: '0.01',
      });
      await p.advance(2_000);
      const cancelAt = p.clock.now();
      assert.equal((await p.client.cancelAll()).result.count, 1);
      await sync.run('all');
      await p.ctx.cancelCharges.charge();
      const { level } = await p.ratecount.level(p.pair.id, cancelAt);
      assert.equal(level, cancelPenalty(2_000));
      const { body } = await p.sim.admin('GET', '/_sim/state');
      const exchange = (body as { ratecount: Record<string, Record<string, { level: number }>> })
        .ratecount;
      const counted = Object.values(exchange)[0]?.[p.pair.id]?.level ?? 0;
      // The exchange also counted the other program's AddOrder, which no read of ours shows.
      assert.ok(counted >= level, `exchange ${counted}, model ${level}`);
    } finally {
      await p.close();
    }
  });
});
