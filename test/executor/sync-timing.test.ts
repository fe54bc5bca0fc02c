import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { encodeUserref, parseSlotKey } from '../../src/core/index.js';
import {
  FRESH_SNAPSHOT_MS,
  IDLE_SNAPSHOT_MS,
  SYNC_DEFER_MAX_MS,
  WAKE_CLEARANCE_MS,
  syncStartsNow,
} from '../../src/executor/sync-timing.js';
import { executorSuite, until } from './harness.js';

const NOW = 1_000_000;
const due = { nowMs: NOW, dueSinceMs: NOW - 100 };

void describe('syncStartsNow', () => {
  void it('starts right after a fresh snapshot when no budget wake is near', () => {
    const fresh = NOW - FRESH_SNAPSHOT_MS;
    assert.equal(syncStartsNow({ ...due, nextWakeMs: undefined, newestSnapshotAtMs: fresh }), true);
    assert.equal(
      syncStartsNow({ ...due, nextWakeMs: NOW + WAKE_CLEARANCE_MS, newestSnapshotAtMs: fresh }),
      true,
    );
  });

  void it('waits while a budget wake is near', () => {
    assert.equal(
      syncStartsNow({ ...due, nextWakeMs: NOW + WAKE_CLEARANCE_MS - 1, newestSnapshotAtMs: NOW }),
      false,
    );
  });

  void it('waits in the middle of a poll, when the next snapshot may come any moment', () => {
    assert.equal(
      syncStartsNow({ ...due, nextWakeMs: undefined, newestSnapshotAtMs: NOW - 200 }),
      false,
    );
  });

  void it('starts at once on a pair no runner is quoting', () => {
    for (const newest of [0, NOW - IDLE_SNAPSHOT_MS]) {
      assert.equal(
        syncStartsNow({ ...due, nextWakeMs: undefined, newestSnapshotAtMs: newest }),
        true,
      );
    }
  });

  void it('starts once it has waited the bound, however busy the pair', () => {
    const busy = { nextWakeMs: NOW + 1, newestSnapshotAtMs: NOW - 200 };
    assert.equal(
      syncStartsNow({ nowMs: NOW, dueSinceMs: NOW - SYNC_DEFER_MAX_MS + 1, ...busy }),
      false,
    );
    assert.equal(syncStartsNow({ nowMs: NOW, dueSinceMs: NOW - SYNC_DEFER_MAX_MS, ...busy }), true);
  });
});

void describe('the periodic full sync', () => {
  const suite = executorSuite({ reconcile_interval_ms: 5_000 });

  void it('runs when due on an idle pair: an order of ours it had no record of is adopted', async () => {
    const { h, executor } = suite;
    // Placed behind the executor's back with our userref, as a record lost in a crash leaves it.
    const userref = encodeUserref(1, parseSlotKey('bid:0'), 7);
    await h.sim.client({ key: h.key }).addOrder({
      pair: 'XBTUSD',
      type: 'buy',
      ordertype: 'limit',
      price: '40000',
      volume: '0.01',
      userref,
    });
    const startedAt = Date.now();
    const adopted = await until(
      'the order adopted',
      async () => (await executor.tracker.live('XXBTZUSD')).find((o) => o.userref === userref),
      8_000,
    );
    assert.equal(adopted.state, 'open');
    assert.equal(adopted.slot, 'bid:0');
    assert.ok(Date.now() - startedAt < 6_000, 'within one interval and its first check');
  });
});
