import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ManualClock } from '../../../src/core/index.js';
import { ExchangeError, type SpotClient } from '../../../src/index.js';
import { startTestSim, type TestSim } from '../../support/sim.js';

/**
 * Market data over HTTP with the project's typed client: what a client sees after placing orders
 * through AddOrder. The client's schemas check every shape on the way in.
 */
const T0 = Date.parse('2026-03-02T10:00:00Z');
const T0_NS = BigInt(T0) * 1_000_000n;

async function errorOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    if (e instanceof ExchangeError) return e.raw;
    throw e;
  }
  return 'no error';
}

describe('market data over HTTP', () => {
  let sim: TestSim;
  let client: SpotClient;
  const clock = new ManualClock(T0);
  const txids: Record<string, string> = {};

  const place = async (name: string, type: 'buy' | 'sell', price: string, volume: string) => {
    const r = await client.addOrder({ pair: 'XBTUSD', type, ordertype: 'limit', price, volume });
    const txid = r.result.txid?.[0];
    assert.ok(txid);
    txids[name] = txid;
  };

  before(async () => {
    sim = await startTestSim({ clock });
    client = sim.client();
    await place('b1', 'buy', '50000.3', '0.5');
    await clock.advance(1_000);
    await place('b2', 'buy', '50000.3', '0.25');
    await place('b3', 'buy', '49999.9', '1');
    await place('a1', 'sell', '50010.3', '0.1');
    await place('a2', 'sell', '50010.6', '0.2');
  });
  after(() => sim.close());

  it('Depth: levels with summed volume, bounded by count', async () => {
    const { result } = await client.depth({ pair: 'XBTUSD' });
    const book = result.XXBTZUSD;
    assert.ok(book);
    assert.deepEqual(book.bids, [
      { price: '50000.3', volume: '0.75000000', timestamp: T0 / 1000 + 1 },
      { price: '49999.9', volume: '1.00000000', timestamp: T0 / 1000 + 1 },
    ]);
    assert.equal(book.asks[0]?.price, '50010.3');
    const one = await client.depth({ pair: 'XBTUSD', count: 1 });
    assert.equal(one.result.XXBTZUSD?.bids.length, 1);
    assert.equal(one.result.XXBTZUSD?.asks.length, 1);
    assert.equal(
      await errorOf(client.depth({ pair: 'XBTUSD', count: 0 })),
      'EGeneral:Invalid arguments:count',
    );
    assert.equal(
      await errorOf(client.depth({ pair: 'XBTUSD', count: 501 })),
      'EGeneral:Invalid arguments:count',
    );
    assert.equal(await errorOf(client.depth({ pair: 'NOPE' })), 'EQuery:Unknown asset pair');
  });

  it('GroupedBook: asks round up, bids round down to the grouping', async () => {
    const { result } = await client.groupedBook({ pair: 'XBTUSD', grouping: 5 });
    assert.equal(result.grouping, 5);
    assert.deepEqual(result.bids, [
      { price: '50000.0', qty: '0.75000000' },
      { price: '49999.5', qty: '1.00000000' },
    ]);
    assert.deepEqual(result.asks, [
      { price: '50010.5', qty: '0.10000000' },
      { price: '50011.0', qty: '0.20000000' },
    ]);
  });

  it('Level3: each order with its id and exact nanosecond timestamp', async () => {
    const { result } = await client.level3({ pair: 'XBTUSD', depth: 10 });
    assert.deepEqual(
      result.bids.map((b) => [b.order_id, b.qty]),
      [
        [txids.b1, '0.50000000'],
        [txids.b2, '0.25000000'],
        [txids.b3, '1.00000000'],
      ],
    );
    assert.equal(typeof result.bids[0]?.timestamp, 'bigint');
    assert.ok(
      result.bids[0]!.timestamp >= T0_NS && result.bids[0]!.timestamp < T0_NS + 1_000_000_000n,
    );
    assert.ok(result.bids[1]!.timestamp >= T0_NS + 1_000_000_000n);
    assert.ok(result.bids[1]!.timestamp > 2n ** 53n);
    assert.equal(
      await errorOf(client.level3({ pair: 'XBTUSD', depth: 7 as 10 })),
      'EGeneral:Invalid arguments:depth',
    );
  });

  it('Trades, Ticker, OHLC and Spread follow prints made through AddOrder', async () => {
    await clock.advance(60_000);
    // Another key takes all of a1 and part of a2 (the same key would stop at self-trade prevention).
    const taker = sim.client({ key: sim.addAccount() });
    await taker.addOrder({ pair: 'XBTUSD', type: 'buy', ordertype: 'market', volume: '0.15' });
    const trades = await client.trades({ pair: 'XBTUSD' });
    const rows = trades.result.pairs.XXBTZUSD ?? [];
    assert.deepEqual(
      rows.map((r) => [r[0], r[1], r[3], r[4]]),
      [
        ['50010.3', '0.10000000', 'b', 'm'],
        ['50010.6', '0.05000000', 'b', 'm'],
      ],
    );
    assert.equal(rows[0]?.[2], (T0 + 61_000) / 1000);
    const later = await client.trades({ pair: 'XBTUSD', since: trades.result.last });
    assert.deepEqual(later.result.pairs.XXBTZUSD, []);
    const firstOnly = await client.trades({ pair: 'XBTUSD', since: '0', count: 1 });
    assert.equal(firstOnly.result.pairs.XXBTZUSD?.length, 1);
    const second = await client.trades({ pair: 'XBTUSD', since: firstOnly.result.last, count: 1 });
    assert.equal(second.result.pairs.XXBTZUSD?.[0]?.[0], '50010.6');

    const ticker = (await client.ticker({ pair: 'XBTUSD' })).result.XXBTZUSD;
    assert.ok(ticker);
    assert.deepEqual(ticker.a, ['50010.6', '0', '0.15000000']);
    assert.deepEqual(ticker.b, ['50000.3', '0', '0.75000000']);
    assert.deepEqual(ticker.c, ['50010.6', '0.05000000']);
    assert.deepEqual(ticker.v, ['0.15000000', '0.15000000']);
    assert.deepEqual(ticker.t, [2, 2]);
    assert.deepEqual(ticker.l, ['50010.3', '50010.3']);
    assert.deepEqual(ticker.h, ['50010.6', '50010.6']);
    assert.equal(ticker.o, '50010.3');

    await clock.advance(120_000);
    const ohlc = await client.ohlc({ pair: 'XBTUSD', interval: 1 });
    const frames = ohlc.result.pairs.XXBTZUSD ?? [];
    const current = frames.at(-1);
    assert.deepEqual(current?.slice(1), [
      '50010.6',
      '50010.6',
      '50010.6',
      '50010.6',
      '50010.6',
      '0.00000000',
      0,
    ]);
    const traded = frames.find((f) => f[7] > 0);
    assert.deepEqual(traded?.slice(1), [
      '50010.3',
      '50010.6',
      '50010.3',
      '50010.6',
      '50010.4',
      '0.15000000',
      2,
    ]);
    assert.equal(ohlc.result.last, (current?.[0] ?? 0) - 60);
    const polled = await client.ohlc({ pair: 'XBTUSD', interval: 1, since: ohlc.result.last });
    assert.deepEqual(
      polled.result.pairs.XXBTZUSD?.map((f) => f[0]),
      [current?.[0]],
    );
    for (const interval of [5, 15, 30, 60, 240, 1440, 10080, 21600] as const) {
      const r = await client.ohlc({ pair: 'XBTUSD', interval });
      assert.ok((r.result.pairs.XXBTZUSD?.length ?? 0) >= 1);
    }
    assert.equal(
      await errorOf(client.ohlc({ pair: 'XBTUSD', interval: 2 as 1 })),
      'EGeneral:Invalid arguments:interval',
    );

    const spread = await client.spread({ pair: 'XBTUSD' });
    const samples = spread.result.pairs.XXBTZUSD ?? [];
    assert.deepEqual(samples.at(-1)?.slice(1), ['50000.3', '50010.6']);
    assert.equal(spread.result.last, samples.at(-1)?.[0]);
  });

  it('AssetPairs passes the client schema with every field', async () => {
    const { result } = await client.assetPairs({ pair: 'XBTUSD,ETH/USD' });
    assert.deepEqual(Object.keys(result), ['XXBTZUSD', 'XETHZUSD']);
    assert.equal(result.XXBTZUSD?.tick_size, '0.1');
    assert.equal(result.XETHZUSD?.wsname, 'ETH/USD');
  });
});
