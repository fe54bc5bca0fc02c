import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { InvalidInputError } from '../../../src/core/index.js';
import {
  InvalidNonceError,
  NonceBlockSource,
  RedisNonceSource,
} from '../../../src/exchange/index.js';
import { REDIS_URL } from '../../support/redis.js';
import { startTestSim, type TestSim } from '../../support/sim.js';
import { SettableClock } from '../../support/settable-clock.js';

const T0 = 1_700_000_000_000;

/** Counts the EVALs a connection sends: each is one nonce script (or block) from Redis. */
function countEvals(redis: Redis): { readonly count: () => number } {
  let n = 0;
  const evalFn = redis.eval.bind(redis) as (...args: unknown[]) => Promise<unknown>;
  (redis as unknown as { eval: (...args: unknown[]) => Promise<unknown> }).eval = (...args) => {
    n++;
    return evalFn(...args);
  };
  return { count: () => n };
}

void describe('NonceBlockSource', () => {
  let redis: Redis;
  const keys: string[] = [];
  const keyName = (): string => {
    const k = `makerd-test:nonce-blocks:${randomUUID()}`;
    keys.push(k);
    return k;
  };
  before(() => {
    redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  });
  after(async () => {
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  void it('refuses a window smaller than four blocks, naming the field', () => {
    const shared = new RedisNonceSource({ redis, key: keyName() });
    assert.throws(
      () => new NonceBlockSource({ shared, window: 63 }),
      (err: unknown) =>
        err instanceof InvalidInputError &&
        err.field === 'window' &&
        /at least 64/.test(err.message),
    );
  });

  void it('hands out a block without a round trip per nonce, above what others took before', async () => {
    const clock = new SettableClock(T0);
    const key = keyName();
    const conn = new Redis(REDIS_URL);
    try {
      const evals = countEvals(conn);
      const other = new RedisNonceSource({ redis, key, clock });
      const before = await other.next();
      const source = new NonceBlockSource({
        shared: new RedisNonceSource({ redis: conn, key, clock }),
        window: 1_000,
        size: 16,
        clock,
      });
      const first = await source.next();
      assert.ok(first > before, `${first} is above ${before}, taken earlier by another process`);
      assert.equal(evals.count(), 1, 'one block fetched');
      const next: number[] = [];
      for (let i = 0; i < 6; i++) next.push(await source.next());
      assert.deepEqual(
        next,
        [1, 2, 3, 4, 5, 6].map((i) => first + i),
      );
      assert.equal(evals.count(), 1, 'six more nonces, no Redis command');
      // Half the block used: the next one is fetched in the background, once.
      assert.equal(await source.next(), first + 7);
      assert.equal(await source.next(), first + 8);
      assert.equal(evals.count(), 2);
      // Another process takes its nonce above both blocks: no nonce is ever handed out twice.
      const later = await other.next();
      assert.ok(later >= first + 32, `${later} is above the spare block`);
    } finally {
      await conn.quit();
    }
  });

  void it('hands out no nonce older than half the window: it takes a fresh block instead', async () => {
    const clock = new SettableClock(T0);
    const key = keyName();
    const source = new NonceBlockSource({
      shared: new RedisNonceSource({ redis, key, clock }),
      window: 1_000,
      clock,
    });
    const first = await source.next();
    clock.ms += 500;
    // first + 1 is 499 ms old: still within half the window (and a quarter old: a spare is
    // fetched behind it, at the clock).
    assert.equal(await source.next(), first + 1);
    clock.ms += 2;
    const fresh = await source.next();
    assert.ok(fresh >= T0 + 500, `${fresh} was taken at the clock, not left over from ${first}`);
  });

  void describe('against the simulator', () => {
    let sim: TestSim;
    before(async () => {
      sim = await startTestSim();
    });
    after(() => sim.close());

    void it('signs within the key\u2019s window while another process signs later nonces first', async () => {
      const key = sim.addAccount({ nonceWindow: 1_000 });
      const nonceKey = keyName();
      const blocks = new NonceBlockSource({
        shared: new RedisNonceSource({ redis, key: nonceKey }),
        window: 1_000,
      });
      const mine = sim.client({ key, nonceSource: blocks });
      const theirs = sim.client({
        key,
        nonceSource: new RedisNonceSource({ redis, key: nonceKey }),
      });
      await mine.balance();
      for (let i = 0; i < 5; i++) {
        // Theirs is above the rest of my block, and reaches the exchange first.
        await theirs.balance();
        await mine.balance();
      }
    });

    void it('gives blocks up when the exchange refuses one of its nonces, and says why', async () => {
      const key = sim.addAccount({ nonceWindow: 0 });
      const nonceKey = keyName();
      const told: string[] = [];
      const blocks = new NonceBlockSource({
        shared: new RedisNonceSource({ redis, key: nonceKey }),
        window: 1_000,
        onGiveUp: (reason) => told.push(reason),
      });
      const mine = sim.client({ key, nonceSource: blocks, retry: { retries: 0 } });
      const theirs = sim.client({
        key,
        nonceSource: new RedisNonceSource({ redis, key: nonceKey }),
      });
      await mine.balance();
      await theirs.balance();
      await assert.rejects(mine.balance(), InvalidNonceError);
      assert.equal(told.length, 1);
      assert.match(told[0] ?? '', /exchange\.nonce_window/);
      // From now on every nonce is taken at signing, above everything used before.
      await mine.balance();
      await theirs.balance();
      await mine.balance();
    });
  });
});
