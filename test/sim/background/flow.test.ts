import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InvalidInputError, dec } from '../../../src/core/index.js';
import { BACKGROUND_TAKER_KEY } from '../../../src/sim/background/background-market.js';
import { parseSimConfig } from '../../../src/sim/config.js';
import { limitSpec } from '../../../src/sim/engine/limit-spec.js';
import type { OrderSpec } from '../../../src/sim/engine/types.js';
import { harness, type Harness } from './harness.js';

const STEP_MS = 250;

/** Fair value of XBT/USD after every step, by time. */
async function fairPath(h: Harness, ms: number): Promise<Map<number, number>> {
  const path = new Map<number, number>();
  path.set(h.clock.now(), Number(h.background.fairValue('XXBTZUSD')));
  for (let t = 0; t < ms; t += STEP_MS) {
    await h.run(STEP_MS, STEP_MS);
    path.set(h.clock.now(), Number(h.background.fairValue('XXBTZUSD')));
  }
  return path;
}

/** Share of XBT/USD prints whose taker side has the sign of fair value's move over `horizonMs`. */
function hitRate(h: Harness, path: Map<number, number>, horizonMs: number): number {
  let hits = 0;
  let counted = 0;
  for (const print of h.prints) {
    if (print.pair.id !== 'XXBTZUSD') continue;
    const now = path.get(print.timeMs);
    const later = path.get(print.timeMs + horizonMs);
    if (now === undefined || later === undefined || later === now) continue;
    counted += 1;
    if (later > now === (print.side === 'buy')) hits += 1;
  }
  assert.ok(counted > 300, `only ${counted} prints to judge`);
  return hits / counted;
}

describe('background flow', () => {
  it('replays the same tape and book from the same seed with every part of the model on', async () => {
    const busy = {
      makers: { cancels_per_sec: 20 },
      regimes: { calm_mean_s: 5, volatile_mean_s: 5 },
    };
    const a = harness({ seed: 8, ...busy });
    const b = harness({ seed: 8, ...busy });
    await a.run(120_000, STEP_MS);
    await b.run(120_000, STEP_MS);
    const tape = (h: Harness) =>
      h.prints.map((t) => `${t.side} ${t.price.toFixed()} ${t.volume.toFixed()} ${t.timeMs}`);
    const book = (h: Harness) =>
      h.engine
        .book(h.markets.requirePair('XXBTZUSD'))
        .bids.map((e) => `${e.price.toFixed()} ${e.qty.toFixed()}`);
    assert.ok(a.background.stats.informed > 0 && a.background.stats.requoted > 0);
    assert.deepEqual(tape(a), tape(b));
    assert.deepEqual(book(a), book(b));
    assert.deepEqual(a.background.stats, b.background.stats);
  });

  it('has informed takers trade ahead of the move, and noise takers not', async () => {
    const horizonMs = 10_000;
    const informed = harness({ seed: 21 });
    assert.equal(informed.config.background.informed.horizon_s * 1000, horizonMs);
    const informedRate = hitRate(informed, await fairPath(informed, 600_000), horizonMs);
    const noise = harness({ seed: 21, informed: { share: 0 } });
    const noiseRate = hitRate(noise, await fairPath(noise, 600_000), horizonMs);
    assert.ok(informedRate > 0.6, `default share: ${informedRate} of prints on the move's side`);
    assert.ok(
      Math.abs(noiseRate - 0.5) < 0.05,
      `share 0: ${noiseRate} of prints on the move's side`,
    );
  });

  it('switches between calm and volatile regimes, and moves more when volatile', async () => {
    const h = harness({ seed: 13, regimes: { calm_mean_s: 30, volatile_mean_s: 30 } });
    const moves = { calm: [] as number[], volatile: [] as number[] };
    let switches = 0;
    let regime = h.background.regime('XXBTZUSD');
    let fair = Number(h.background.fairValue('XXBTZUSD'));
    for (let t = 0; t < 600_000; t += STEP_MS) {
      await h.run(STEP_MS, STEP_MS);
      const now = h.background.regime('XXBTZUSD');
      const next = Number(h.background.fairValue('XXBTZUSD'));
      if (now !== regime) switches += 1;
      else if (now !== undefined) moves[now].push(Math.log(next / fair) ** 2);
      regime = now;
      fair = next;
    }
    assert.ok(switches >= 6, `${switches} regime switches in 10 minutes`);
    const rms = (xs: number[]) => Math.sqrt(xs.reduce((a, b) => a + b, 0) / xs.length);
    const ratio = rms(moves.volatile) / rms(moves.calm);
    // volatile_factor is 3; the fair value is read on the tick, so small moves round away.
    assert.ok(ratio > 2 && ratio < 4, `volatile/calm step size ${ratio}`);

    const single = harness({
      seed: 13,
      regimes: { volatile_factor: 1, volatile_spread_factor: 1 },
    });
    await single.run(120_000, 1_000);
    assert.equal(single.background.regime('XXBTZUSD'), 'calm');
  });

  it('draws order sizes with a heavy tail, and uniform ones with tail_alpha 0', async () => {
    const spread = async (sizes: Record<string, number>) => {
      const h = harness({ seed: 6, sizes });
      await h.run(600_000, 1_000);
      const taker = h.accounts.require(BACKGROUND_TAKER_KEY);
      const xbt = h.engine
        .closedOrders(taker)
        .filter((o) => o.pair.id === 'XXBTZUSD')
        .map((o) => o.spec.volume.toNumber())
        .sort((x, y) => x - y);
      assert.ok(xbt.length > 200, `${xbt.length} taker orders`);
      return (xbt[xbt.length - 1] as number) / (xbt[Math.floor(xbt.length / 2)] as number);
    };
    const heavy = await spread({});
    const uniform = await spread({ tail_alpha: 0 });
    assert.ok(heavy > 15, `max/median taker size ${heavy} with the default tail`);
    // Informed takers trade size_factor (3) times the mean: uniform sizes stay within 1.5 * 3 / 0.5.
    assert.ok(uniform <= 9, `max/median taker size ${uniform} with uniform sizes`);
  });

  it('moves a resting order forward in its queue by cancels, without a trade at its price', async () => {
    const quiet = {
      takers_per_sec: 0,
      volatility_per_sec: 0,
      regimes: { volatile_factor: 1, volatile_spread_factor: 1 },
    };
    const restingBid = async (cancels: number) => {
      const h = harness({ seed: 30, ...quiet, makers: { cancels_per_sec: cancels } });
      const xbt = h.markets.requirePair('XXBTZUSD');
      await h.run(1_000, STEP_MS);
      const user = h.accounts.upsert(
        { key: 'user', secret: 'c2VjcmV0', balances: { ZUSD: '1000000', XXBT: '10' } },
        h.clock.now(),
      );
      const price = h.engine.book(xbt).bids[0]!.price;
      const order = h.engine.place(user, bidAt(xbt, price));
      const queuePlace = () =>
        h.engine
          .book(xbt)
          .bids.filter((e) => e.price.eq(price))
          .findIndex((e) => e.txid === order.txid);
      return { h, queuePlace, price };
    };

    const { h, queuePlace, price } = await restingBid(10);
    const start = queuePlace();
    assert.equal(start, h.config.background.makers.orders_per_level, 'joins behind the level');
    for (let s = 0; s < 600 && queuePlace() > 0; s++) await h.run(STEP_MS, STEP_MS);
    assert.equal(queuePlace(), 0, 'never reached the front of its level');
    assert.equal(h.prints.filter((t) => t.price.eq(price)).length, 0);
    assert.ok(h.background.stats.requoted > 0);

    const still = await restingBid(0);
    await still.h.run(60_000, STEP_MS);
    assert.equal(still.queuePlace(), still.h.config.background.makers.orders_per_level);
  });

  it('refuses bad flow options with one line naming the field', () => {
    const bad = (background: unknown, field: string, reason: RegExp) =>
      assert.throws(
        () => parseSimConfig({ background }),
        (err: unknown) =>
          err instanceof InvalidInputError &&
          err.field === field &&
          reason.test(err.message) &&
          !err.message.includes('\n'),
      );
    bad({ informed: { share: 1.5 } }, 'sim.background.informed.share', /1/);
    bad({ informed: { horizon_s: 0 } }, 'sim.background.informed.horizon_s', /0/);
    bad(
      { sizes: { tail_alpha: 0.8 } },
      'sim.background.sizes.tail_alpha',
      /0 \(uniform sizes\) or above 1/,
    );
    bad({ regimes: { volatile_factor: 0.5 } }, 'sim.background.regimes.volatile_factor', /1/);
    bad({ makers: { orders_per_level: 0 } }, 'sim.background.makers.orders_per_level', /1/);
  });
});

/** A post-only bid of 0.01 as a user places it. */
function bidAt(pair: OrderSpec['pair'], price: ReturnType<typeof dec>): OrderSpec {
  const spec = limitSpec(pair, 'buy', dec('0.01'), price, 'GTC');
  return { ...spec, flags: { ...spec.flags, post: true } };
}
