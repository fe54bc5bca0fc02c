/**
 * Issue #39's "market without us" on the simulator: a thin book whose best ask is taken away
 * while our ask rests behind it. The exchange then shows our order as the best ask; the snapshot's
 * market book does not, and the strategy's next quotes stay anchored to the other participants'
 * prices instead of climbing after our own order.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { dec, encodeUserref } from '../../src/core/index.js';
import type { SpotClient } from '../../src/exchange/index.js';
import type { MarketFeed, OwnResting } from '../../src/market/index.js';
import spread from '../../strategies/spread.js';
import { contextFor } from '../strategies/harness.js';
import { limitOrder, startHarness, type Harness } from './sim-harness.js';

const PAIR = 'XXBTZUSD';

describe('the market without us, on the simulator', () => {
  let h: Harness;
  let feed: MarketFeed;
  let taker: SpotClient;
  /** What the executor's tracker would hold: our resting ask. */
  const tracked: OwnResting[] = [];

  before(async () => {
    h = await startHarness();
    const others = h.sim.client({ key: h.sim.addAccount() });
    taker = h.sim.client({ key: h.sim.addAccount() });
    const ours = h.client(h.sim.addAccount({ tier: 'pro' }), 'pro');
    await limitOrder(others, 'buy', '59990.0', '1');
    await limitOrder(others, 'sell', '60010.0', '0.3');
    await limitOrder(others, 'sell', '60020.0', '1');
    const userref = encodeUserref(5, { side: 'sell', level: 0 }, 1);
    const txid = await limitOrder(ours, 'sell', '60015.0', '0.05', { userref, oflags: 'post' });
    tracked.push({
      txid,
      side: 'sell',
      price: dec('60015.0'),
      remaining: dec('0.05'),
      openedAtMs: h.clock.now(),
    });
    ({ feed } = await h.feed(ours, ['XBTUSD'], { ownResting: () => tracked }));
    feed.start();
    await h.run(3_000);
  });
  after(() => h.close());

  it("quotes from the other participants' prices after the best ask is taken", async () => {
    const ctx = contextFor(spread, { fee_floor: false, min_spread_bps: 20 });
    const quote = () => spread.quote(feed.snapshot(PAIR), {}, ctx).quotes;
    const ask = (quotes: ReturnType<typeof quote>) =>
      quotes.find((q) => q.side === 'sell')?.price.toFixed();

    const before = feed.snapshot(PAIR);
    assert.equal(before.mid?.toFixed(), '60000');
    assert.equal(ask(quote()), '60060');

    // A taker lifts the best ask: on the exchange's book our 60015 is now the best ask.
    await taker.addOrder({
      pair: 'XBTUSD',
      type: 'buy',
      ordertype: 'limit',
      price: '60010.0',
      volume: '0.3',
      timeinforce: 'IOC',
    });
    await h.run(3_000);
    const after = feed.snapshot(PAIR);
    assert.equal(after.venueBook.asks[0]?.price.toFixed(), '60015');
    assert.equal(after.bestAsk?.toFixed(), '60020');
    assert.equal(after.mid?.toFixed(), '60005');
    // 60005 × 1.001: anchored to the next other ask (60020), not to ours (mid 60002.5 would
    // give 60062.5025).
    assert.equal(ask(quote()), '60065.005');
    const bid = quote()
      .find((q) => q.side === 'buy')
      ?.price.toFixed();
    assert.equal(bid, '59944.995');
  });
});
