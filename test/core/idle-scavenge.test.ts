import assert from 'node:assert/strict';
import { setImmediate as turn } from 'node:timers/promises';
import { describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { holdWritesForTurn } from '../../src/bus/index.js';
import v8 from 'node:v8';
import {
  SCAVENGE_AT_FILL,
  collectStartupGarbage,
  endQuietWindow,
  quietAt,
  quietWindow,
  scavengeIfFilling,
  youngFill,
} from '../../src/core/index.js';
import { REDIS_URL } from '../support/redis.js';

/** Allocates short-lived garbage until the young generation is at least `share` full. */
function fillYoung(share: number): void {
  let sink: unknown[] = [];
  for (let i = 0; youngFill() < share; i++) {
    sink.push({ i, text: `garbage ${i}` });
    if (sink.length > 1_000) sink = [];
  }
}

void describe('scavengeIfFilling', () => {
  void it('collects the young generation once it is half full, and not before', () => {
    fillYoung(SCAVENGE_AT_FILL);
    const before = youngFill();
    assert.ok(before >= SCAVENGE_AT_FILL, `filled to ${before}`);
    assert.equal(scavengeIfFilling(), true);
    const after = youngFill();
    assert.ok(after < SCAVENGE_AT_FILL / 2, `${before} before the collection, ${after} after`);
    // Nearly empty now: nothing to do.
    assert.equal(scavengeIfFilling(), false);
  });

  void it('waits while a quiet window is open, and runs once it has ended', async () => {
    const owner = {};
    const other = {};
    try {
      quietWindow(owner, 0, Infinity);
      // A window that opens later holds nothing now.
      quietWindow(other, 50, Infinity);
      fillYoung(SCAVENGE_AT_FILL + 0.1);
      assert.equal(quietAt(), false);
      assert.equal(scavengeIfFilling(), false);
      assert.ok(youngFill() >= SCAVENGE_AT_FILL, 'nothing collected in the window');
      endQuietWindow(owner);
      assert.equal(quietAt(), true);
      assert.equal(scavengeIfFilling(), true);
      assert.ok(youngFill() < SCAVENGE_AT_FILL / 2, `collected: ${youngFill()}`);
      // The later window opens in its time and closes by itself at its end.
      quietWindow(other, 0, 30);
      assert.equal(quietAt(), false);
      await new Promise((resolve) => setTimeout(resolve, 40));
      assert.equal(quietAt(), true);
    } finally {
      endQuietWindow(owner);
      endQuietWindow(other);
    }
  });

  void it('runs when a held turn of Redis writes ends', async () => {
    const redis = new Redis(REDIS_URL);
    try {
      await redis.ping();
      fillYoung(SCAVENGE_AT_FILL + 0.1);
      holdWritesForTurn(redis);
      const pong = redis.ping();
      await turn();
      assert.ok(youngFill() >= SCAVENGE_AT_FILL, 'still held: nothing collected yet');
      assert.equal(await pong, 'PONG');
      assert.ok(youngFill() < SCAVENGE_AT_FILL / 2, `collected: ${youngFill()}`);
    } finally {
      await redis.quit();
    }
  });

  void it('collectStartupGarbage frees what start-up left in the old generation', () => {
    // Some 20 MB that survive young collections (so are old), then dropped.
    let kept: string[][] | undefined = Array.from({ length: 200 }, (_, i) =>
      Array.from({ length: 1_000 }, (_, j) => `start-up ${i} ${j}`),
    );
    scavengeIfFilling();
    scavengeIfFilling();
    assert.equal(kept.length, 200);
    kept = undefined;
    const before = v8.getHeapStatistics().used_heap_size;
    assert.equal(collectStartupGarbage(), true);
    const after = v8.getHeapStatistics().used_heap_size;
    assert.ok(before - after > 10_000_000, `${before} bytes in use before, ${after} after`);
  });
});
