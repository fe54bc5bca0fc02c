import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InvalidInputError, ManualClock } from '../../../src/core/index.js';
import {
  InProcessNonceSource,
  MAX_NONCE,
  NonceError,
  type NonceSource,
} from '../../../src/exchange/nonce/index.js';
import { SettableClock } from '../../support/settable-clock.js';

const T0 = 1_700_000_000_000;

async function take(source: NonceSource, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push(await source.next());
  return out;
}

function assertStrictlyIncreasing(values: readonly number[]): void {
  for (let i = 1; i < values.length; i++) {
    const prev = values[i - 1] ?? -Infinity;
    const cur = values[i] ?? -Infinity;
    assert.ok(cur > prev, `nonce #${i} = ${cur} is not above #${i - 1} = ${prev}`);
  }
}

void describe('InProcessNonceSource', () => {
  void it('starts at the clock and counts up by one while the clock stands still', async () => {
    const source = new InProcessNonceSource({ clock: new ManualClock(T0) });
    assert.deepEqual(await take(source, 5), [T0, T0 + 1, T0 + 2, T0 + 3, T0 + 4]);
  });

  void it('jumps to the clock once the clock has passed the last nonce', async () => {
    const clock = new ManualClock(T0);
    const source = new InProcessNonceSource({ clock });
    await take(source, 3);
    await clock.advance(1000);
    assert.equal(await source.next(), T0 + 1000);
  });

  void it('keeps increasing when the clock goes backwards', async () => {
    const clock = new SettableClock(T0);
    const source = new InProcessNonceSource({ clock });
    const seen = await take(source, 3);
    clock.ms = T0 - 60_000;
    seen.push(...(await take(source, 3)));
    clock.ms = T0 + 1; // back, but still below the last nonce handed out
    seen.push(...(await take(source, 3)));
    assertStrictlyIncreasing(seen);
    assert.equal(seen.at(-1), T0 + 8);
  });

  void it('drops fractions of a millisecond so nonces stay integers', async () => {
    const source = new InProcessNonceSource({ clock: new SettableClock(T0 + 0.75) });
    assert.equal(await source.next(), T0);
    assert.equal(await source.next(), T0 + 1);
  });

  void it('gives concurrent callers distinct nonces that increase in resolution order', async () => {
    const source = new InProcessNonceSource({ clock: new ManualClock(T0) });
    const resolved: number[] = [];
    await Promise.all(
      Array.from({ length: 1000 }, () =>
        source.next().then((n) => {
          resolved.push(n);
        }),
      ),
    );
    assert.equal(resolved.length, 1000);
    assert.equal(new Set(resolved).size, 1000);
    assertStrictlyIncreasing(resolved);
  });

  void it('hands out only nonces above the floor', async () => {
    const source = new InProcessNonceSource({ clock: new ManualClock(T0), floor: T0 + 500 });
    assert.equal(await source.next(), T0 + 501);
  });

  void it('refuses a floor that is not a safe non-negative integer', () => {
    for (const floor of [-1, 1.5, Number.NaN, MAX_NONCE]) {
      assert.throws(() => new InProcessNonceSource({ floor }), InvalidInputError);
    }
  });

  void it('rejects when the clock gives no usable time', async () => {
    for (const ms of [Number.NaN, -1, Number.POSITIVE_INFINITY]) {
      const source = new InProcessNonceSource({ clock: new SettableClock(ms) });
      await assert.rejects(source.next(), (err: unknown) => {
        assert.ok(err instanceof NonceError);
        assert.equal(err.code, 'NONCE_CLOCK_INVALID');
        return true;
      });
    }
  });

  void it('stops at the largest safe integer rather than repeat or lose precision', async () => {
    const source = new InProcessNonceSource({ clock: new ManualClock(T0), floor: MAX_NONCE - 1 });
    assert.equal(await source.next(), MAX_NONCE);
    await assert.rejects(source.next(), (err: unknown) => {
      assert.ok(err instanceof NonceError);
      assert.equal(err.code, 'NONCE_EXHAUSTED');
      assert.equal(err.retryable, false);
      return true;
    });
  });
});
