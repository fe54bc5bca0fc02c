import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Registry } from 'prom-client';
import {
  dec,
  ManualClock,
  type MarketSnapshot,
  type OrderIntent,
  type OwnOrder,
  type TradingMode,
} from '../../src/core/index.js';
import type { RunnerConfig } from '../../src/runner/config.js';
import { RunnerMetrics } from '../../src/runner/metrics.js';
import type {
  FillSource,
  IntentSink,
  SnapshotSource,
  UnpublishedIntent,
} from '../../src/runner/ports.js';
import { Runner, type PairStrategy, type RunnerOptions } from '../../src/runner/runner.js';
import {
  defineStrategy,
  Type,
  type DesiredQuote,
  type FillEvent,
} from '../../src/runner/strategy-api.js';
import { PAIR, snapshot } from '../strategies/snapshot-fixture.js';
import { ownOrder } from '../support/own-order.js';

const CONFIG: RunnerConfig = {
  price_tolerance_bps: 5,
  volume_tolerance: 0.1,
  max_order_age_ms: 0,
  intent_ttl_ms: 5_000,
  republish_after_ms: 10_000,
  min_tick_interval_ms: 200,
};

/** A feed whose next snapshot the test sets, and whose updates and fills the test fires. */
class FakeFeed implements SnapshotSource, FillSource {
  current: MarketSnapshot = snapshot();
  readonly updates: ((pair: string) => void)[] = [];
  readonly fills: ((fill: FillEvent) => void)[] = [];
  snapshot(): MarketSnapshot {
    return this.current;
  }
  onUpdate(listener: (pair: string) => void): () => void {
    this.updates.push(listener);
    return () => this.updates.splice(this.updates.indexOf(listener), 1);
  }
  onFill(listener: (fill: FillEvent) => void): () => void {
    this.fills.push(listener);
    return () => this.fills.splice(this.fills.indexOf(listener), 1);
  }
}

/** A sink that numbers generations per slot the way the bus does. */
class RecordingSink implements IntentSink {
  readonly published: OrderIntent[] = [];
  readonly #gens = new Map<string, number>();
  publish(intents: readonly UnpublishedIntent[]) {
    const out = intents.map((i) => {
      const generation = (this.#gens.get(i.slot) ?? 0) + 1;
      this.#gens.set(i.slot, generation);
      return { ...i, generation };
    });
    this.published.push(...out);
    return Promise.resolve({ published: out, coalesced: 0 });
  }
}

function withOrders(snap: MarketSnapshot, orders: OwnOrder[]): MarketSnapshot {
  return Object.freeze({ ...snap, openOrders: Object.freeze(orders) });
}

/** A strategy whose quotes the test sets; records fills it hears about. */
function scripted(quotes: () => DesiredQuote[], fills: FillEvent[] = []) {
  return defineStrategy({
    name: 'scripted',
    version: '1.0.0',
    options: Type.Object({}),
    init: () => ({ n: 0 }),
    quote: (_s, state) => ({ quotes: quotes(), state: { n: state.n + 1 } }),
    fill: (fill, state) => {
      fills.push(fill);
      return state;
    },
  });
}

function setup(
  quotes: () => DesiredQuote[],
  fills: FillEvent[] = [],
  gate: Pick<RunnerOptions, 'quoteGate' | 'onRefused' | 'pulled'> = {},
) {
  const clock = new ManualClock(1_700_000_000_000);
  const feed = new FakeFeed();
  const sink = new RecordingSink();
  const registry = new Registry();
  const plugin = scripted(quotes, fills);
  const strategy: PairStrategy = {
    pair: PAIR,
    plugin,
    context: { pair: PAIR, options: {}, log: { info: () => undefined, warn: () => undefined } },
    state: plugin.init({
      pair: PAIR,
      options: {},
      log: { info: () => undefined, warn: () => undefined },
    }),
  };
  const runner = new Runner({
    feed,
    fills: feed,
    sink,
    strategies: [strategy],
    config: CONFIG,
    instance: 1,
    clock,
    metrics: new RunnerMetrics(registry),
    ...gate,
  });
  return { clock, feed, sink, registry, runner, strategy };
}

const twoSided = (): DesiredQuote[] => [
  { side: 'buy', level: 0, price: dec('99.84'), volume: dec('0.01') },
  { side: 'sell', level: 0, price: dec('100.16'), volume: dec('0.01') },
];

async function counter(registry: Registry, name: string, labels: Record<string, string>) {
  const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === name);
  const value = metric?.values.find((v) =>
    Object.entries(labels).every(([k, want]) => v.labels[k] === want),
  );
  return value?.value ?? 0;
}

describe('Runner', () => {
  it('sends nothing and says why when the quote gate refuses the quotes', async () => {
    const refusals: string[] = [];
    const seen: string[][] = [];
    const { runner, sink, registry } = setup(twoSided, [], {
      quoteGate: (pair, quotes, snapshot) => {
        seen.push(quotes.map((q) => `${q.side} ${q.price.toFixed()}`));
        return snapshot.mid !== undefined && pair.altname === 'XBTUSD'
          ? 'too far from mid'
          : undefined;
      },
      onRefused: (pair, reason) => refusals.push(`${pair.altname}: ${reason}`),
    });
    const report = await runner.tick(PAIR.id);
    assert.equal(report.outcome, 'refused');
    assert.deepEqual(sink.published, []);
    assert.deepEqual(refusals, ['XBTUSD: too far from mid']);
    // The gate sees the quotes as rounded to the pair's tick, as they would be sent.
    assert.deepEqual(seen, [['buy 99.8', 'sell 100.2']]);
    assert.equal(
      await counter(registry, 'makerd_quotes_dropped_total', { pair: 'XBTUSD', reason: 'risk' }),
      2,
    );
  });

  it('observes a tick’s quote metrics, also when its publish fails', async () => {
    const { runner, registry } = setup(twoSided);
    await runner.tick(PAIR.id);
    assert.equal(await counter(registry, 'makerd_quote_price', { side: 'buy' }), 99.8);

    const moved = [
      { side: 'buy' as const, level: 0, price: dec('98.84'), volume: dec('0.01') },
      { side: 'sell' as const, level: 0, price: dec('101.16'), volume: dec('0.01') },
    ];
    const { runner: second, sink: failing, registry: reg2 } = setup(() => moved);
    failing.publish = () => Promise.reject(new Error('bus down'));
    await assert.rejects(second.tick(PAIR.id), /bus down/);
    assert.equal(await counter(reg2, 'makerd_quote_price', { side: 'sell' }), 101.2);
  });

  it('turns desired quotes into place intents with pair, slot, deadline and snapshot', async () => {
    const { runner, sink, clock, registry } = setup(twoSided);
    const report = await runner.tick(PAIR.id);
    assert.equal(report.outcome, 'quoted');
    assert.deepEqual(
      sink.published.map((i) => [i.slot, i.action, i.desired?.price, i.desired?.postOnly]),
      [
        ['bid:0', 'place', '99.8', true],
        ['ask:0', 'place', '100.2', true],
      ],
    );
    const intent = sink.published[0] as OrderIntent;
    assert.equal(intent.pair, 'XXBTZUSD');
    assert.equal(intent.instance, 1);
    assert.equal(intent.deadlineMs, clock.now() + CONFIG.intent_ttl_ms);
    assert.equal(intent.snapshotSeq, 1);
    assert.equal('ordersAsOfMs' in intent, false, 'no OpenOrders answer yet');
    assert.equal(await counter(registry, 'makerd_intents_total', { action: 'place' }), 2);
  });

  it('reports the snapshot and the rounded targets of each tick, also when unchanged', async () => {
    const { runner, feed } = setup(twoSided);
    const heard: string[] = [];
    runner.onTick((r) =>
      heard.push(
        `${r.outcome} mid ${r.snapshot.mid?.toFixed()} ${r.targets.map((q) => `${q.side} ${q.price.toFixed()}`).join(', ')}`,
      ),
    );
    await runner.tick(PAIR.id);
    await runner.tick(PAIR.id);
    feed.current = snapshot({ staleSources: ['depth'] });
    await runner.tick(PAIR.id);
    assert.deepEqual(heard, [
      'quoted mid 100 buy 99.8, sell 100.2',
      'quoted mid 100 buy 99.8, sell 100.2',
      'stale mid 100 ',
    ]);
  });

  it('dates its intents from the snapshot ready (built), where tick-to-wire starts', async () => {
    const { runner, sink, feed, clock } = setup(twoSided);
    // The feed stamps a snapshot with the time it starts building it.
    feed.current = Object.freeze({ ...feed.current, takenAtMs: clock.now() - 3 });
    await runner.tick(PAIR.id);
    assert.deepEqual(
      sink.published.map((i) => i.snapshotAtMs),
      [clock.now(), clock.now()],
    );
  });

  it('places in a slot whose order Depth showed gone, and hands the executor the book it saw', async () => {
    const { runner, sink, feed, clock } = setup(twoSided);
    const gone = ownOrder('buy', 0, '99.5');
    feed.current = Object.freeze({
      ...feed.current,
      vanishedOrders: Object.freeze([gone]),
      bookAsOfMs: clock.now() - 40,
    });
    await runner.tick(PAIR.id);
    const [bid, ask] = sink.published;
    assert.equal(bid?.action, 'place', 'the gone order is not amended');
    assert.deepEqual(bid?.depthSeen, { asOfMs: clock.now() - 40, prices: ['99.9', '99.8'] });
    assert.deepEqual(ask?.depthSeen, { asOfMs: clock.now() - 40, prices: ['100.1', '100.2'] });
  });

  it('tells the executor when the open orders it saw were asked for', async () => {
    const { runner, sink, feed, clock } = setup(twoSided);
    feed.current = Object.freeze({ ...feed.current, ordersAsOfMs: clock.now() - 700 });
    await runner.tick(PAIR.id);
    assert.deepEqual(
      sink.published.map((i) => i.ordersAsOfMs),
      [clock.now() - 700, clock.now() - 700],
    );
  });

  it('does not repeat an unchanged intent until republish_after_ms has passed', async () => {
    const { runner, sink, clock, registry } = setup(twoSided);
    await runner.tick(PAIR.id);
    await clock.advance(1_000);
    const second = await runner.tick(PAIR.id);
    assert.equal(second.intents.length, 0);
    assert.equal(second.unchanged, 2);
    assert.equal(
      await counter(registry, 'makerd_intents_suppressed_total', { reason: 'unchanged' }),
      2,
    );
    await clock.advance(CONFIG.republish_after_ms);
    const third = await runner.tick(PAIR.id);
    assert.equal(third.intents.length, 2);
    assert.equal(sink.published.length, 4);
  });

  it('amends a live order that moved beyond the tolerance and leaves one within it', async () => {
    const { runner, sink, feed } = setup(twoSided);
    // bid 99.8 desired, live at 99.8 (same); ask desired 100.2, live at 100.5 (30 bps away)
    feed.current = withOrders(snapshot(), [
      ownOrder('buy', 0, '99.8'),
      ownOrder('sell', 0, '100.5'),
    ]);
    await runner.tick(PAIR.id);
    assert.deepEqual(
      sink.published.map((i) => [i.slot, i.action, i.target?.price, i.desired?.price, i.reason]),
      [['ask:0', 'amend', '100.5', '100.2', 'moved']],
    );
  });

  it('pulls every one of our quotes when the snapshot is stale, leaving foreign orders alone', async () => {
    const { runner, sink, feed } = setup(twoSided);
    const foreign = {
      ...ownOrder('buy', 3, '90'),
      txid: 'FOREIGN',
      slot: undefined,
      userref: null,
    };
    feed.current = withOrders(snapshot({ staleSources: ['depth'] }), [
      ownOrder('buy', 0, '99.8'),
      ownOrder('sell', 0, '100.2'),
      foreign,
    ]);
    const report = await runner.tick(PAIR.id);
    assert.equal(report.outcome, 'stale');
    assert.deepEqual(
      sink.published.map((i) => [i.action, i.target?.txid, i.reason]),
      [
        ['cancel', 'Obuy0-99.8', 'pulled:stale'],
        ['cancel', 'Osell0-100.2', 'pulled:stale'],
      ],
    );
  });

  it('quotes nothing for a pair an operator pulled and cancels ours, then quotes once restored', async () => {
    const pulled = new Set([PAIR.altname]);
    // The executor holds an ask the snapshot's OpenOrders does not show yet.
    const held = [ownOrder('buy', 0, '99.8'), ownOrder('sell', 0, '100.2')];
    const { runner, sink, feed, registry } = setup(twoSided, [], {
      pulled: (pair) => (pulled.has(pair.altname) ? held : undefined),
    });
    feed.current = withOrders(snapshot({}), [ownOrder('buy', 0, '99.8')]);
    const report = await runner.tick(PAIR.id);
    assert.equal(report.outcome, 'pulled');
    assert.deepEqual(
      sink.published.map((i) => [i.action, i.target?.txid, i.reason]),
      [
        ['cancel', 'Obuy0-99.8', 'pulled:operator'],
        ['cancel', 'Osell0-100.2', 'pulled:operator'],
      ],
    );
    assert.equal(await counter(registry, 'makerd_runner_ticks_total', { outcome: 'pulled' }), 1);
    pulled.clear();
    feed.current = snapshot({ seq: 2 });
    assert.equal((await runner.tick(PAIR.id)).outcome, 'quoted');
    assert.deepEqual(
      sink.published.slice(2).map((i) => [i.action, i.desired?.side]),
      [
        ['place', 'buy'],
        ['place', 'sell'],
      ],
    );
  });

  const modes: [TradingMode, string[]][] = [
    ['halted', []],
    ['maintenance', []],
    ['cancel_only', ['cancel Osell0-101']],
    ['post_only', ['cancel Osell0-101', 'place true']],
  ];
  for (const [mode, expected] of modes) {
    it(`obeys mode ${mode}`, async () => {
      const { runner, sink, feed } = setup(() => [
        { side: 'buy', level: 0, price: dec('99.8'), volume: dec('0.01'), postOnly: false },
      ]);
      // a stray live ask the strategy no longer wants, and a bid to place
      feed.current = withOrders(snapshot({ mode }), [ownOrder('sell', 0, '101')]);
      await runner.tick(PAIR.id);
      assert.deepEqual(
        sink.published.map((i) =>
          i.action === 'cancel' ? `cancel ${i.target?.txid}` : `${i.action} ${i.desired?.postOnly}`,
        ),
        expected,
      );
    });
  }

  it('pulls quotes and counts the error when the strategy throws', async () => {
    const { runner, sink, feed, registry } = setup(() => {
      throw new Error('boom');
    });
    feed.current = withOrders(snapshot(), [ownOrder('buy', 0, '99.8')]);
    const report = await runner.tick(PAIR.id);
    assert.equal(report.outcome, 'error');
    assert.deepEqual(
      sink.published.map((i) => i.reason),
      ['pulled:strategy-error'],
    );
    assert.equal(
      await counter(registry, 'makerd_strategy_errors_total', { strategy: 'scripted' }),
      1,
    );
  });

  it("quotes on a pair's first update", async () => {
    const { runner, feed, sink, strategy } = setup(twoSided);
    runner.start();
    feed.current = snapshot();
    for (const u of feed.updates) u(PAIR.id);
    await flush();
    assert.deepEqual(
      sink.published.map((i) => `${i.slot} ${i.action} ${i.desired?.price}`),
      ['bid:0 place 99.8', 'ask:0 place 100.2'],
    );
    assert.deepEqual(strategy.state, { n: 1 });
    await runner.stop();
  });

  it('waits for a source that has not answered since start instead of pulling what the book holds', async () => {
    const { runner, feed, sink, clock } = setup(twoSided);
    runner.start();
    const found = (seq: number, trades: { receivedAtMs: undefined; lastError?: string }) => {
      const s = withOrders(snapshot({ seq, staleSources: ['trades'] }), [
        ownOrder('buy', 0, '99.8'),
      ]);
      const sources = { ...s.sources, trades: { ...s.sources.trades, ageMs: Infinity, ...trades } };
      return { ...s, sources };
    };
    feed.current = found(1, { receivedAtMs: undefined });
    for (const u of feed.updates) u(PAIR.id);
    await flush();
    assert.equal(sink.published.length, 0, 'no answer yet: the order found stays');
    // The same source failing is stale data: the order is pulled.
    await clock.advance(CONFIG.min_tick_interval_ms);
    feed.current = found(2, { receivedAtMs: undefined, lastError: 'EService:Unavailable' });
    for (const u of feed.updates) u(PAIR.id);
    await flush();
    assert.deepEqual(
      sink.published.map((i) => `${i.action} ${i.target?.txid}`),
      ['cancel Obuy0-99.8'],
    );
    await runner.stop();
  });

  for (const [what, snap, txids] of [
    [
      'a stale snapshot',
      { ...withOrders(snapshot(), [ownOrder('buy', 0, '99.8')]), stale: true },
      ['Obuy0-99.8'],
    ],
    [
      'cancel_only',
      // A stray ask at level 1, which the strategy (level 0 only) no longer wants.
      withOrders(snapshot({ mode: 'cancel_only' }), [ownOrder('sell', 1, '101')]),
      ['Osell1-101'],
    ],
  ] as const) {
    it(`pulls our orders on a first update that is ${what}`, async () => {
      const { runner, feed, sink } = setup(twoSided);
      runner.start();
      feed.current = snap;
      for (const u of feed.updates) u(PAIR.id);
      await flush();
      assert.deepEqual(
        sink.published.map((i) => `${i.action} ${i.target?.txid}`),
        txids.map((txid) => `cancel ${txid}`),
      );
      await runner.stop();
    });
  }

  it('folds a burst of updates into one tick per min_tick_interval_ms and hands fills to the strategy', async () => {
    const fills: FillEvent[] = [];
    const { runner, feed, clock, registry } = setup(twoSided, fills);
    runner.start();
    const ticks: number[] = [];
    runner.onTick((r) => ticks.push(r.snapshotSeq));
    for (let i = 0; i < 5; i++) for (const u of feed.updates) u(PAIR.id);
    await flush();
    assert.equal(ticks.length, 1, 'the first update ticks at once');
    for (let i = 0; i < 5; i++) for (const u of feed.updates) u(PAIR.id);
    await flush();
    assert.equal(ticks.length, 1, 'the next tick waits for min_tick_interval_ms');
    await clock.advance(CONFIG.min_tick_interval_ms);
    await flush();
    assert.equal(ticks.length, 2, 'the burst became one tick');
    const fill: FillEvent = {
      pair: PAIR.id,
      txid: 'T1',
      side: 'buy',
      price: dec('99.8'),
      volume: dec('0.004'),
      cost: dec('0.3992'),
      fee: dec('0.001'),
      feeIn: 'quote',
      timeMs: clock.now(),
    };
    for (const f of feed.fills) f(fill);
    assert.deepEqual(fills, [fill]);
    await runner.stop();
    assert.equal(feed.updates.length, 0, 'stop unsubscribes');
    assert.equal(await counter(registry, 'makerd_runner_ticks_total', { outcome: 'quoted' }), 2);
  });
});

async function flush(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
}
