import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { ManualClock } from '../../src/core/index.js';
import type { Leases } from '../../src/executor/index.js';

const PAIR = 'XXBTZUSD';
const ETH = 'XETHZUSD';
const TTL = 30_000;

export interface LeasesFixture {
  readonly leases: Leases;
  /** The clock the leases' held() reads. */
  readonly clock: ManualClock;
  /**
   * Lets `ms` pass for the lease keys' expiry too: the manual clock for MemoryLeases; Redis
   * expires keys in real time (PX), so there it also waits that long.
   */
  elapse(ms: number): Promise<void>;
  close(): Promise<void>;
}

/** Leases' contract (src/executor/lease.ts): one holder per pair, renewals, release, expiry. */
export function leasesContract(name: string, make: () => Promise<LeasesFixture>): void {
  void describe(`Leases contract: ${name}`, () => {
    let fx: LeasesFixture;
    beforeEach(async () => {
      fx = await make();
    });
    afterEach(() => fx.close());

    void it('one holder per pair: the first acquire wins, the owner is named', async () => {
      const a = fx.leases.lease(PAIR, 'exec-a', TTL);
      const b = fx.leases.lease(PAIR, 'exec-b', TTL);
      assert.equal(await fx.leases.taken(PAIR), false);
      assert.equal(await a.owner(), undefined);
      assert.equal(a.held(), false, 'not held before it is acquired');

      assert.equal(await a.tryAcquire(), true);
      assert.equal(await b.tryAcquire(), false);
      assert.equal(a.held(), true);
      assert.equal(b.held(), false);
      assert.equal(await b.owner(), 'exec-a');
      assert.equal(await fx.leases.taken(PAIR), true);
      assert.equal(await fx.leases.taken(ETH), false, 'pairs are apart');
      assert.equal(await fx.leases.lease(ETH, 'exec-b', TTL).tryAcquire(), true);
      assert.equal(a.tookOverFrom, undefined);
    });

    void it('a token per lease, starting with its owner; the fence is key and token', async () => {
      const a = fx.leases.lease(PAIR, 'exec-a', TTL);
      const again = fx.leases.lease(PAIR, 'exec-a', TTL);
      assert.match(a.token, /^exec-a#/);
      assert.notEqual(a.token, again.token);
      assert.deepEqual(a.fence, { key: a.key, token: a.token });
      assert.equal(again.key, a.key);
      assert.notEqual(fx.leases.lease(ETH, 'exec-a', TTL).key, a.key);
      assert.equal(await a.tryAcquire(), true);
      assert.equal(await again.tryAcquire(), false, 'the same owner label is another holder');
    });

    void it('held() ends two thirds into the ttl unless renewed; renew restarts it', async () => {
      const a = fx.leases.lease(PAIR, 'exec-a', TTL);
      await a.tryAcquire();
      await fx.clock.advance(TTL / 2);
      assert.equal(a.held(), true);
      assert.equal(await a.renew(), true);
      await fx.clock.advance(TTL / 2);
      assert.equal(a.held(), true, 'renewed half a ttl ago');
      await fx.clock.advance(TTL * (2 / 3) - TTL / 2);
      assert.equal(a.held(), false, 'two thirds of the ttl since the renewal');
      assert.equal(await fx.leases.taken(PAIR), true, 'the key itself lives the whole ttl');
      assert.equal(await a.renew(), true, 'and can still be renewed');
      assert.equal(a.held(), true);
    });

    void it('release frees the pair for another holder; the old one can no longer renew', async () => {
      const a = fx.leases.lease(PAIR, 'exec-a', TTL);
      const b = fx.leases.lease(PAIR, 'exec-b', TTL);
      await a.tryAcquire();
      await b.release();
      assert.equal(await a.owner(), 'exec-a', 'a release by a non-holder deletes nothing');
      assert.equal(await b.renew(), false, 'a non-holder cannot renew');

      await a.release();
      assert.equal(a.held(), false);
      assert.equal(await fx.leases.taken(PAIR), false);
      assert.equal(await a.owner(), undefined);
      assert.equal(await b.tryAcquire(), true);
      assert.equal(await a.renew(), false);
      assert.equal(a.held(), false);
      assert.equal(await a.owner(), 'exec-b');
    });

    void it('an unrenewed lease expires after its ttl and another holder takes the pair', async () => {
      const ttl = 80;
      const a = fx.leases.lease(PAIR, 'exec-a', ttl);
      const b = fx.leases.lease(PAIR, 'exec-b', ttl);
      assert.equal(await a.tryAcquire(), true);
      await fx.elapse(ttl + 20);
      assert.equal(await fx.leases.taken(PAIR), false);
      assert.equal(await a.owner(), undefined);
      assert.equal(await b.tryAcquire(), true);
      assert.equal(await a.renew(), false, 'expired: someone else holds it');
      assert.equal(a.held(), false);
      assert.equal(b.held(), true);
    });
  });
}
