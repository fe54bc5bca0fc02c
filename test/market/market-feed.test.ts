import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { encodeUserref, type MarketSnapshot } from '../../src/core/index.js';
import type { SpotClient } from '../../src/exchange/index.js';
import {
  MarketMetrics,
  type MarketFeed,
  type ModeDecision,
  type OrdersView,
} from '../../src/market/index.js';
import { limitOrder, startHarness, type Harness } from './sim-harness.js';

const PAIR = 'XXBTZUSD';

describe('MarketFeed against the simulator: book, own orders, orders views', () => {
  let h: Harness;
  let feed: MarketFeed;
  let other: SpotClient;
  let ourTxid = '';
  const views: OrdersView[] = [];
  const updates = new Map<string, number>();
  const userref = encodeUserref(5, { side: 'buy', level: 0 }, 1);

  before(async () => {
    h = await startHarness();
    const key = h.sim.addAccount({ tier: 'pro' });
    const client = h.client(key, 'pro');
    other = h.sim.client({ key: h.sim.addAccount() });
    await limitOrder(other, 'sell', '50000.0', '0.5');
    await limitOrder(other, 'buy', '47000.0', '0.3');
    ourTxid = await limitOrder(client, 'buy', '49000.0', '0.2', { userref, oflags: 'post' });
    // Someone else's order of the same key, from another bot instance.
    await limitOrder(client, 'buy', '48000.0', '0.1', {
      userref: encodeUserref(9, { side: 'buy', level: 3 }, 2),
    });
    ({ feed } = await h.feed(client, ['XBTUSD']));
    feed.onOrdersView((v) => views.push(v));
    feed.onUpdate((pair, source) => updates.set(`${pair}:${source}`, h.clock.now()));
  });
  after(() => h.close());

  it('builds the book without our orders, our orders, Level3 ownership and balances', async () => {
    assert.equal(feed.snapshot(PAIR).mode, 'maintenance');
    feed.start();
    await h.run(12_000);
    const s: MarketSnapshot = feed.snapshot(PAIR);
    // The key's bids (ours at 49000, another instance's at 48000) are on the exchange's book
    // but not in the market's the strategies price from.
    assert.deepEqual(
      s.venueBook.bids.map((l) => l.price.toFixed()),
      ['49000', '48000', '47000'],
    );
    assert.deepEqual(
      s.book.bids.map((l) => l.price.toFixed()),
      ['47000'],
    );
    assert.equal(s.bestBid?.toFixed(), '47000');
    assert.equal(s.bestAsk?.toFixed(), '50000');
    assert.equal(s.mid?.toFixed(), '48500');
    assert.equal(s.spread?.toFixed(), '3000');
    // 0.5 resting on the ask against 0.3 on the bid: the price leans towards the bid.
    assert.equal(s.microprice?.toFixed(), '48125');
    // Before TradeVolume answers: the ladder's dearest rung; after it, the key's own fees.
    assert.equal(s.fees.source, 'trade-volume');
    assert.equal(s.fees.makerBps.toFixed(), '25');
    assert.equal(s.fees.takerBps.toFixed(), '40');
    const ours = s.openOrders.find((o) => o.txid === ourTxid);
    assert.ok(ours, 'our order is listed');
    assert.deepEqual(ours.slot, { side: 'buy', level: 0 });
    assert.equal(ours.generation, 1);
    assert.equal(ours.postOnly, true);
    assert.equal(ours.volume.toFixed(), '0.2');
    const foreign = s.openOrders.find((o) => o.txid !== ourTxid);
    assert.equal(foreign?.slot, undefined);
    // The orders are the exchange's as of the OpenOrders call, made before its answer arrived.
    const asOf = s.ordersAsOfMs ?? NaN;
    assert.ok(asOf <= (s.sources.openOrders.receivedAtMs ?? 0), `as of ${asOf}`);
    assert.ok(asOf > s.takenAtMs - 12_000, `as of ${asOf}, taken ${s.takenAtMs}`);
    assert.equal(s.level3?.bids.find((o) => o.orderId === ourTxid)?.own, true);
    assert.equal(s.level3?.asks[0]?.own, false);
    assert.ok((s.level3?.bids[0]?.timestampNs ?? 0n) > BigInt(Number.MAX_SAFE_INTEGER));
    assert.equal(s.inventory.quote.total.toFixed(), '1000000');
    assert.equal(s.inventory.base.total.toFixed(), '100');
    assert.ok(s.inventory.quote.available.lt(s.inventory.quote.total), 'holds are taken off');
    assert.equal(s.mode, 'online');
    assert.equal(s.stale, false, `stale: ${s.staleSources.join(',')}`);
    assert.equal(s.grouped?.grouping, 10);
    for (const source of ['depth', 'level3', 'openOrders', 'balance', 'trades', 'groupedBook']) {
      assert.ok(updates.has(`${PAIR}:${source}`), `update for ${source}`);
    }
    assert.ok(feed.snapshot(PAIR).seq > s.seq);
  });

  it('hands on each OpenOrders answer as a view: a partial fill, then the order gone', async () => {
    await limitOrder(other, 'sell', '49000.0', '0.05');
    const seen = views.length;
    await h.run(4_000);
    const partial = views.at(-1);
    assert.ok(partial !== undefined && views.length > seen);
    assert.equal(partial.open[ourTxid]?.vol_exec, '0.05000000');
    assert.equal(partial.open[ourTxid]?.userref, userref);
    assert.ok(partial.askedAtMs <= h.clock.now());
    await limitOrder(other, 'sell', '49000.0', '0.5');
    await h.run(4_000);
    assert.equal(views.at(-1)?.open[ourTxid], undefined, 'filled: gone from the view');
    const s = feed.snapshot(PAIR);
    assert.equal(
      s.openOrders.find((o) => o.txid === ourTxid),
      undefined,
    );
    await h.run(6_000); // one Trades interval, wherever its phase falls
    const later = feed.snapshot(PAIR);
    assert.ok(later.trades.length >= 2, 'public trades seen');
    assert.equal(later.trades.at(-1)?.price.toFixed(), '49000');
  });

  it('stops every loop and leaves no timer behind', async () => {
    const pendingBefore = h.clock.pending;
    await feed.stop();
    assert.equal(feed.running, false);
    // The simulator's own tick loop is the one sleeper left.
    assert.ok(h.clock.pending < pendingBefore);
    assert.equal(h.clock.pending, 1);
  });
});

describe('MarketFeed: trading mode from SystemStatus and the halt flag', () => {
  let h: Harness;
  let feed: MarketFeed;
  let halted = false;
  const changes: ModeDecision[] = [];

  before(async () => {
    h = await startHarness();
    const client = h.client(h.sim.addAccount({ tier: 'pro' }), 'pro');
    ({ feed } = await h.feed(client, ['XBTUSD', 'ETHUSD'], {
      haltSource: () => ({ halted, reason: 'drawdown limit' }),
    }));
    feed.onModeChange((c) => changes.push(c));
    feed.start();
  });
  after(() => h.close());

  it('is maintenance until the first answer, then follows the exchange', async () => {
    assert.deepEqual(
      [feed.snapshot(PAIR).mode, feed.snapshot(PAIR).modeReason],
      ['maintenance', 'system status not yet known'],
    );
    await h.run(6_000);
    assert.equal(feed.snapshot(PAIR).mode, 'online');
    await h.sim.admin('POST', '/_sim/status', {
      status: 'cancel_only',
      emergency: [{ title: 'Matching engine degraded' }],
    });
    // Two pairs stretch the public polls x3: SystemStatus comes every 15 s.
    await h.run(16_000);
    const s = feed.snapshot('XETHZUSD');
    assert.equal(s.mode, 'cancel_only');
    assert.equal(s.modeReason, 'Matching engine degraded');
    halted = true;
    assert.deepEqual(
      [feed.snapshot(PAIR).mode, feed.snapshot(PAIR).modeReason],
      ['halted', 'drawdown limit'],
    );
    halted = false;
    await h.sim.admin('POST', '/_sim/status', { status: 'online', emergency: [] });
    await h.run(16_000);
    assert.equal(feed.snapshot(PAIR).mode, 'online');
    assert.deepEqual(
      changes.map((c) => c.mode),
      ['online', 'cancel_only', 'online'],
    );
  });
});

describe('MarketFeed: faults, staleness, backoff and metrics', () => {
  let h: Harness;
  let feed: MarketFeed;
  const registry = new Registry();
  const depthStatus = () => feed.status().find((p) => p.id === `depth:${PAIR}`);
  const metric = async (name: string) => (await registry.getSingleMetricAsString(name)) ?? '';

  before(async () => {
    h = await startHarness();
    const client = h.client(h.sim.addAccount({ tier: 'pro' }), 'pro');
    ({ feed } = await h.feed(client, ['XBTUSD'], { metrics: new MarketMetrics(registry) }));
    feed.start();
    await h.run(12_000);
  });
  after(() => h.close());

  it('a throttled Depth makes depth stale and backs off; clearing the fault recovers', async () => {
    assert.equal(feed.snapshot(PAIR).stale, false);
    const interval = depthStatus()?.intervalMs ?? 0;
    await h.sim.admin('POST', '/_sim/faults', {
      paths: ['Depth'],
      throttled_rate: 1,
      throttle_seconds: 1,
    });
    await h.run(4 * interval);
    let s = feed.snapshot(PAIR);
    assert.equal(s.sources.depth.stale, true);
    assert.match(s.sources.depth.lastError ?? '', /EService:Throttled/);
    assert.equal(s.stale, true);
    assert.deepEqual(s.staleSources, ['depth']);
    const st = depthStatus();
    assert.ok(st);
    assert.ok(st.consecutiveFailures >= 1);
    assert.ok(st.backoffMs >= 2 * interval, `backoff ${st.backoffMs}`);
    // Backing off: far fewer attempts than the interval alone would make.
    assert.ok(st.counts.throttled <= 3, `throttled ${st.counts.throttled}`);
    assert.match(
      await metric('makerd_polls_total'),
      /makerd_polls_total\{endpoint="Depth",pair="XBTUSD",outcome="throttled"\} [1-9]/,
    );
    assert.match(await metric('makerd_snapshot_stale'), /makerd_snapshot_stale\{pair="XBTUSD"\} 1/);

    await h.sim.admin('POST', '/_sim/faults', {});
    await h.run(st.backoffMs + interval);
    s = feed.snapshot(PAIR);
    assert.equal(s.sources.depth.stale, false);
    assert.equal(s.sources.depth.lastError, undefined);
    assert.equal(s.stale, false);
    assert.equal(depthStatus()?.backoffMs, 0);
    assert.match(await metric('makerd_snapshot_stale'), /makerd_snapshot_stale\{pair="XBTUSD"\} 0/);
  });

  it('an HTTP 502 on Depth is an error without backoff; a slow answer times out', async () => {
    const interval = depthStatus()?.intervalMs ?? 0;
    await h.sim.admin('POST', '/_sim/faults', { paths: ['Depth'], http_5xx_rate: 1 });
    const before = depthStatus()?.counts.error ?? 0;
    await h.run(3 * interval);
    const st = depthStatus();
    assert.ok(st);
    assert.equal(st.lastErrorCode, 'TRANSPORT_HTTP_STATUS');
    assert.equal(st.backoffMs, 0);
    assert.ok(st.counts.error - before >= 2, `errors ${st.counts.error - before}`);
    assert.equal(feed.snapshot(PAIR).sources.depth.stale, true);

    await h.sim.admin('POST', '/_sim/faults', { paths: ['Depth'], latency_ms: 20_000 });
    await h.run(8_000);
    assert.equal(depthStatus()?.lastErrorCode, 'MARKET_POLL_TIMEOUT');
    assert.match(depthStatus()?.lastError ?? '', /Depth: no answer within 5000 ms/);
    await h.sim.admin('POST', '/_sim/faults', {});
    await h.run(20_000);
    assert.equal(feed.snapshot(PAIR).sources.depth.stale, false);
  });

  it('exports the plan, data ages and the budget actually used', async () => {
    assert.match(
      await metric('makerd_poll_interval_seconds'),
      /makerd_poll_interval_seconds\{endpoint="Level3",pair="XBTUSD"\} 5\b/,
    );
    assert.match(
      await metric('makerd_poll_interval_seconds'),
      /makerd_poll_interval_seconds\{endpoint="OpenOrders",pair="all"\} 5\b/,
    );
    const age = await metric('makerd_data_age_seconds');
    const balanceAge = /makerd_data_age_seconds\{endpoint="BalanceEx",pair="all"\} ([\d.]+)/.exec(
      age,
    );
    assert.ok(balanceAge, age);
    assert.ok(Number(balanceAge[1]) <= 10);
    const level3Age = /makerd_data_age_seconds\{endpoint="Level3",pair="XBTUSD"\} ([\d.]+)/.exec(
      age,
    );
    assert.ok(level3Age, age);
    assert.ok(Number(level3Age[1]) <= 10);
    // Labelled by altname, as every metric family labels pairs: never by the exchange pair id.
    assert.doesNotMatch(await registry.metrics(), new RegExp(`pair="${PAIR}"`));
    const json = await registry.getMetricsAsJSON();
    const value = (name: string, scope: string) =>
      json.find((m) => m.name === name)?.values.find((v) => v.labels.scope === scope)?.value;
    const used = value('makerd_rest_budget_used_per_second', 'private') ?? 0;
    const planned = value('makerd_rest_budget_planned_per_second', 'private') ?? 0;
    // Pro, one pair: OpenOrders 2/5 (planned with its QueryOrders) + BalanceEx 1/10 + Level3 1/5
    // + TradeVolume 1/300 points/s. OpenOrders spends 1/5 alone and 2/5 when orders of ours
    // vanished since the last.
    assert.ok(Math.abs(planned - (2 / 5 + 1 / 10 + 1 / 5 + 1 / 300)) < 1e-9, `planned ${planned}`);
    const pollsAlone = 1 / 5 + 1 / 10 + 1 / 5;
    assert.ok(used > 0.8 * pollsAlone && used <= planned * 1.1, `used ${used} planned ${planned}`);
    assert.equal(value('makerd_rest_budget_available_per_second', 'private'), 0.75);
    assert.match(
      await metric('makerd_poll_duration_seconds'),
      /_count\{endpoint="Level3",pair="XBTUSD"\} [1-9]/,
    );
  });
});
