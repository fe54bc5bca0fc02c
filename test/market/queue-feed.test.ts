/**
 * The market feed's queue estimate against the simulator over HTTP: our order's place in the
 * snapshot and the metrics, from the feed's own Depth and Trades polls (Level3 off) and from
 * Level3 (on), compared with the engine's exact queue.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { parseWithSchema } from '../../src/core/index.js';
import { MarketConfig, MarketMetrics, type MarketFeed } from '../../src/market/index.js';
import type { Account } from '../../src/sim/state/accounts.js';
import { SimQueueView } from './queue-lab.js';
import { limitOrder, startHarness, type Harness } from './sim-harness.js';

const PAIR = 'XXBTZUSD';
const BID = '49000.0';

async function start(level3: boolean) {
  const h = await startHarness();
  const key = h.sim.addAccount({ tier: 'pro' });
  const client = h.client(key, 'pro');
  const others = h.sim.client({ key: h.sim.addAccount() });
  // A taker of its own: self-trade prevention would stop `others` trading with itself.
  const taker = h.sim.client({ key: h.sim.addAccount() });
  const ours = h.sim.ctx.accounts.get(key.apiKey) as Account;
  const view = new SimQueueView(h.sim.ctx, h.sim.ctx.markets.requirePair('XBTUSD'), ours);
  const registry = new Registry();
  const config = parseWithSchema(
    MarketConfig,
    { polls: { level3: { enabled: level3 } }, queue: { rule: 'power:2' } },
    'market',
  );
  const { feed } = await h.feed(client, ['XBTUSD'], {
    config,
    metrics: new MarketMetrics(registry),
    // The tracker's view of our orders: what rests at the engine, acknowledged as it opened.
    ownResting: () => view.ourOrders(),
  });
  return { h, client, others, taker, view, feed, registry };
}

describe('MarketFeed queue estimate from Depth and Trades', () => {
  let s: Awaited<ReturnType<typeof start>>;
  let h: Harness;
  let feed: MarketFeed;
  let txid = '';
  const place = () => feed.snapshot(PAIR).queue.find((q) => q.txid === txid);
  const exact = () => {
    const truth = s.view.exact(txid);
    const got = place();
    assert.ok(truth !== undefined && got !== undefined);
    assert.deepEqual(
      [got.ahead.toFixed(), got.behind.toFixed()],
      [truth.ahead.toFixed(), truth.behind.toFixed()],
    );
  };

  before(async () => {
    s = await start(false);
    ({ h, feed } = s);
    await limitOrder(s.others, 'buy', BID, '0.4');
    await limitOrder(s.others, 'sell', '51000.0', '1');
    feed.start();
    await h.run(3_000);
    txid = await limitOrder(s.client, 'buy', BID, '0.2');
    await h.run(3_000);
  });
  after(() => h.close());

  it('puts our order at the back of its level, then moves it by trades and joins', async () => {
    exact();
    assert.equal(place()?.ahead.toFixed(), '0.4');
    assert.equal(place()?.source, 'depth');
    assert.equal(place()?.rule, 'power:2');
    await limitOrder(s.others, 'buy', BID, '0.3');
    await limitOrder(s.taker, 'sell', BID, '0.1', { timeinforce: 'IOC' });
    // Past the next Trades poll (every 5 s) and the Depth after it.
    await h.run(7_000);
    exact();
    assert.equal(place()?.ahead.toFixed(), '0.3');
    assert.equal(place()?.behind.toFixed(), '0.3');
  });

  it('exports the place of our order nearest the touch', async () => {
    const ahead = (await s.registry.getSingleMetricAsString('makerd_queue_ahead')) ?? '';
    assert.match(ahead, /makerd_queue_ahead\{pair="XBTUSD",side="buy"\} 0\.3$/m);
    assert.doesNotMatch(ahead, /side="sell"/);
    const ratio = (await s.registry.getSingleMetricAsString('makerd_queue_ahead_ratio')) ?? '';
    assert.match(ratio, /makerd_queue_ahead_ratio\{pair="XBTUSD",side="buy"\} 0\.5$/m);
  });

  it('forgets our order once it has left the book', async () => {
    await limitOrder(s.taker, 'sell', '48000.0', '1', { timeinforce: 'IOC' });
    await h.run(2_000);
    assert.equal(s.view.exact(txid), undefined);
    assert.equal(place(), undefined);
  });
});

describe('MarketFeed queue estimate from Level3', () => {
  let s: Awaited<ReturnType<typeof start>>;

  before(async () => {
    s = await start(true);
    await limitOrder(s.others, 'buy', BID, '0.4');
    s.feed.start();
    await s.h.run(3_000);
  });
  after(() => s.h.close());

  it('takes the exact place from each Level3 answer', async () => {
    const txid = await limitOrder(s.client, 'buy', BID, '0.2');
    await s.h.run(6_000);
    // A cancel ahead and as much joining behind: Depth alone would see nothing move.
    const first = s.view.level3().bids[0];
    assert.ok(first !== undefined && first.orderId !== txid);
    await s.others.cancelOrder({ txid: first.orderId });
    await limitOrder(s.others, 'buy', BID, '0.4');
    await s.h.run(6_000);
    const got = s.feed.snapshot(PAIR).queue.find((q) => q.txid === txid);
    const truth = s.view.exact(txid);
    assert.ok(got !== undefined && truth !== undefined);
    assert.equal(got.source, 'level3');
    assert.deepEqual([got.ahead.toFixed(), got.behind.toFixed()], ['0', '0.4']);
    assert.deepEqual([truth.ahead.toFixed(), truth.behind.toFixed()], ['0', '0.4']);
  });
});
