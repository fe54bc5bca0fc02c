import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { MATCHING_ENGINE, cancelPenalty } from '../../../src/exchange/limits/index.js';
import { ExecutorMetrics, MemoryRatecountStore } from '../../../src/executor/index.js';
import { CancelCharges } from '../../../src/executor/cancel-charges.js';
import { logCollector, type LogEntry } from '../../safety/log-collector.js';
import { metricValue } from '../../support/metrics.js';
import { trackedOrder } from '../../support/tracked-order.js';

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
