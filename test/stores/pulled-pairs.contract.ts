import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { PullList } from '../../src/bus/index.js';

export interface PullFixture {
  readonly list: PullList;
  /** Another process's list on the same state (MemoryPullList: the same, one process). */
  readonly other: PullList;
  close(): Promise<void>;
}

/** PullList's contract (src/bus/pulled-pairs.ts). */
export function pullListContract(name: string, make: () => Promise<PullFixture>): void {
  void describe(`PullList contract: ${name}`, () => {
    let fx: PullFixture;
    beforeEach(async () => {
      fx = await make();
    });
    afterEach(() => fx.close());

    void it('pull keeps the first reason; another sees it on its next read; restore lifts it', async () => {
      const { list, other } = fx;
      const before = await other.read();
      assert.equal(before.size, 0);
      assert.equal(other.has('ETHUSD'), false);
      const state = { by: 'operator:console (alice)', reason: 'news', sinceMs: 1_700_000_000_000 };
      assert.equal(await list.pull('ETHUSD', state), true);
      assert.equal(list.has('ETHUSD'), true, 'the puller sees its own pull at once');
      assert.equal(await list.pull('ETHUSD', { ...state, reason: 'again' }), false);
      assert.equal(before.size, 0, 'a read is a snapshot');
      await other.read();
      assert.deepEqual(other.current().get('ETHUSD'), state, 'the first reason stays');
      assert.deepEqual([...(await other.read()).keys()], ['ETHUSD']);
      assert.equal(other.has('XBTUSD'), false);

      assert.deepEqual(await list.restore('ETHUSD'), state, 'restore says which pull it ended');
      assert.equal(list.has('ETHUSD'), false);
      assert.equal(await list.restore('ETHUSD'), undefined);
      await other.read();
      assert.equal(other.has('ETHUSD'), false);
    });

    void it('refuses an empty pair naming the field', async () => {
      await assert.rejects(fx.list.pull('', { by: 'cli', reason: 'x', sinceMs: 1 }), {
        field: 'pair',
      });
      assert.equal((await fx.list.read()).size, 0);
    });
  });
}
