import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { level3Routes } from '../../../src/sim/endpoints/level3.js';
import { publicRoutes } from '../../../src/sim/endpoints/public.js';
import type { SimContext } from '../../../src/sim/context.js';
import { SimError } from '../../../src/sim/errors.js';
import { isRawReply, type Route, type SimRequest } from '../../../src/sim/http/route.js';
import { stubMarket, T0 } from './stub-market.js';

/**
 * The market-data handlers called directly, with a book the test writes: what each parameter
 * does to the result. The same paths over HTTP with the typed client are in http.test.ts.
 */
async function call(
  ctx: SimContext,
  name: string,
  params: Record<string, unknown> = {},
): Promise<Record<string, unknown>> {
  const routes: Route[] = [...publicRoutes(ctx), ...level3Routes(ctx)];
  const route = routes.find((r) => r.name === name);
  assert.ok(route, `no route ${name}`);
  const req: SimRequest = {
    family: route.family,
    name,
    method: route.family === 'public' ? 'GET' : 'POST',
    path: `/0/${route.family}/${name}`,
    params,
    pathParams: {},
    headers: {},
    account: undefined,
    traceId: 't',
    nowMs: ctx.clock.now(),
    clientId: '127.0.0.1',
  };
  const reply = await route.handle(req, ctx);
  assert.ok(!isRawReply(reply));
  return reply.result as Record<string, unknown>;
}

async function rejects(p: Promise<unknown>, error: string): Promise<void> {
  await assert.rejects(p, (e: unknown) => e instanceof SimError && e.errorString === error);
}

const NS = 1_000_000_000n;
const T0_NS = BigInt(T0) * 1_000_000n;

describe('Depth', () => {
  it('sums volume per price, newest timestamp per level, keyed by pair id', async () => {
    const m = stubMarket();
    m.book.rest(m.xbt, 'buy', '59999.5', '0.5', T0_NS);
    m.book.rest(m.xbt, 'buy', '59999.5', '0.25', T0_NS + 7n * NS);
    m.book.rest(m.xbt, 'buy', '59990', '1', T0_NS + 3n * NS);
    m.book.rest(m.xbt, 'sell', '60000.1', '2', T0_NS + 1n * NS);
    const r = await call(m.ctx, 'Depth', { pair: 'XBT/USD' });
    assert.deepEqual(Object.keys(r), ['XXBTZUSD']);
    assert.deepEqual(r.XXBTZUSD, {
      asks: [['60000.1', '2.00000000', T0 / 1000 + 1]],
      bids: [
        ['59999.5', '0.75000000', T0 / 1000 + 7],
        ['59990.0', '1.00000000', T0 / 1000 + 3],
      ],
    });
  });

  it('returns `count` levels per side, 1..500, default 100', async () => {
    const m = stubMarket();
    for (let i = 0; i < 600; i++) m.book.rest(m.xbt, 'sell', String(60000 + i), '1', T0_NS);
    const levels = async (count?: string) => {
      const r = await call(
        m.ctx,
        'Depth',
        count === undefined ? { pair: 'XBTUSD' } : { pair: 'XBTUSD', count },
      );
      return (r.XXBTZUSD as { asks: unknown[] }).asks.length;
    };
    assert.equal(await levels(), 100);
    assert.equal(await levels('1'), 1);
    assert.equal(await levels('500'), 500);
    await rejects(levels('0'), 'EGeneral:Invalid arguments:count');
    await rejects(levels('501'), 'EGeneral:Invalid arguments:count');
    await rejects(levels('ten'), 'EGeneral:Invalid arguments:count');
  });

  it('answers an unknown or missing pair as the exchange does', async () => {
    const m = stubMarket();
    await rejects(call(m.ctx, 'Depth', { pair: 'DOGEUSD' }), 'EQuery:Unknown asset pair');
    await rejects(call(m.ctx, 'Depth', {}), 'EGeneral:Invalid arguments:pair');
  });
});

describe('GroupedBook', () => {
  it('rounds asks up and bids down to the grouped level and sums them', async () => {
    const m = stubMarket();
    // tick 0.1, grouping 5: levels every 0.5
    m.book.rest(m.xbt, 'buy', '100.4', '1', T0_NS);
    m.book.rest(m.xbt, 'buy', '100.1', '2', T0_NS);
    m.book.rest(m.xbt, 'buy', '100.0', '4', T0_NS);
    m.book.rest(m.xbt, 'buy', '99.9', '8', T0_NS);
    m.book.rest(m.xbt, 'sell', '100.6', '1', T0_NS);
    m.book.rest(m.xbt, 'sell', '100.9', '2', T0_NS);
    m.book.rest(m.xbt, 'sell', '101.0', '4', T0_NS);
    m.book.rest(m.xbt, 'sell', '101.1', '8', T0_NS);
    const r = await call(m.ctx, 'GroupedBook', { pair: 'XBTUSD', grouping: '5' });
    assert.deepEqual(r, {
      pair: 'XBTUSD',
      grouping: 5,
      bids: [
        { price: '100.0', qty: '7.00000000' },
        { price: '99.5', qty: '8.00000000' },
      ],
      asks: [
        { price: '101.0', qty: '7.00000000' },
        { price: '101.5', qty: '8.00000000' },
      ],
    });
  });

  it('limits levels by depth and accepts only the spec values', async () => {
    const m = stubMarket();
    for (let i = 0; i < 40; i++) m.book.rest(m.xbt, 'buy', String(1000 - i), '1', T0_NS);
    const r = await call(m.ctx, 'GroupedBook', { pair: 'XBTUSD' });
    assert.equal(r.grouping, 1);
    assert.equal((r.bids as unknown[]).length, 10);
    const r25 = await call(m.ctx, 'GroupedBook', { pair: 'XBTUSD', depth: '25' });
    assert.equal((r25.bids as unknown[]).length, 25);
    await rejects(
      call(m.ctx, 'GroupedBook', { pair: 'XBTUSD', depth: '20' }),
      'EGeneral:Invalid arguments:depth',
    );
    await rejects(
      call(m.ctx, 'GroupedBook', { pair: 'XBTUSD', grouping: '2' }),
      'EGeneral:Invalid arguments:grouping',
    );
  });
});

describe('Level3', () => {
  it('lists each resting order with its id and exact ns timestamp, `depth` price levels', async () => {
    const m = stubMarket();
    const big = 1_700_000_000_123_456_789n;
    const a = m.book.rest(m.xbt, 'buy', '100', '1', big);
    const b = m.book.rest(m.xbt, 'buy', '100', '2', big + 1n);
    m.book.rest(m.xbt, 'buy', '99', '3', big + 2n);
    const r = await call(m.ctx, 'Level3', { pair: 'XBTUSD', depth: 10 });
    assert.equal(r.pair, 'XBTUSD');
    const bids = r.bids as { price: string; qty: string; order_id: string; timestamp: bigint }[];
    assert.deepEqual(bids[0], {
      price: '100.0',
      qty: '1.00000000',
      order_id: a.txid,
      timestamp: big,
    });
    assert.equal(bids[1]?.order_id, b.txid);
    assert.equal(typeof bids[1]?.timestamp, 'bigint');
    assert.equal(bids.length, 3);
    assert.deepEqual(r.asks, []);
  });

  it('cuts at whole price levels; depth 0 is the full book', async () => {
    const m = stubMarket();
    for (let i = 0; i < 30; i++) {
      m.book.rest(m.xbt, 'sell', String(200 + i), '1', T0_NS);
      m.book.rest(m.xbt, 'sell', String(200 + i), '1', T0_NS + 1n);
    }
    const asks = async (depth?: unknown) =>
      (
        (
          await call(
            m.ctx,
            'Level3',
            depth === undefined ? { pair: 'XBTUSD' } : { pair: 'XBTUSD', depth },
          )
        ).asks as unknown[]
      ).length;
    assert.equal(await asks(10), 20);
    assert.equal(await asks('25'), 50);
    assert.equal(await asks(0), 60);
    assert.equal(await asks(), 60);
    await rejects(asks(5), 'EGeneral:Invalid arguments:depth');
    await rejects(call(m.ctx, 'Level3', {}), 'EGeneral:Invalid arguments:pair');
  });

  it('is a private route needing the query-open permission', () => {
    const m = stubMarket();
    const route = level3Routes(m.ctx)[0];
    assert.equal(route?.family, 'private');
    assert.deepEqual(route?.permission, ['orders-query-open']);
  });
});

describe('Trades', () => {
  it('pages forward from `last` with `since`, at most `count` rows', async () => {
    const m = stubMarket();
    for (let i = 0; i < 25; i++)
      m.print(String(100 + i), '0.5', i % 2 === 0 ? 'buy' : 'sell', T0 + i * 10);
    const first = await call(m.ctx, 'Trades', { pair: 'XBTUSD', count: '10', since: '0' });
    const rows = first.XXBTZUSD as unknown[][];
    assert.equal(rows.length, 10);
    assert.deepEqual(rows[0], ['100.0', '0.50000000', T0 / 1000, 'b', 'l', '', 1]);
    assert.deepEqual(rows[1]?.slice(3, 4), ['s']);
    assert.equal(first.last, String(BigInt(T0 + 90) * 1_000_000n));
    const next = await call(m.ctx, 'Trades', { pair: 'XBTUSD', count: '10', since: first.last });
    assert.deepEqual(
      (next.XXBTZUSD as unknown[][]).map((r) => r[6]),
      [11, 12, 13, 14, 15, 16, 17, 18, 19, 20],
    );
    const end = await call(m.ctx, 'Trades', {
      pair: 'XBTUSD',
      since: String(BigInt(T0 + 240) * 1_000_000n),
    });
    assert.deepEqual(end.XXBTZUSD, []);
    assert.equal(end.last, String(BigInt(T0 + 240) * 1_000_000n));
  });

  it('reads a small `since` as Unix seconds; without it sends the newest `count`', async () => {
    const m = stubMarket();
    for (let i = 0; i < 5; i++) m.print('100', '1', 'buy', T0 + i * 1000);
    const fromSecond = await call(m.ctx, 'Trades', {
      pair: 'XBTUSD',
      since: String(T0 / 1000 + 2),
    });
    assert.deepEqual(
      (fromSecond.XXBTZUSD as unknown[][]).map((r) => r[6]),
      [4, 5],
    );
    const newest = await call(m.ctx, 'Trades', { pair: 'XBTUSD', count: '2' });
    assert.deepEqual(
      (newest.XXBTZUSD as unknown[][]).map((r) => r[6]),
      [4, 5],
    );
    await rejects(
      call(m.ctx, 'Trades', { pair: 'XBTUSD', count: '1001' }),
      'EGeneral:Invalid arguments:count',
    );
    await rejects(
      call(m.ctx, 'Trades', { pair: 'XBTUSD', count: '0' }),
      'EGeneral:Invalid arguments:count',
    );
    await rejects(
      call(m.ctx, 'Trades', { pair: 'XBTUSD', since: 'yesterday' }),
      'EGeneral:Invalid arguments:since',
    );
  });
});

describe('OHLC', () => {
  it('validates the interval and keeps the current frame whatever `since` says', async () => {
    const m = stubMarket();
    const m0 = Math.floor(T0 / 60_000) * 60;
    m.print('100', '1', 'buy', m0 * 1000);
    m.print('101', '1', 'buy', m0 * 1000 + 60_000);
    await m.clock.advance(2 * 60_000);
    const all = await call(m.ctx, 'OHLC', { pair: 'XBTUSD' });
    const rows = all.XXBTZUSD as unknown[][];
    assert.equal(rows.length, 3);
    assert.deepEqual(rows[1], [
      m0 + 60,
      '101.0',
      '101.0',
      '101.0',
      '101.0',
      '101.0',
      '1.00000000',
      1,
    ]);
    assert.equal(all.last, m0 + 60);
    const since = await call(m.ctx, 'OHLC', { pair: 'XBTUSD', since: String(all.last) });
    assert.deepEqual(
      (since.XXBTZUSD as unknown[][]).map((r) => r[0]),
      [m0 + 120],
    );
    const future = await call(m.ctx, 'OHLC', { pair: 'XBTUSD', since: String(m0 + 999_999) });
    assert.deepEqual(
      (future.XXBTZUSD as unknown[][]).map((r) => r[0]),
      [m0 + 120],
    );
    for (const interval of ['5', '15', '30', '60', '240', '1440', '10080', '21600']) {
      const r = await call(m.ctx, 'OHLC', { pair: 'XBTUSD', interval });
      const last = (r.XXBTZUSD as unknown[][]).at(-1) as [number];
      assert.equal(last[0] % (Number(interval) * 60), 0, `interval ${interval}`);
    }
    await rejects(
      call(m.ctx, 'OHLC', { pair: 'XBTUSD', interval: '2' }),
      'EGeneral:Invalid arguments:interval',
    );
  });
});

describe('Spread', () => {
  it('returns samples newer than `since` and `last` to poll with', async () => {
    const m = stubMarket();
    m.book.rest(m.xbt, 'buy', '99', '1', 1n);
    m.book.rest(m.xbt, 'sell', '101', '1', 2n);
    m.recorder.onBook(m.xbt);
    await m.clock.advance(5_000);
    m.book.rest(m.xbt, 'buy', '100', '1', 3n);
    m.recorder.onBook(m.xbt);
    const all = await call(m.ctx, 'Spread', { pair: 'XBTUSD' });
    assert.deepEqual(all.XXBTZUSD, [
      [T0 / 1000, '99.0', '101.0'],
      [T0 / 1000 + 5, '100.0', '101.0'],
    ]);
    assert.equal(all.last, T0 / 1000 + 5);
    const since = await call(m.ctx, 'Spread', { pair: 'XBTUSD', since: String(T0 / 1000) });
    assert.deepEqual(since.XXBTZUSD, [[T0 / 1000 + 5, '100.0', '101.0']]);
  });
});

describe('Ticker', () => {
  it('reports touch, last trade, today and 24h columns and the opening price', async () => {
    const dayStart = Math.floor(T0 / 86_400_000) * 86_400_000;
    const m = stubMarket(dayStart - 3_600_000);
    m.print('90', '1', 'buy'); // yesterday, within 24 h
    await m.clock.advance(3_600_000 + 60_000);
    m.print('100', '1', 'buy');
    m.print('120', '3', 'sell');
    m.book.rest(m.xbt, 'buy', '119', '1.5', 1n);
    m.book.rest(m.xbt, 'buy', '119', '1', 2n);
    m.book.rest(m.xbt, 'sell', '121', '0.25', 3n);
    const r = await call(m.ctx, 'Ticker', { pair: 'XBTUSD' });
    assert.deepEqual(r.XXBTZUSD, {
      a: ['121.0', '0', '0.25000000'],
      b: ['119.0', '2', '2.50000000'],
      c: ['120.0', '3.00000000'],
      v: ['4.00000000', '5.00000000'],
      p: ['115.0', '110.0'],
      t: [2, 3],
      l: ['100.0', '90.0'],
      h: ['120.0', '120.0'],
      o: '100.0',
    });
  });

  it('lists every pair when none is named; a quiet day shows the last price', async () => {
    const m = stubMarket();
    m.print('100', '1', 'buy');
    await m.clock.advance(2 * 86_400_000);
    const r = await call(m.ctx, 'Ticker');
    assert.deepEqual(Object.keys(r), ['XXBTZUSD', 'XETHZUSD', 'XETHXXBT']);
    const x = r.XXBTZUSD as Record<string, unknown>;
    assert.deepEqual(x.v, ['0.00000000', '0.00000000']);
    assert.deepEqual(x.t, [0, 0]);
    assert.deepEqual(x.l, ['100.0', '100.0']);
    assert.equal(x.o, '100.0');
    await rejects(call(m.ctx, 'Ticker', { pair: 'XBTUSD,NOPE' }), 'EQuery:Unknown asset pair');
  });
});

describe('Reference data', () => {
  it('Time: unixtime and RFC 1123 of the clock', async () => {
    const m = stubMarket();
    assert.deepEqual(await call(m.ctx, 'Time'), {
      unixtime: T0 / 1000,
      rfc1123: 'Tue, 14 Nov 2023 22:13:20 GMT',
    });
  });

  it('Assets filters by id or altname', async () => {
    const m = stubMarket();
    const r = await call(m.ctx, 'Assets', { asset: 'XBT,ZUSD' });
    assert.deepEqual(Object.keys(r), ['XXBT', 'ZUSD']);
    assert.deepEqual(r.XXBT, {
      aclass: 'currency',
      altname: 'XBT',
      decimals: 10,
      display_decimals: 5,
      collateral_value: 1,
      status: 'enabled',
    });
    assert.deepEqual(await call(m.ctx, 'Assets', { aclass: 'tokenized_asset' }), {});
    await rejects(call(m.ctx, 'Assets', { asset: 'DOGE' }), 'EQuery:Unknown asset');
    await rejects(call(m.ctx, 'Assets', { aclass: 'bonds' }), 'EGeneral:Invalid arguments:aclass');
  });

  it('AssetPairs: every field for info, subsets for leverage, fees and margin', async () => {
    const m = stubMarket();
    const r = await call(m.ctx, 'AssetPairs', { pair: 'XBT/USD,ETHXBT' });
    assert.deepEqual(Object.keys(r), ['XXBTZUSD', 'XETHXXBT']);
    const x = r.XXBTZUSD as Record<string, unknown>;
    assert.deepEqual(Object.keys(x).sort(), [
      'aclass_base',
      'aclass_quote',
      'altname',
      'base',
      'cost_decimals',
      'costmin',
      'fee_volume_currency',
      'fees',
      'fees_maker',
      'leverage_buy',
      'leverage_sell',
      'long_position_limit',
      'lot',
      'lot_decimals',
      'lot_multiplier',
      'margin_call',
      'margin_stop',
      'ordermin',
      'pair_decimals',
      'quote',
      'short_position_limit',
      'status',
      'tick_size',
      'wsname',
    ]);
    assert.equal(x.tick_size, '0.1');
    assert.deepEqual((x.fees as unknown[])[0], [0, 0.4]);
    const fees = await call(m.ctx, 'AssetPairs', { pair: 'XBTUSD', info: 'fees' });
    assert.deepEqual(Object.keys(fees.XXBTZUSD as object), [
      'fees',
      'fees_maker',
      'fee_volume_currency',
    ]);
    const lev = await call(m.ctx, 'AssetPairs', { info: 'leverage' });
    assert.deepEqual(lev.XETHZUSD, { leverage_buy: [], leverage_sell: [] });
    const margin = await call(m.ctx, 'AssetPairs', { pair: 'XBTUSD', info: 'margin' });
    assert.deepEqual(margin.XXBTZUSD, { margin_call: 80, margin_stop: 40 });
    await rejects(
      call(m.ctx, 'AssetPairs', { info: 'everything' }),
      'EGeneral:Invalid arguments:info',
    );
  });

  it('SystemStatus and MaintenanceSchedule come from the status board', async () => {
    const m = stubMarket();
    m.ctx.status.setMode('post_only');
    const s = await call(m.ctx, 'SystemStatus');
    assert.equal(s.status, 'post_only');
    assert.equal(s.timestamp, '2023-11-14T22:13:20Z');
    assert.deepEqual(await call(m.ctx, 'MaintenanceSchedule'), { events: [] });
  });
});
