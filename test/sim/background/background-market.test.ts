import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { dec } from '../../../src/core/index.js';
import {
  BACKGROUND_MAKER_KEY,
  BACKGROUND_TAKER_KEY,
} from '../../../src/sim/background/background-market.js';
import { limitSpec } from '../../../src/sim/engine/limit-spec.js';
import type { OrderSpec } from '../../../src/sim/engine/types.js';
import { harness } from './harness.js';

function tape(h: ReturnType<typeof harness>): string[] {
  return h.prints.map(
    (t) => `${t.pair.id} ${t.side} ${t.price.toFixed()} ${t.volume.toFixed()} ${t.timeMs}`,
  );
}

describe('BackgroundMarket', () => {
  it('replays the same prints from the same seed, and others from another seed', async () => {
    const a = harness({ seed: 42 });
    const b = harness({ seed: 42 });
    const c = harness({ seed: 43 });
    await a.run(60_000);
    await b.run(60_000);
    await c.run(60_000);
    assert.ok(a.prints.length > 50, `only ${a.prints.length} prints in a minute`);
    assert.deepEqual(tape(a), tape(b));
    assert.notDeepEqual(tape(a), tape(c));
  });

  it('gives the same market however the clock is chopped into ticks', async () => {
    const fine = harness({ seed: 5 });
    const coarse = harness({ seed: 5 });
    await fine.run(10_000, 50);
    await coarse.run(10_000, 1_000);
    const fair = (h: ReturnType<typeof harness>) =>
      h.markets.pairs.map((p) => h.background.fairValue(p.id));
    assert.deepEqual(fair(fine), fair(coarse));
    assert.equal(fine.background.stats.steps, coarse.background.stats.steps);
  });

  it('keeps a two-sided, uncrossed book around fair value that moves with it', async () => {
    const h = harness({ seed: 9, volatility_per_sec: 0.002 });
    const xbt = h.markets.requirePair('XXBTZUSD');
    await h.run(1_000);
    const first = h.engine.book(xbt);
    const prices = (side: readonly { price: { toFixed(): string } }[]) =>
      new Set(side.map((e) => e.price.toFixed())).size;
    assert.equal(prices(first.bids), h.config.background.levels);
    assert.equal(prices(first.asks), h.config.background.levels);
    const fv = dec(h.background.fairValue('XXBTZUSD') ?? '0');
    const bestBid = first.bids[0]!.price;
    const bestAsk = first.asks[0]!.price;
    assert.ok(bestBid.lt(bestAsk));
    assert.ok(
      bestBid.lte(fv) && bestAsk.gte(fv),
      `${bestBid.toFixed()} ${fv.toFixed()} ${bestAsk.toFixed()}`,
    );
    for (const e of [...first.bids, ...first.asks]) {
      assert.ok(e.price.mod(xbt.tick).isZero(), `${e.price.toFixed()} off tick`);
      assert.ok(e.qty.decimalPlaces() <= xbt.lot_decimals);
      assert.ok(e.qty.gte(xbt.orderMin));
    }
    await h.run(5 * 60_000, 250);
    const later = h.engine.book(xbt);
    assert.notDeepEqual(
      [later.bids[0]?.price.toFixed(), later.asks[0]?.price.toFixed()],
      [bestBid.toFixed(), bestAsk.toFixed()],
    );
    assert.ok(later.bids[0]!.price.lt(later.asks[0]!.price));
    // The background's own resting orders stay bounded by its ladder.
    const maker = h.accounts.require(BACKGROUND_MAKER_KEY);
    const { levels, makers } = h.config.background;
    const ladderSize = 2 * levels * makers.orders_per_level * h.markets.pairs.length;
    assert.ok(h.engine.openOrders(maker).length <= ladderSize);
  });

  it('fills a user order resting at the touch within a few simulated minutes', async () => {
    const h = harness({ seed: 3 });
    const xbt = h.markets.requirePair('XXBTZUSD');
    await h.run(1_000);
    const user = h.accounts.upsert(
      { key: 'user', secret: 'c2VjcmV0', balances: { ZUSD: '1000000', XXBT: '10' } },
      h.clock.now(),
    );
    const bestBid = h.engine.book(xbt).bids[0]!.price;
    const plain = limitSpec(xbt, 'buy', dec('0.01'), bestBid.plus(xbt.tick), 'GTC');
    const spec: OrderSpec = { ...plain, flags: { ...plain.flags, post: true } };
    const order = h.engine.place(user, spec);
    assert.equal(order.status, 'open');
    for (let s = 0; s < 5 * 60 && order.status === 'open'; s++) await h.run(1_000, 250);
    assert.equal(order.status, 'closed', 'the bid was not filled in 5 simulated minutes');
    assert.equal(order.volExec.toFixed(), '0.01');
    assert.equal(h.accounts.require('user').wallet.balance('XXBT').toFixed(), '10.01');
  });

  it('leaves the book alone unless the market is online, and when paused', async () => {
    const h = harness({ seed: 11 });
    await h.run(2_000);
    h.status.setMode('cancel_only');
    const before = h.prints.length;
    await h.run(30_000);
    assert.equal(h.prints.length, before);
    h.status.setMode('online');
    await h.run(30_000);
    assert.ok(h.prints.length > before);
    h.background.pause();
    assert.equal(h.background.running, false);
    const paused = h.prints.length;
    const fv = h.background.fairValue('XXBTZUSD');
    await h.run(30_000);
    assert.equal(h.prints.length, paused);
    assert.equal(h.background.fairValue('XXBTZUSD'), fv);
    h.background.resume();
    await h.run(30_000);
    assert.ok(h.prints.length > paused);
  });

  it('requotes around a fair value set by the admin', async () => {
    const h = harness({ seed: 2, volatility_per_sec: 0 });
    const xbt = h.markets.requirePair('XBTUSD');
    await h.run(1_000);
    h.background.setFairValue('XBT/USD', '50000');
    assert.equal(h.background.fairValue('XXBTZUSD'), '50000');
    await h.run(1_000);
    const book = h.engine.book(xbt);
    assert.ok(book.bids[0]!.price.lt(50000) && book.bids[0]!.price.gt(49900));
    assert.ok(book.asks[0]!.price.gt(50000) && book.asks[0]!.price.lt(50100));
    assert.equal(h.background.indexPrice('XXBTZUSD')?.toFixed(), '50000');
    assert.throws(() => h.background.setFairValue('XBTUSD', '-1'), /Invalid arguments:price/);
    assert.throws(() => h.background.setFairValue('NOPE', '1'), /Unknown asset pair/);
  });

  it('trades through its own keys, kept funded', async () => {
    const h = harness({ seed: 4 });
    await h.run(120_000, 500);
    const maker = h.accounts.require(BACKGROUND_MAKER_KEY);
    const taker = h.accounts.require(BACKGROUND_TAKER_KEY);
    assert.equal(maker.kind, 'background');
    assert.ok(h.engine.trades(taker).length > 0);
    assert.ok(maker.wallet.available('ZUSD').gt('100000000000'));
    assert.equal(h.background.stats.rejected, 0);
  });
});
