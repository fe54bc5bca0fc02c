/**
 * One realistic answer per client method, written from the spec's field tables as the exchange
 * would send it, run through a real HTTP round trip: the request the server saw (method, path,
 * parameters) and the parsed result (transforms applied, decimals kept as text).
 */
import { after, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';

import {
  InvalidArgumentsError,
  type SpotClient,
  type ApiResponse,
  type Level3Result,
} from '../../src/index.js';
import {
  FixtureServer,
  envelope,
  errorEnvelope,
  fixtureClient,
  type CannedResponse,
  type RecordedRequest,
} from '../support/fixture-server.js';

// ---- table plumbing ---------------------------------------------------------------------------

type NotEndpoint = 'call' | 'close' | 'resetKeyGuard';
type ClientMethod = Exclude<
  {
    [K in keyof SpotClient]: SpotClient[K] extends (...args: never[]) => unknown ? K : never;
  }[keyof SpotClient],
  NotEndpoint
>;

interface Row {
  readonly label: string;
  readonly method: ClientMethod;
  readonly run: (c: SpotClient) => Promise<ApiResponse<unknown>>;
  readonly reply: CannedResponse;
  readonly http: 'GET' | 'POST';
  readonly path: string;
  readonly sent?: (req: RecordedRequest) => void;
  readonly check: (result: unknown, response: ApiResponse<unknown>) => void;
}

interface RowSpec<T> {
  readonly label?: string;
  readonly method: ClientMethod;
  readonly run: (c: SpotClient) => Promise<ApiResponse<T>>;
  /** The spot `result`, wrapped in `{ error: [], result }`. */
  readonly result?: unknown;
  /** Or the whole response (non-spot families, binary bodies, raw text). */
  readonly reply?: CannedResponse;
  readonly http: 'GET' | 'POST';
  readonly path: string;
  readonly sent?: (req: RecordedRequest) => void;
  readonly check: (result: T, response: ApiResponse<T>) => void;
}

function row<T>(spec: RowSpec<T>): Row {
  const reply = spec.reply ?? { body: envelope(spec.result) };
  return {
    label: spec.label ?? spec.method,
    method: spec.method,
    run: spec.run,
    reply,
    http: spec.http,
    path: spec.path,
    ...(spec.sent === undefined ? {} : { sent: spec.sent }),
    check: spec.check as (result: unknown, response: ApiResponse<unknown>) => void,
  };
}

const json = (value: unknown, status = 200): CannedResponse => ({
  status,
  body: JSON.stringify(value),
});

/** Form body or JSON body of a POST as a plain object. */
function bodyOf(req: RecordedRequest): Record<string, unknown> {
  if (req.headers['content-type']?.includes('json') === true) {
    return JSON.parse(req.body) as Record<string, unknown>;
  }
  return Object.fromEntries(new URLSearchParams(req.body));
}

function get<T>(map: Readonly<Record<string, T>> | undefined, key: string): T {
  assert.ok(map !== undefined, `map holding ${key} is undefined`);
  const v = map[key];
  assert.ok(v !== undefined, `missing key ${key}`);
  return v;
}

function at<T>(list: readonly T[] | undefined, i: number): T {
  assert.ok(list !== undefined, 'list is undefined');
  const v = list[i];
  assert.ok(v !== undefined, `missing index ${i}`);
  return v;
}

const obj = (v: unknown): Record<string, unknown> => {
  assert.ok(typeof v === 'object' && v !== null && !Array.isArray(v), 'expected an object');
  return v as Record<string, unknown>;
};

// ---- fixtures shared by several rows -----------------------------------------------------------

const MAINTENANCE_EVENT = {
  event_id: 4512,
  title: 'Spot matching engine upgrade',
  expected_start_utc: '2023-11-15T06:00:00Z',
  expected_end_utc: '2023-11-15T07:00:00Z',
  time_to_start_s: 1500,
  phase: 'approaching_30m',
  affected_services: ['spot_trading', 'spot_rest', 'spot_ws'],
  order_submission: 'allowed',
  recommended_action: 'reduce_activity',
  cancel_before_utc: '2023-11-15T05:55:00Z',
  source_url: 'https://status.example.com/incidents/4512',
};
const LATER_EVENT = {
  ...MAINTENANCE_EVENT,
  event_id: 4513,
  title: 'Websocket gateway maintenance',
  expected_start_utc: '2023-11-17T06:00:00Z',
  expected_end_utc: '2023-11-17T06:30:00Z',
  time_to_start_s: 172_200,
  phase: 'announced',
  affected_services: ['spot_ws'],
  recommended_action: 'continue',
  cancel_before_utc: '2023-11-17T05:55:00Z',
  source_url: 'https://status.example.com/incidents/4513',
};
const EMERGENCY_EVENT = {
  event_id: 9031,
  title: 'Degraded websocket and FIX connectivity',
  incident_status: 'identified',
  impact: 'critical',
  affected_services: ['spot_ws', 'spot_rest', 'spot_fix'],
  started_at_utc: '2023-11-14T21:50:00Z',
  next_steps: [
    { applies_to: ['spot_ws'], type: 'expected_restart', expected_at_utc: '2023-11-14T22:30:00Z' },
  ],
  source_url: 'https://status.example.com/incidents/9031',
};

const XBTUSD_PAIR = {
  altname: 'XBTUSD',
  wsname: 'XBT/USD',
  aclass_base: 'currency',
  base: 'XXBT',
  aclass_quote: 'currency',
  quote: 'ZUSD',
  lot: 'unit',
  cost_decimals: 5,
  pair_decimals: 1,
  lot_decimals: 8,
  lot_multiplier: 1,
  leverage_buy: [2, 3, 4, 5],
  leverage_sell: [2, 3, 4, 5],
  fees: [
    [0, 0.26],
    [50000, 0.24],
    [100000, 0.22],
  ],
  fees_maker: [
    [0, 0.16],
    [50000, 0.14],
    [100000, 0.12],
  ],
  fee_volume_currency: 'ZUSD',
  margin_call: 80,
  margin_stop: 40,
  ordermin: '0.0001',
  costmin: '0.5',
  tick_size: '0.1',
  status: 'online',
  long_position_limit: 270,
  short_position_limit: 180,
};

function orderRecord(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    refid: null,
    userref: 42,
    status: 'open',
    opentm: 1700000000.1234,
    starttm: 0,
    expiretm: 0,
    descr: {
      pair: 'XBTUSD',
      type: 'buy',
      ordertype: 'limit',
      price: '30010.0',
      price2: '0',
      leverage: 'none',
      order: 'buy 1.25000000 XBTUSD @ limit 30010.0',
      close: '',
    },
    vol: '1.25000000',
    vol_exec: '0.37500000',
    cost: '11253.75000',
    fee: '18.00600',
    price: '30010.0',
    stopprice: '0.00000',
    limitprice: '0.00000',
    misc: '',
    oflags: 'fciq',
    trades: ['TCCCTY-WE2O6-P3NB37'],
    ...over,
  };
}

function tradeRecord(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    ordertxid: 'OQCLML-BW3P3-BUCMWZ',
    postxid: 'TKH2SE-M7IF5-CFI7LT',
    pair: 'XXBTZUSD',
    time: 1700000000.1234,
    type: 'buy',
    ordertype: 'limit',
    price: '30010.00000',
    cost: '600.20000',
    fee: '0.00000',
    vol: '0.02000000',
    margin: '0.00000',
    leverage: '0',
    misc: '',
    trade_id: 39482674,
    maker: true,
    ledgers: ['L4UESK-KG3EQ-UFO4T5'],
    ...over,
  };
}

// Bytes of a zip archive: a local file header, then bytes that are not valid UTF-8.
const ZIP = Uint8Array.from([
  0x50, 0x4b, 0x03, 0x04, 0x14, 0x00, 0x00, 0x00, 0x08, 0x00, 0xff, 0xfe, 0x00, 0x80, 0xc3, 0x28,
  0xa0, 0xa1, 0xe2, 0x28, 0xa1, 0xf0, 0x90, 0x28, 0xbc, 0x50, 0x4b, 0x05, 0x06, 0x00, 0x00, 0x00,
]);

const VAULT = 'VRKZ3QGFWNBQ7AM';
const RFQ = 'a8f0e6b2-7c3d-4a51-9e0f-2b6d1c4e8f90';

// ---- the table ---------------------------------------------------------------------------------

const ROWS: readonly Row[] = [
  // ---- public market data
  row({
    method: 'time',
    run: (c) => c.time(),
    result: { unixtime: 1700000000, rfc1123: 'Tue, 14 Nov 23 22:13:20 +0000' },
    http: 'GET',
    path: '/0/public/Time',
    check: (r) => {
      assert.equal(r.unixtime, 1700000000);
      assert.equal(r.rfc1123, 'Tue, 14 Nov 23 22:13:20 +0000');
    },
  }),
  row({
    label: 'systemStatus with maintenance and emergency events',
    method: 'systemStatus',
    run: (c) => c.systemStatus(),
    result: {
      status: 'online',
      timestamp: '2023-11-14T22:13:20Z',
      upcoming_maintenance: [MAINTENANCE_EVENT, LATER_EVENT],
      emergency: [EMERGENCY_EVENT],
    },
    http: 'GET',
    path: '/0/public/SystemStatus',
    check: (r) => {
      assert.equal(r.status, 'online');
      assert.equal(r.timestamp, '2023-11-14T22:13:20Z');
      const first = at(r.upcoming_maintenance, 0);
      assert.equal(first.event_id, 4512);
      assert.equal(first.phase, 'approaching_30m');
      assert.equal(first.recommended_action, 'reduce_activity');
      assert.equal(first.time_to_start_s, 1500);
      assert.deepEqual(first.affected_services, ['spot_trading', 'spot_rest', 'spot_ws']);
      assert.equal(at(r.upcoming_maintenance, 1).phase, 'announced');
      const e = at(r.emergency, 0);
      assert.equal(e.incident_status, 'identified');
      assert.equal(e.impact, 'critical');
      assert.deepEqual(e.affected_services, ['spot_ws', 'spot_rest', 'spot_fix']);
      const step = at(e.next_steps, 0);
      assert.equal(step.type, 'expected_restart');
      assert.deepEqual(step.applies_to, ['spot_ws']);
      assert.equal(step.expected_at_utc, '2023-11-14T22:30:00Z');
    },
  }),
  row({
    label: 'systemStatus without the event arrays',
    method: 'systemStatus',
    run: (c) => c.systemStatus(),
    result: { status: 'cancel_only', timestamp: '2023-11-15T06:00:01Z' },
    http: 'GET',
    path: '/0/public/SystemStatus',
    check: (r) => {
      assert.equal(r.status, 'cancel_only');
      assert.equal((r.upcoming_maintenance ?? []).length, 0);
      assert.equal((r.emergency ?? []).length, 0);
    },
  }),
  row({
    method: 'maintenanceSchedule',
    run: (c) => c.maintenanceSchedule(),
    result: { events: [MAINTENANCE_EVENT, LATER_EVENT] },
    http: 'GET',
    path: '/0/public/MaintenanceSchedule',
    check: (r) => {
      assert.equal(r.events.length, 2);
      assert.equal(at(r.events, 0).expected_start_utc, '2023-11-15T06:00:00Z');
      assert.equal(at(r.events, 1).event_id, 4513);
      assert.equal(at(r.events, 1).source_url, 'https://status.example.com/incidents/4513');
    },
  }),
  row({
    method: 'assets',
    run: (c) => c.assets({ asset: ['XBT', 'ZUSD'] }),
    result: {
      XXBT: {
        aclass: 'currency',
        altname: 'XBT',
        decimals: 10,
        display_decimals: 5,
        collateral_value: 1,
        status: 'enabled',
      },
      ZUSD: {
        aclass: 'currency',
        altname: 'USD',
        decimals: 4,
        display_decimals: 2,
        collateral_value: 1,
        status: 'enabled',
      },
      'XETH.F': {
        aclass: 'currency',
        altname: 'ETH.F',
        decimals: 10,
        display_decimals: 5,
        collateral_value: 0.9,
        status: 'enabled',
      },
    },
    http: 'GET',
    path: '/0/public/Assets',
    sent: (req) => assert.equal(req.query.get('asset'), 'XBT,ZUSD'),
    check: (r) => {
      assert.equal(get(r, 'XXBT').altname, 'XBT');
      assert.equal(get(r, 'XXBT').decimals, 10);
      assert.equal(get(r, 'ZUSD').display_decimals, 2);
      assert.equal(get(r, 'XETH.F').collateral_value, 0.9);
    },
  }),
  row({
    method: 'assetPairs',
    run: (c) => c.assetPairs({ pair: 'XXBTZUSD' }),
    result: { XXBTZUSD: XBTUSD_PAIR },
    http: 'GET',
    path: '/0/public/AssetPairs',
    sent: (req) => assert.equal(req.query.get('pair'), 'XXBTZUSD'),
    check: (r) => {
      const p = get(r, 'XXBTZUSD');
      assert.equal(p.altname, 'XBTUSD');
      assert.equal(p.wsname, 'XBT/USD');
      assert.equal(p.tick_size, '0.1');
      assert.equal(p.ordermin, '0.0001');
      assert.equal(p.costmin, '0.5');
      assert.equal(p.pair_decimals, 1);
      assert.deepEqual(p.leverage_buy, [2, 3, 4, 5]);
      assert.equal(p.long_position_limit, 270);
    },
  }),
  row({
    label: 'assetPairs info=leverage (partial objects)',
    method: 'assetPairs',
    run: (c) => c.assetPairs({ pair: 'XXBTZUSD', info: 'leverage' }),
    result: { XXBTZUSD: { leverage_buy: [2, 3, 4, 5], leverage_sell: [2, 3, 4, 5] } },
    http: 'GET',
    path: '/0/public/AssetPairs',
    sent: (req) => assert.equal(req.query.get('info'), 'leverage'),
    check: (r) => assert.deepEqual(obj(get(r, 'XXBTZUSD')).leverage_sell, [2, 3, 4, 5]),
  }),
  row({
    method: 'ticker',
    run: (c) => c.ticker({ pair: 'XXBTZUSD' }),
    result: {
      XXBTZUSD: {
        a: ['37000.10000', '1', '1.000'],
        b: ['37000.00000', '2', '2.000'],
        c: ['37000.10000', '0.00100000'],
        v: ['1234.56789012', '2345.67890123'],
        p: ['36950.12345', '36900.54321'],
        t: [12345, 23456],
        l: ['36500.00000', '36400.00000'],
        h: ['37200.00000', '37300.00000'],
        o: '36800.00000',
      },
    },
    http: 'GET',
    path: '/0/public/Ticker',
    sent: (req) => assert.equal(req.query.get('pair'), 'XXBTZUSD'),
    check: (r) => {
      const t = get(r, 'XXBTZUSD');
      assert.deepEqual(t.a, ['37000.10000', '1', '1.000']);
      assert.equal(at(t.v, 0), '1234.56789012');
      assert.equal(t.o, '36800.00000');
      assert.deepEqual(t.t, [12345, 23456]);
    },
  }),
  row({
    method: 'ohlc',
    run: (c) => c.ohlc({ pair: 'XXBTZUSD', interval: 60, since: 1699996400 }),
    result: {
      XXBTZUSD: [
        [1699996400, '36900.0', '37010.5', '36880.1', '37000.0', '36950.12345', '12.34567890', 345],
        [1700000000, '37000.0', '37050.0', '36990.0', '37020.3', '37011.00000', '0.10000000', 12],
      ],
      last: 1699996400,
    },
    http: 'GET',
    path: '/0/public/OHLC',
    sent: (req) => {
      assert.equal(req.query.get('pair'), 'XXBTZUSD');
      assert.equal(req.query.get('interval'), '60');
      assert.equal(req.query.get('since'), '1699996400');
    },
    check: (r) => {
      assert.equal(r.last, 1699996400);
      assert.deepEqual(Object.keys(r.pairs), ['XXBTZUSD']);
      const rows = get(r.pairs, 'XXBTZUSD');
      assert.equal(rows.length, 2);
      assert.deepEqual(at(rows, 0), [
        1699996400,
        '36900.0',
        '37010.5',
        '36880.1',
        '37000.0',
        '36950.12345',
        '12.34567890',
        345,
      ]);
      assert.equal(at(rows, 1)[6], '0.10000000');
    },
  }),
  row({
    method: 'depth',
    run: (c) => c.depth({ pair: 'XXBTZUSD', count: 2 }),
    result: {
      XXBTZUSD: {
        asks: [
          ['37000.10000', '0.10000000', 1700000000],
          ['37000.20000', '1.50000000', 1700000001],
        ],
        bids: [['37000.00000', '2.00000000', 1699999999]],
      },
    },
    http: 'GET',
    path: '/0/public/Depth',
    sent: (req) => assert.equal(req.query.get('count'), '2'),
    check: (r) => {
      const book = get(r, 'XXBTZUSD');
      assert.deepEqual(at(book.asks, 0), {
        price: '37000.10000',
        volume: '0.10000000',
        timestamp: 1700000000,
      });
      assert.equal(at(book.asks, 1).volume, '1.50000000');
      assert.deepEqual(book.bids, [
        { price: '37000.00000', volume: '2.00000000', timestamp: 1699999999 },
      ]);
    },
  }),
  row({
    method: 'groupedBook',
    run: (c) => c.groupedBook({ pair: 'XBTUSD', depth: 10, grouping: 5 }),
    result: {
      pair: 'XBTUSD',
      grouping: 5,
      bids: [
        { price: '37000.0', qty: '3.21000000' },
        { price: '36999.5', qty: '0.10000000' },
      ],
      asks: [{ price: '37000.5', qty: '1.00000000' }],
    },
    http: 'GET',
    path: '/0/public/GroupedBook',
    sent: (req) => assert.equal(req.query.get('grouping'), '5'),
    check: (r) => {
      assert.equal(r.pair, 'XBTUSD');
      assert.equal(r.grouping, 5);
      assert.deepEqual(at(r.bids, 1), { price: '36999.5', qty: '0.10000000' });
      assert.equal(at(r.asks, 0).qty, '1.00000000');
    },
  }),
  row({
    method: 'trades',
    run: (c) => c.trades({ pair: 'XXBTZUSD', since: '1700000000000000000', count: 2 }),
    result: {
      XXBTZUSD: [
        ['37000.10000', '0.00100000', 1700000000.1234, 'b', 'l', '', 65432101],
        ['37000.00000', '0.25000000', 1700000000.5678, 's', 'm', '', 65432102],
      ],
      last: '1700000000567800000',
    },
    http: 'GET',
    path: '/0/public/Trades',
    sent: (req) => assert.equal(req.query.get('since'), '1700000000000000000'),
    check: (r) => {
      assert.equal(r.last, '1700000000567800000');
      const rows = get(r.pairs, 'XXBTZUSD');
      assert.equal(at(rows, 0)[0], '37000.10000');
      assert.equal(at(rows, 0)[2], 1700000000.1234);
      assert.equal(at(rows, 1)[3], 's');
      assert.equal(at(rows, 1)[6], 65432102);
    },
  }),
  row({
    method: 'spread',
    run: (c) => c.spread({ pair: 'XXBTZUSD', since: 1699999990 }),
    result: {
      XXBTZUSD: [
        [1699999995, '37000.00000', '37000.10000'],
        [1700000000, '37000.10000', '37000.20000'],
      ],
      last: 1700000000,
    },
    http: 'GET',
    path: '/0/public/Spread',
    check: (r) => {
      assert.equal(r.last, 1700000000);
      assert.deepEqual(at(get(r.pairs, 'XXBTZUSD'), 1), [1700000000, '37000.10000', '37000.20000']);
    },
  }),
  // ---- public NFT data (record shapes not shown: kept as sent)
  row({
    method: 'nft',
    run: (c) => c.nft({ nft_id: 'NT4EFBO-OWGI5-QLO7AG', currency: 'USD' }),
    result: {
      id: 'NT4EFBO-OWGI5-QLO7AG',
      name: 'Kraken Genesis #77',
      collection_id: 'NCQNABO-XYCA7-JMMSDF',
      owner: 'N3L5PGM-AAAAA-BBBBBB',
    },
    http: 'GET',
    path: '/0/public/Nft',
    sent: (req) => assert.equal(req.query.get('nft_id'), 'NT4EFBO-OWGI5-QLO7AG'),
    check: (r) => assert.equal(obj(r).name, 'Kraken Genesis #77'),
  }),
  row({
    label: 'nft (null: no such NFT)',
    method: 'nft',
    run: (c) => c.nft({ nft_id: 'NXXXXXX-XXXXX-XXXXXX' }),
    result: null,
    http: 'GET',
    path: '/0/public/Nft',
    check: (r) => assert.equal(r, null),
  }),
  row({
    method: 'nfts',
    run: (c) => c.nfts({ page_size: 2, sort: 'RecentlyAdded' }),
    result: {
      items: [{ id: 'NT4EFBO-OWGI5-QLO7AG' }, { id: 'NT5ABCD-OWGI5-QLO7AH' }],
      next_cursor: 'eyJwYWdlIjoyfQ',
    },
    http: 'GET',
    path: '/0/public/Nfts',
    sent: (req) => {
      assert.equal(req.query.get('page_size'), '2');
      assert.equal(req.query.get('sort'), 'RecentlyAdded');
    },
    check: (r) => {
      assert.equal(r.next_cursor, 'eyJwYWdlIjoyfQ');
      assert.equal((r.items as unknown[]).length, 2);
    },
  }),
  row({
    method: 'nftProvenance',
    run: (c) => c.nftProvenance({ nft_id: 'NT4EFBO-OWGI5-QLO7AG', page: 1, per_page: 5 }),
    result: { items: [{ event: 'mint', time: 1700000000 }], total: 1 },
    http: 'GET',
    path: '/0/public/NftProvenance',
    check: (r) => {
      assert.equal(r.total, 1);
      assert.equal(r.items.length, 1);
    },
  }),
  row({
    method: 'nftCollection',
    run: (c) => c.nftCollection({ collection_id: 'NCQNABO-XYCA7-JMMSDF' }),
    result: { id: 'NCQNABO-XYCA7-JMMSDF', name: 'Genesis', floor_price: '0.05000000' },
    http: 'GET',
    path: '/0/public/NftCollection',
    sent: (req) => assert.equal(req.query.get('collection_id'), 'NCQNABO-XYCA7-JMMSDF'),
    check: (r) => assert.equal(obj(r).floor_price, '0.05000000'),
  }),
  row({
    method: 'nftCollections',
    run: (c) => c.nftCollections({ page_size: 10, sort: 'NameAsc' }),
    result: {
      total_items: { relation: 'eq', value: 1 },
      items: [{ id: 'NCQNABO-XYCA7-JMMSDF', name: 'Genesis' }],
      next_cursor: null,
    },
    http: 'GET',
    path: '/0/public/NftCollections',
    check: (r) => {
      assert.deepEqual(r.total_items, { relation: 'eq', value: 1 });
      assert.equal(r.items.length, 1);
    },
  }),
  row({
    method: 'nftCreator',
    run: (c) => c.nftCreator({ creator_id: 'NCRTR01-AAAAA-BBBBBB' }),
    result: { id: 'NCRTR01-AAAAA-BBBBBB', name: 'Studio Krak' },
    http: 'GET',
    path: '/0/public/NftCreator',
    sent: (req) => assert.equal(req.query.get('creator_id'), 'NCRTR01-AAAAA-BBBBBB'),
    check: (r) => assert.equal(obj(r).name, 'Studio Krak'),
  }),
  row({
    method: 'nftCreators',
    run: (c) => c.nftCreators({ page_size: 1 }),
    result: { items: [{ id: 'NCRTR01-AAAAA-BBBBBB' }], next_cursor: null },
    http: 'GET',
    path: '/0/public/NftCreators',
    check: (r) => assert.equal((r.items as unknown[]).length, 1),
  }),

  // ---- private market and account data
  row({
    method: 'level3',
    run: (c) => c.level3({ pair: 'XBTUSD', depth: 10 }),
    reply: {
      body:
        '{"error":[],"result":{"pair":"XBTUSD",' +
        '"bids":[{"price":"37000.00000","qty":"0.50000000","order_id":"OHQ4PW-KBTSC-IF3GC6","timestamp":1700000000123456789}],' +
        '"asks":[{"price":"37000.10000","qty":"0.10000000","order_id":"O6GHYS-5QYUN-JYOFGJ","timestamp":1700000000987654321}]}}',
    },
    http: 'POST',
    path: '/0/private/Level3',
    sent: (req) => {
      assert.match(String(req.headers['content-type']), /application\/json/);
      const b = bodyOf(req);
      assert.equal(b.pair, 'XBTUSD');
      assert.equal(b.depth, 10);
      assert.equal(typeof b.nonce, 'number');
    },
    check: (r: Level3Result) => {
      assert.equal(r.pair, 'XBTUSD');
      assert.equal(at(r.bids, 0).timestamp, 1700000000123456789n);
      assert.equal(at(r.asks, 0).timestamp, 1700000000987654321n);
      assert.equal(at(r.bids, 0).order_id, 'OHQ4PW-KBTSC-IF3GC6');
      assert.equal(at(r.asks, 0).qty, '0.10000000');
    },
  }),
  row({
    method: 'balance',
    run: (c) => c.balance(),
    result: {
      ZUSD: '171288.6158',
      XXBT: '0.0000010000',
      'XETH.F': '2.5000000000',
      'DOT.S': '0.0000000000',
    },
    http: 'POST',
    path: '/0/private/Balance',
    check: (r) => {
      assert.equal(get(r, 'ZUSD'), '171288.6158');
      assert.equal(get(r, 'XXBT'), '0.0000010000');
      assert.equal(get(r, 'XETH.F'), '2.5000000000');
    },
  }),
  row({
    method: 'balanceEx',
    run: (c) => c.balanceEx(),
    result: {
      ZUSD: { balance: '25435.21', hold_trade: '8249.76' },
      XXBT: {
        balance: '1.2435',
        hold_trade: '0.8423',
        credit: '0.0000',
        credit_used: '0.0000',
      },
    },
    http: 'POST',
    path: '/0/private/BalanceEx',
    check: (r) => {
      assert.equal(get(r, 'ZUSD').hold_trade, '8249.76');
      assert.equal(get(r, 'XXBT').balance, '1.2435');
    },
  }),
  row({
    method: 'creditLines',
    run: (c) => c.creditLines(),
    result: {
      asset_details: {
        ZUSD: {
          balance: '1000.0000',
          hold_trade: '0.0000',
          credit: '5000.0000',
          credit_used: '120.5000',
        },
      },
      limits_monitor: {
        total_credit_usd: '5000.0000',
        total_credit_used_usd: '120.5000',
        total_collateral_value_usd: '10000.0000',
        equity_usd: '9879.5000',
        ongoing_balance: '1000.0000',
        debt_to_equity: '0.0122',
      },
    },
    http: 'POST',
    path: '/0/private/CreditLines',
    check: (r) => {
      assert.equal(get(r.asset_details, 'ZUSD').credit_used, '120.5000');
      assert.equal(r.limits_monitor.debt_to_equity, '0.0122');
    },
  }),
  row({
    method: 'tradeBalance',
    run: (c) => c.tradeBalance({ asset: 'ZUSD' }),
    result: {
      eb: '1101.3425',
      tb: '392.2264',
      m: '7.0354',
      n: '-10.0232',
      c: '21.1063',
      v: '31.1297',
      e: '382.2032',
      mf: '375.1678',
      ml: '5432.57',
      uv: '0',
    },
    http: 'POST',
    path: '/0/private/TradeBalance',
    sent: (req) => assert.equal(bodyOf(req).asset, 'ZUSD'),
    check: (r) => {
      assert.equal(r.eb, '1101.3425');
      assert.equal(r.n, '-10.0232');
      assert.equal(r.uv, '0');
    },
  }),
  row({
    method: 'openOrders',
    run: (c) => c.openOrders({ trades: true }),
    result: { open: { 'OQCLML-BW3P3-BUCMWZ': orderRecord() } },
    http: 'POST',
    path: '/0/private/OpenOrders',
    sent: (req) => assert.equal(bodyOf(req).trades, 'true'),
    check: (r) => {
      const o = get(r.open, 'OQCLML-BW3P3-BUCMWZ');
      assert.equal(o.status, 'open');
      assert.equal(o.vol, '1.25000000');
      assert.equal(o.descr.ordertype, 'limit');
      assert.equal(o.opentm, 1700000000.1234);
      assert.deepEqual(o.trades, ['TCCCTY-WE2O6-P3NB37']);
    },
  }),
  row({
    method: 'closedOrders',
    run: (c) => c.closedOrders({ start: 1699990000 }),
    result: {
      closed: {
        'O37652-RJWRT-IMO74O': orderRecord({
          status: 'canceled',
          reason: 'User requested',
          closetm: 1700000100.5678,
          vol_exec: '0.00000000',
          cost: '0.00000',
          fee: '0.00000',
          trades: undefined,
        }),
      },
      count: 1,
    },
    http: 'POST',
    path: '/0/private/ClosedOrders',
    sent: (req) => assert.equal(bodyOf(req).start, '1699990000'),
    check: (r) => {
      assert.equal(r.count, 1);
      const o = get(r.closed, 'O37652-RJWRT-IMO74O');
      assert.equal(o.status, 'canceled');
      assert.equal(o.reason, 'User requested');
      assert.equal(o.closetm, 1700000100.5678);
    },
  }),
  row({
    method: 'queryOrders',
    run: (c) => c.queryOrders({ txid: ['OQCLML-BW3P3-BUCMWZ', 'OB5VMB-B4U2U-DK2WRW'] }),
    result: {
      'OQCLML-BW3P3-BUCMWZ': orderRecord(),
      'OB5VMB-B4U2U-DK2WRW': orderRecord({
        status: 'closed',
        closetm: 1700000050.1,
        vol_exec: '1.25000000',
        trigger: 'index',
      }),
    },
    http: 'POST',
    path: '/0/private/QueryOrders',
    sent: (req) => assert.equal(bodyOf(req).txid, 'OQCLML-BW3P3-BUCMWZ,OB5VMB-B4U2U-DK2WRW'),
    check: (r) => {
      assert.equal(get(r, 'OB5VMB-B4U2U-DK2WRW').trigger, 'index');
      assert.equal(get(r, 'OQCLML-BW3P3-BUCMWZ').userref, 42);
    },
  }),
  row({
    method: 'tradeVolume',
    run: (c) => c.tradeVolume({ pair: 'XXBTZUSD' }),
    result: {
      currency: 'ZUSD',
      volume: '200709587.4223',
      fees: {
        XXBTZUSD: {
          fee: '0.1000',
          minfee: '0.1000',
          maxfee: '0.2600',
          nextfee: null,
          nextvolume: null,
          tiervolume: '10000000.0000',
        },
      },
      fees_maker: {
        XXBTZUSD: {
          fee: '0.0000',
          minfee: '0.0000',
          maxfee: '0.1600',
          nextfee: null,
          nextvolume: null,
          tiervolume: '10000000.0000',
        },
      },
    },
    http: 'POST',
    path: '/0/private/TradeVolume',
    check: (r) => {
      assert.equal(r.currency, 'ZUSD');
      assert.equal(r.volume, '200709587.4223');
      assert.equal(get(r.fees, 'XXBTZUSD').fee, '0.1000');
      assert.equal(get(r.fees_maker, 'XXBTZUSD').maxfee, '0.1600');
    },
  }),
  row({
    method: 'tradesHistory',
    run: (c) => c.tradesHistory({ type: 'all', trades: false }),
    result: { trades: { 'THVRQM-33VKH-UCI7BS': tradeRecord() }, count: 1 },
    http: 'POST',
    path: '/0/private/TradesHistory',
    sent: (req) => assert.equal(bodyOf(req).type, 'all'),
    check: (r) => {
      assert.equal(r.count, 1);
      assert.equal(obj(obj(r.trades)['THVRQM-33VKH-UCI7BS']).price, '30010.00000');
    },
  }),
  row({
    method: 'queryTrades',
    run: (c) => c.queryTrades({ txid: 'THVRQM-33VKH-UCI7BS' }),
    result: { 'THVRQM-33VKH-UCI7BS': tradeRecord({ maker: false }) },
    http: 'POST',
    path: '/0/private/QueryTrades',
    check: (r) => assert.equal(obj(r['THVRQM-33VKH-UCI7BS']).maker, false),
  }),
  row({
    method: 'ledgers',
    run: (c) => c.ledgers({ asset: 'ZUSD' }),
    result: {
      ledger: {
        'L4UESK-KG3EQ-UFO4T5': {
          refid: 'TJKLXX-PGMUI-4NTLXU',
          time: 1700000000.1234,
          type: 'trade',
          subtype: '',
          aclass: 'currency',
          asset: 'ZUSD',
          amount: '-600.2000',
          fee: '0.9603',
          balance: '170687.4555',
        },
      },
      count: 1,
    },
    http: 'POST',
    path: '/0/private/Ledgers',
    check: (r) => {
      assert.equal(r.count, 1);
      assert.equal(obj(obj(r.ledger)['L4UESK-KG3EQ-UFO4T5']).amount, '-600.2000');
    },
  }),

  // ---- trading
  row({
    method: 'addOrder',
    run: (c) =>
      c.addOrder({
        pair: 'XXBTZUSD',
        type: 'buy',
        ordertype: 'limit',
        price: '27500.0',
        volume: '1.25',
        oflags: 'post',
        close: { ordertype: 'stop-loss-limit', price: '25000', price2: '24900' },
      }),
    result: {
      descr: {
        order: 'buy 1.25000000 XBTUSD @ limit 27500.0',
        close: 'close position @ stop loss 25000.0 -> limit 24900.0',
      },
      txid: ['OU22CG-KLAF2-FWUDD7'],
    },
    http: 'POST',
    path: '/0/private/AddOrder',
    sent: (req) => {
      const b = bodyOf(req);
      assert.equal(b.pair, 'XXBTZUSD');
      assert.equal(b.ordertype, 'limit');
      assert.equal(b.price, '27500.0');
      assert.equal(b['close[ordertype]'], 'stop-loss-limit');
      assert.equal(typeof b.nonce, 'string');
    },
    check: (r) => {
      assert.equal(r.descr.order, 'buy 1.25000000 XBTUSD @ limit 27500.0');
      assert.deepEqual(r.txid, ['OU22CG-KLAF2-FWUDD7']);
    },
  }),
  row({
    method: 'addOrderBatch',
    run: (c) =>
      c.addOrderBatch({
        pair: 'XXBTZUSD',
        orders: [
          { ordertype: 'limit', type: 'buy', volume: '1.2', price: '40000', userref: 123 },
          { ordertype: 'limit', type: 'sell', volume: '1.2', price: '42000' },
        ],
      }),
    result: {
      orders: [
        { descr: { order: 'buy 1.20000000 XBTUSD @ limit 40000.0' }, txid: 'OUF4EM-FRGI2-MQMWZD' },
        { descr: { order: 'sell 1.20000000 XBTUSD @ limit 42000.0' }, txid: 'OUF4EM-FRGI2-MQMWZE' },
      ],
    },
    http: 'POST',
    path: '/0/private/AddOrderBatch',
    sent: (req) => {
      const b = bodyOf(req);
      assert.equal(b.pair, 'XXBTZUSD');
      assert.equal((b.orders as unknown[]).length, 2);
    },
    check: (r) => {
      assert.equal(r.orders.length, 2);
      assert.equal(at(r.orders, 1).txid, 'OUF4EM-FRGI2-MQMWZE');
    },
  }),
  row({
    method: 'editOrder',
    run: (c) =>
      c.editOrder({
        txid: 'OHYO67-6LP66-HMQ437',
        pair: 'XXBTZUSD',
        volume: '1.5',
        price: '27600.0',
      }),
    result: {
      status: 'ok',
      txid: 'OFVXHJ-KPQ3B-VS7ELA',
      originaltxid: 'OHYO67-6LP66-HMQ437',
      volume: '1.50000000',
      price: '27600.0',
      price2: '0.0',
      orders_cancelled: 1,
      descr: { order: 'buy 1.50000000 XBTUSD @ limit 27600.0' },
    },
    http: 'POST',
    path: '/0/private/EditOrder',
    check: (r) => {
      assert.equal(r.txid, 'OFVXHJ-KPQ3B-VS7ELA');
      assert.equal(r.descr?.order, 'buy 1.50000000 XBTUSD @ limit 27600.0');
      assert.equal(obj(r).originaltxid, 'OHYO67-6LP66-HMQ437');
    },
  }),
  row({
    method: 'cancelOrder',
    run: (c) => c.cancelOrder({ txid: 'OYVGEW-VYV5B-UUEXSK' }),
    result: { count: 1 },
    http: 'POST',
    path: '/0/private/CancelOrder',
    sent: (req) => assert.equal(bodyOf(req).txid, 'OYVGEW-VYV5B-UUEXSK'),
    check: (r) => assert.equal(r.count, 1),
  }),
  row({
    method: 'cancelAll',
    run: (c) => c.cancelAll(),
    result: { count: 4 },
    http: 'POST',
    path: '/0/private/CancelAll',
    check: (r) => assert.equal(r.count, 4),
  }),
  row({
    method: 'cancelAllOrdersAfter',
    run: (c) => c.cancelAllOrdersAfter({ timeout: 60 }),
    result: { currentTime: '2023-11-14T22:13:20Z', triggerTime: '2023-11-14T22:14:20Z' },
    http: 'POST',
    path: '/0/private/CancelAllOrdersAfter',
    sent: (req) => assert.equal(bodyOf(req).timeout, '60'),
    check: (r) => {
      assert.equal(r.currentTime, '2023-11-14T22:13:20Z');
      assert.equal(r.triggerTime, '2023-11-14T22:14:20Z');
    },
  }),
  row({
    method: 'cancelOrderBatch',
    run: (c) => c.cancelOrderBatch({ orders: ['OG5V2Y-RYKVL-DT3V3B', 42] }),
    result: { count: 2 },
    http: 'POST',
    path: '/0/private/CancelOrderBatch',
    sent: (req) => assert.deepEqual(bodyOf(req).orders, ['OG5V2Y-RYKVL-DT3V3B', 42]),
    check: (r) => assert.equal(r.count, 2),
  }),

  // ---- data export
  row({
    method: 'addExport',
    run: (c) => c.addExport({ report: 'trades', description: 'my trades', format: 'CSV' }),
    result: { id: 'TCJA' },
    http: 'POST',
    path: '/0/private/AddExport',
    sent: (req) => assert.equal(bodyOf(req).description, 'my trades'),
    check: (r) => assert.equal(r.id, 'TCJA'),
  }),
  row({
    method: 'exportStatus',
    run: (c) => c.exportStatus({ report: 'trades' }),
    result: [
      {
        id: 'VSKC',
        descr: 'my_trades_1',
        format: 'CSV',
        report: 'trades',
        subtype: 'all',
        status: 'Processed',
        flags: '0',
        fields: 'all',
        createdtm: '1688669085',
        expiretm: '1688878685',
        starttm: '1688669093',
        completedtm: '1688669093',
        datastarttm: '1683556800',
        dataendtm: '1688669085',
        aclass: 'forex',
        asset: 'all',
      },
    ],
    http: 'POST',
    path: '/0/private/ExportStatus',
    check: (r) => {
      assert.equal(r.length, 1);
      assert.equal(at(r, 0).status, 'Processed');
      assert.equal(at(r, 0).createdtm, '1688669085');
    },
  }),
  row({
    method: 'retrieveExport',
    run: (c) => c.retrieveExport({ id: 'VSKC' }),
    reply: { headers: { 'content-type': 'application/octet-stream' }, body: ZIP },
    http: 'POST',
    path: '/0/private/RetrieveExport',
    sent: (req) => assert.equal(bodyOf(req).id, 'VSKC'),
    check: (r) => {
      assert.ok(r instanceof Uint8Array);
      assert.equal(r.length, ZIP.length);
      assert.deepEqual([...r], [...ZIP]);
    },
  }),
  row({
    method: 'removeExport',
    run: (c) => c.removeExport({ id: 'VSKC', type: 'delete' }),
    result: { delete: true },
    http: 'POST',
    path: '/0/private/RemoveExport',
    sent: (req) => assert.equal(bodyOf(req).type, 'delete'),
    check: (r) => assert.equal(r.delete, true),
  }),

  // ---- funding, subaccounts, websocket token
  row({
    method: 'depositMethods',
    run: (c) => c.depositMethods({ asset: 'XBT' }),
    result: [
      {
        method: 'Bitcoin',
        limit: false,
        fee: '0.0000000000',
        'gen-address': true,
        minimum: '0.00010000',
      },
      { method: 'Bitcoin Lightning', limit: false, fee: '0.00000000', minimum: '0.00001000' },
    ],
    http: 'POST',
    path: '/0/private/DepositMethods',
    check: (r) => {
      assert.ok(Array.isArray(r));
      assert.equal(obj(r[0]).minimum, '0.00010000');
    },
  }),
  row({
    method: 'depositAddresses',
    run: (c) => c.depositAddresses({ asset: 'XBT', method: 'Bitcoin', new: true }),
    result: [{ address: 'bc1qxdsh4sdd29h6ldehz0se5c61asq8cgwyjf2y3z', expiretm: '0', new: true }],
    http: 'POST',
    path: '/0/private/DepositAddresses',
    sent: (req) => assert.equal(bodyOf(req).new, 'true'),
    check: (r) => {
      assert.ok(Array.isArray(r));
      assert.equal(obj(r[0]).address, 'bc1qxdsh4sdd29h6ldehz0se5c61asq8cgwyjf2y3z');
    },
  }),
  row({
    method: 'depositStatus',
    run: (c) => c.depositStatus({ asset: 'XBT' }),
    result: [
      {
        method: 'Bitcoin',
        aclass: 'currency',
        asset: 'XXBT',
        refid: 'FTQcuak-V6Za8qrWnhzTx67yYHz8Tg',
        txid: '6544b41b607d8b2512baf801755a3a87b6890eacdb451be8a94059fb11f0a8d9',
        info: 'bc1qxdsh4sdd29h6ldehz0se5c61asq8cgwyjf2y3z',
        amount: '0.78125000',
        fee: '0.0000000000',
        time: 1688992722,
        status: 'Success',
      },
    ],
    http: 'POST',
    path: '/0/private/DepositStatus',
    check: (r) => {
      assert.ok(Array.isArray(r));
      assert.equal(obj(r[0]).amount, '0.78125000');
    },
  }),
  row({
    method: 'withdraw',
    run: (c) => c.withdraw({ asset: 'XBT', key: 'btc_2709', amount: '0.725', max_fee: '0.00020' }),
    result: { refid: 'FTQcuak-V6Za8qrWnhzTx67yYHz8Tg' },
    http: 'POST',
    path: '/0/private/Withdraw',
    sent: (req) => {
      assert.equal(bodyOf(req).key, 'btc_2709');
      assert.equal(bodyOf(req).max_fee, '0.00020');
    },
    check: (r) => assert.equal(r.refid, 'FTQcuak-V6Za8qrWnhzTx67yYHz8Tg'),
  }),
  row({
    method: 'withdrawMethods',
    run: (c) => c.withdrawMethods({ asset: 'XBT' }),
    result: [{ asset: 'XXBT', method: 'Bitcoin', network: 'Bitcoin', minimum: '0.0004' }],
    http: 'POST',
    path: '/0/private/WithdrawMethods',
    check: (r) => {
      assert.ok(Array.isArray(r));
      assert.equal(obj(r[0]).minimum, '0.0004');
    },
  }),
  row({
    method: 'withdrawAddresses',
    run: (c) => c.withdrawAddresses({ asset: 'XBT', verified: true }),
    result: [
      {
        address: 'bc1qxdsh4sdd29h6ldehz0se5c61asq8cgwyjf2y3z',
        asset: 'XXBT',
        method: 'Bitcoin',
        key: 'btc_2709',
        verified: true,
      },
    ],
    http: 'POST',
    path: '/0/private/WithdrawAddresses',
    check: (r) => {
      assert.ok(Array.isArray(r));
      assert.equal(obj(r[0]).key, 'btc_2709');
    },
  }),
  row({
    method: 'withdrawStatus',
    run: (c) => c.withdrawStatus({ asset: 'XBT' }),
    result: [
      {
        method: 'Bitcoin',
        aclass: 'currency',
        asset: 'XXBT',
        refid: 'FTQcuak-V6Za8qrWnhzTx67yYHz8Tg',
        txid: null,
        info: 'bc1qxdsh4sdd29h6ldehz0se5c61asq8cgwyjf2y3z',
        amount: '0.72485000',
        fee: '0.00015000',
        time: 1688014586,
        status: 'Pending',
        key: 'btc_2709',
      },
      {
        method: 'Bitcoin',
        aclass: 'currency',
        asset: 'XXBT',
        refid: 'FTQcuak-V6Za8qrPnhsTx47yYLz8Tg',
        txid: null,
        info: 'bc1qxdsh4sdd29h6ldehz0se5c61asq8cgwyjf2y3z',
        amount: '0.72485000',
        fee: '0.00015000',
        time: 1688015423,
        status: 'Failure',
        'status-prop': 'canceled',
        key: 'btc_2709',
      },
    ],
    http: 'POST',
    path: '/0/private/WithdrawStatus',
    check: (r) => {
      assert.ok(Array.isArray(r));
      assert.equal(obj(r[0]).status, 'Pending');
      assert.equal(obj(r[1])['status-prop'], 'canceled');
      assert.equal(obj(r[1]).amount, '0.72485000');
    },
  }),
  row({
    method: 'withdrawCancel',
    run: (c) => c.withdrawCancel({ asset: 'XBT', refid: 'FTQcuak-V6Za8qrWnhzTx67yYHz8Tg' }),
    result: true,
    http: 'POST',
    path: '/0/private/WithdrawCancel',
    check: (r) => assert.equal(r, true),
  }),
  row({
    method: 'walletTransfer',
    run: (c) =>
      c.walletTransfer({ asset: 'XBT', from: 'Spot Wallet', to: 'Futures Wallet', amount: '0.5' }),
    result: { refid: 'BOG5AE5-KSCNR4-VPNPEV' },
    http: 'POST',
    path: '/0/private/WalletTransfer',
    sent: (req) => assert.equal(bodyOf(req).from, 'Spot Wallet'),
    check: (r) => assert.equal(r.refid, 'BOG5AE5-KSCNR4-VPNPEV'),
  }),
  row({
    method: 'createSubaccount',
    run: (c) => c.createSubaccount({ username: 'desk-7', email: 'desk7@example.com' }),
    result: true,
    http: 'POST',
    path: '/0/private/CreateSubaccount',
    sent: (req) => assert.equal(bodyOf(req).email, 'desk7@example.com'),
    check: (r) => assert.equal(r, true),
  }),
  row({
    method: 'accountTransfer',
    run: (c) =>
      c.accountTransfer({
        asset: 'XBT',
        amount: '1.0',
        from: 'ABCD 1234 EFGH 5678',
        to: 'IJKL 0987 MNOP 6543',
      }),
    result: { transfer_id: 'TOH3AS2-LPCWR8-JDQGEU', status: 'complete' },
    http: 'POST',
    path: '/0/private/AccountTransfer',
    check: (r) => {
      assert.equal(r.transfer_id, 'TOH3AS2-LPCWR8-JDQGEU');
      assert.equal(r.status, 'complete');
    },
  }),
  row({
    method: 'getWebSocketsToken',
    run: (c) => c.getWebSocketsToken(),
    result: { token: '1Dwc4lzSwNWOAwkMdqhssNNFhs1ed606d1WcF3XfEMw', expires: 900 },
    http: 'POST',
    path: '/0/private/GetWebSocketsToken',
    check: (r) => {
      assert.equal(r.token, '1Dwc4lzSwNWOAwkMdqhssNNFhs1ed606d1WcF3XfEMw');
      assert.equal(r.expires, 900);
    },
  }),

  // ---- Earn
  row({
    method: 'earnAllocate',
    run: (c) => c.earnAllocate({ amount: '4.3', strategy_id: 'ESRFUO3-Q62XD-WIOIL7' }),
    result: true,
    http: 'POST',
    path: '/0/private/Earn/Allocate',
    sent: (req) => {
      const b = bodyOf(req);
      assert.equal(b.amount, '4.3');
      assert.equal(b.strategy_id, 'ESRFUO3-Q62XD-WIOIL7');
    },
    check: (r) => assert.equal(r, true),
  }),
  row({
    label: 'earnAllocate (null)',
    method: 'earnAllocate',
    run: (c) => c.earnAllocate({ amount: '4.3', strategy_id: 'ESRFUO3-Q62XD-WIOIL7' }),
    result: null,
    http: 'POST',
    path: '/0/private/Earn/Allocate',
    check: (r) => assert.equal(r, null),
  }),
  row({
    method: 'earnDeallocate',
    run: (c) => c.earnDeallocate({ amount: '4.3', strategy_id: 'ESRFUO3-Q62XD-WIOIL7' }),
    result: true,
    http: 'POST',
    path: '/0/private/Earn/Deallocate',
    check: (r) => assert.equal(r, true),
  }),
  row({
    label: 'earnDeallocate (null)',
    method: 'earnDeallocate',
    run: (c) => c.earnDeallocate({ amount: '4.3', strategy_id: 'ESRFUO3-Q62XD-WIOIL7' }),
    result: null,
    http: 'POST',
    path: '/0/private/Earn/Deallocate',
    check: (r) => assert.equal(r, null),
  }),
  row({
    method: 'earnAllocateStatus',
    run: (c) => c.earnAllocateStatus({ strategy_id: 'ESRFUO3-Q62XD-WIOIL7' }),
    result: { pending: true },
    http: 'POST',
    path: '/0/private/Earn/AllocateStatus',
    check: (r) => assert.equal(r.pending, true),
  }),
  row({
    method: 'earnDeallocateStatus',
    run: (c) => c.earnDeallocateStatus({ strategy_id: 'ESRFUO3-Q62XD-WIOIL7' }),
    result: { pending: false },
    http: 'POST',
    path: '/0/private/Earn/DeallocateStatus',
    check: (r) => assert.equal(r.pending, false),
  }),
  row({
    method: 'earnStrategies',
    run: (c) => c.earnStrategies({ asset: 'DOT', lock_type: ['bonded', 'instant'] }),
    result: {
      next_cursor: null,
      items: [
        {
          id: 'ESRFUO3-Q62XD-WIOIL7',
          asset: 'DOT',
          lock_type: {
            type: 'bonded',
            bonding_period: 0,
            bonding_rewards: false,
            unbonding_period: 2419200,
            unbonding_rewards: false,
            exit_queue_period: 0,
          },
          apr_estimate: { low: '8.0000', high: '12.0000' },
          user_min_allocation: '0.01',
          allocation_fee: '0.0000',
          deallocation_fee: '0.0000',
          auto_compound: { type: 'enabled' },
          yield_source: { type: 'staking' },
          can_allocate: false,
          can_deallocate: true,
          allocation_restriction_info: ['Tier'],
        },
      ],
    },
    http: 'POST',
    path: '/0/private/Earn/Strategies',
    sent: (req) => assert.deepEqual(bodyOf(req).lock_type, ['bonded', 'instant']),
    check: (r) => {
      assert.equal(r.next_cursor, null);
      const s = at(r.items, 0);
      assert.equal(s.can_allocate, false);
      assert.deepEqual(s.allocation_restriction_info, ['Tier']);
      assert.equal(obj(s.lock_type).unbonding_rewards, false);
    },
  }),
  row({
    method: 'earnAllocations',
    run: (c) => c.earnAllocations({ converted_asset: 'USD', hide_zero_allocations: true }),
    result: {
      converted_asset: 'USD',
      total_allocated: '49.2398',
      total_rewarded: '0.0675',
      next_cursor: null,
      items: [
        {
          strategy_id: 'ESDQCOL-WTZEU-NU55QF',
          native_asset: 'ETH',
          amount_allocated: {
            bonding: { native: '0.0210000000', converted: '39.0645', allocation_count: 2 },
            total: { native: '0.0210000000', converted: '39.0645' },
          },
          total_rewarded: { native: '0', converted: '0.0000' },
          pending: { native: '-0.0010000000', converted: '-1.8602' },
        },
      ],
    },
    http: 'POST',
    path: '/0/private/Earn/Allocations',
    check: (r) => {
      assert.equal(r.total_allocated, '49.2398');
      const item = obj(at(r.items, 0));
      assert.equal(obj(obj(item.amount_allocated).total).native, '0.0210000000');
      assert.equal(obj(item.pending).native, '-0.0010000000');
    },
  }),

  // ---- NFT trading
  row({
    method: 'nftCreateAuction',
    run: (c) =>
      c.nftCreateAuction({
        auction_currency: 'ETH',
        auction_params: { allow_offers: true, ask_price: '0.5' },
        auction_type: 'fixed',
        nft_id: ['NT4EFBO-OWGI5-QLO7AG'],
      }),
    result: { auction_id: 'AT2POJ-4CH3O-4TH6JH' },
    http: 'POST',
    path: '/0/private/NftCreateAuction',
    sent: (req) =>
      assert.deepEqual(bodyOf(req).auction_params, { allow_offers: true, ask_price: '0.5' }),
    check: (r) => assert.equal(r.auction_id, 'AT2POJ-4CH3O-4TH6JH'),
  }),
  row({
    method: 'nftModifyAuction',
    run: (c) => c.nftModifyAuction({ auction_id: 'AT2POJ-4CH3O-4TH6JH', ask_price: '0.45' }),
    result: { auction_id: 'AT2POJ-4CH3O-4TH6JH' },
    http: 'POST',
    path: '/0/private/NftModifyAuction',
    check: (r) => assert.equal(r.auction_id, 'AT2POJ-4CH3O-4TH6JH'),
  }),
  row({
    method: 'nftCancelAuction',
    run: (c) => c.nftCancelAuction({ auction_ids: ['AT2POJ-4CH3O-4TH6JH'] }),
    result: { statuses: [{ id: 'AT2POJ-4CH3O-4TH6JH', status: 'cancelled' }] },
    http: 'POST',
    path: '/0/private/NftCancelAuction',
    check: (r) =>
      assert.deepEqual(r.statuses, [{ id: 'AT2POJ-4CH3O-4TH6JH', status: 'cancelled' }]),
  }),
  row({
    method: 'nftPlaceOffer',
    run: (c) =>
      c.nftPlaceOffer({
        nft_id: ['NT4EFBO-OWGI5-QLO7AG'],
        offer_amount: '0.4',
        offer_currency: 'ETH',
        expire_time: 1700086400,
      }),
    result: { offer_id: 'OF6EAQ-3NB2W-KCNR5Y' },
    http: 'POST',
    path: '/0/private/NftPlaceOffer',
    check: (r) => assert.equal(obj(r).offer_id, 'OF6EAQ-3NB2W-KCNR5Y'),
  }),

  // ---- second document
  row({
    method: 'getOtcSpotTradeHistory',
    run: (c) =>
      c.getOtcSpotTradeHistory({ start_date: 1699900000, end_date: 1700000000, limit: 100 }),
    result: [
      {
        txid: 'TXOTC1-AAAAA-BBBBBB',
        order_date: 1699990000123,
        base_asset: 'XBT',
        quote_asset: 'USD',
        direction: 'buy',
        amount: '10.00000000',
        price: '36990.00',
        total: '369900.00',
        amount_usd: '369900.00',
        base_settle_method: 'internal_transfer',
        quote_settle_method: 'internal_transfer',
      },
    ],
    http: 'POST',
    path: '/0/private/GetOtcSpotTradeHistory',
    sent: (req) => {
      const b = bodyOf(req);
      assert.equal(b.start_date, 1699900000);
      assert.equal(b.end_date, 1700000000);
    },
    check: (r) => {
      const t = at(r, 0);
      assert.equal(t.order_date, 1699990000123);
      assert.equal(t.amount, '10.00000000');
      assert.equal(t.base_settle_method, 'internal_transfer');
    },
  }),
  row({
    method: 'payTransferCreate',
    run: (c) =>
      c.payTransferCreate({
        amount: '25.00',
        asset: 'USD',
        to: 'alice',
        external_id: 'q83vEjKBSm6Wc5fSkpYjXw',
        note: 'lunch',
      }),
    result: { transfer_id: 'PT4ABC-DEFGH-IJKLMN', status: 'pending' },
    http: 'POST',
    path: '/0/private/Pay/transfer/create',
    sent: (req) => {
      const b = bodyOf(req);
      assert.equal(typeof b.nonce, 'string');
      assert.equal(b.external_id, 'q83vEjKBSm6Wc5fSkpYjXw');
    },
    check: (r) => assert.equal(r.transfer_id, 'PT4ABC-DEFGH-IJKLMN'),
  }),
  row({
    method: 'withdrawInfo',
    run: (c) => c.withdrawInfo({ asset: 'XBT', key: 'btc_2709', amount: '0.725' }),
    result: { method: 'Bitcoin', limit: '332.00956139', amount: '0.72485000', fee: '0.00015000' },
    http: 'POST',
    path: '/0/private/WithdrawInfo',
    check: (r) => {
      assert.equal(r.method, 'Bitcoin');
      assert.equal(r.limit, '332.00956139');
      assert.equal(r.fee, '0.00015000');
    },
  }),
  row({
    method: 'futuresCheckApiKey',
    run: (c) => c.futuresCheckApiKey(),
    reply: json({
      apiKey: 'k',
      accountUid: 'f7d5571c-6d10-4cf1-944a-048d25682ed0',
      iiban: 'AA12 ABCD 1234 EFGH',
      createdAt: '2023-11-01T12:00:00.000Z',
      permissions: { general: 'NO_ACCESS', transfer: 'NO_ACCESS' },
      allowedCidrBlock: '203.0.113.0/24',
      allowedCidrBlocks: ['203.0.113.0/24', '198.51.100.7/32'],
    }),
    http: 'GET',
    path: '/api/auth/v1/api-keys/v3/check',
    sent: (req) => {
      assert.equal(req.headers.apikey, 'k');
      assert.ok(req.headers.authent);
    },
    check: (r) => {
      assert.equal(r.accountUid, 'f7d5571c-6d10-4cf1-944a-048d25682ed0');
      assert.match(String(r.iiban), /^AA[A-Z0-9]{2} [A-Z0-9]{4} [A-Z0-9]{4} [A-Z0-9]{4}$/);
      assert.equal(r.permissions?.general, 'NO_ACCESS');
      assert.deepEqual(r.allowedCidrBlocks, ['203.0.113.0/24', '198.51.100.7/32']);
    },
  }),
  row({
    method: 'futuresAcceptRfqOffer',
    run: (c) => c.futuresAcceptRfqOffer({ rfqUid: RFQ, bidAccepted: '36950.5' }),
    reply: json({ result: 'success', serverTime: '2023-11-14T22:13:20.123Z', rfqUid: RFQ }),
    http: 'POST',
    path: `/derivatives/api/v3/rfqs/open-rfqs/accept-offer/${RFQ}`,
    sent: (req) => {
      assert.equal(req.query.get('bidAccepted'), '36950.5');
      assert.equal(req.query.get('rfqUid'), null);
      assert.equal(req.body, '');
      assert.equal(req.headers.apikey, 'k');
    },
    check: (r) => {
      assert.equal(r.result, 'success');
      assert.equal(r.rfqUid, RFQ);
      assert.equal(r.serverTime, '2023-11-14T22:13:20.123Z');
    },
  }),
  row({
    method: 'futuresFills',
    run: (c) => c.futuresFills({ lastFillTime: '2023-11-14T22:00:00.000Z' }),
    reply: json({
      result: 'success',
      fills: [
        {
          fill_id: '3d57ed09-fbd6-44f1-8e8b-b10e551c5e73',
          symbol: 'PI_XBTUSD',
          side: 'buy',
          order_id: '693af756-055e-47ef-99d5-bcf4c456ebc5',
          size: 5490,
          price: 36950.5,
          fillTime: '2023-11-14T21:59:58.000Z',
          fillType: 'maker',
        },
        {
          fill_id: '56b86ada-73b0-454d-a95a-e29e3e85b349',
          symbol: 'PF_ETHUSD',
          side: 'sell',
          order_id: '3f513c4c-683d-44ab-a73b-d296abbea201',
          size: 0.1,
          price: 2003.2,
          fillTime: '2023-11-14T21:58:10.000Z',
          fillType: 'taker',
        },
      ],
      serverTime: '2023-11-14T22:13:20.123Z',
    }),
    http: 'GET',
    path: '/derivatives/api/v3/fills',
    sent: (req) => assert.equal(req.query.get('lastFillTime'), '2023-11-14T22:00:00.000Z'),
    check: (r) => {
      assert.equal(r.result, 'success');
      assert.equal(r.fills.length, 2);
      assert.equal(at(r.fills, 0).size, 5490);
      assert.equal(at(r.fills, 1).fillType, 'taker');
    },
  }),
  row({
    method: 'custodyWithdrawalMethods',
    run: (c) =>
      c.custodyWithdrawalMethods({ vault_id: VAULT, asset: 'XBT', asset_class: 'currency' }),
    reply: json([
      {
        name: 'Bitcoin',
        method_id: 'c8e2a9e0-1b2f-4a5d-9c3e-7f6a5b4c3d2e',
        fee_amount: '0.00015000',
        fee_asset: 'XBT',
        fee_asset_class: 'currency',
        minimum: '0.00050000',
        is_disabled: false,
        asset: 'XBT',
        asset_class: 'currency',
        network_info: { network: 'Bitcoin', explorer: 'https://blockstream.info/tx/{tx_id}' },
      },
    ]),
    http: 'GET',
    path: `/v0/insto/custody/vaults/${VAULT}/withdrawal-methods`,
    sent: (req) => {
      assert.equal(req.query.get('asset'), 'XBT');
      assert.equal(req.query.get('asset_class'), 'currency');
      assert.equal(req.query.get('vault_id'), null);
      assert.equal(req.headers['api-key'], 'k');
      assert.ok(req.headers['api-nonce']);
      assert.ok(req.headers['api-sign']);
    },
    check: (r) => {
      const m = at(r, 0);
      assert.equal(m.fee_amount, '0.00015000');
      assert.equal(m.is_disabled, false);
      assert.equal(m.network_info?.explorer, 'https://blockstream.info/tx/{tx_id}');
    },
  }),
];

// ---- the tests ---------------------------------------------------------------------------------

describe('endpoint fixtures: every client method against a canned exchange answer', () => {
  let server: FixtureServer;
  let client: SpotClient;

  before(async () => {
    server = await FixtureServer.start();
    client = fixtureClient(server);
  });
  after(async () => {
    await client.close();
    await server.close();
  });
  beforeEach(() => server.clearRequests());

  for (const r of ROWS) {
    it(`${r.label}: ${r.http} ${r.path}`, async () => {
      const traceId = `trace-${r.label.replace(/[^A-Za-z0-9]+/g, '-')}`;
      server.reply({ ...r.reply, traceId });
      const response = await r.run(client);
      assert.equal(server.requests.length, 1, 'exactly one HTTP request');
      const req = server.last();
      assert.equal(req.method, r.http);
      assert.equal(req.path, r.path);
      if (r.path.startsWith('/0/private/')) {
        assert.equal(req.headers['api-key'], 'k', 'spot private calls carry API-Key');
        assert.ok(req.headers['api-sign'], 'spot private calls carry API-Sign');
        assert.match(req.body, /nonce/, 'private bodies carry a nonce');
      }
      if (r.path.startsWith('/0/public/')) assert.equal(req.body, '');
      assert.ok(req.headers['user-agent'], 'every request carries a User-Agent');
      r.sent?.(req);
      assert.equal(response.traceId, traceId, 'traceId is the server x-trace-id');
      assert.deepEqual(response.warnings, []);
      r.check(response.result, response);
    });
  }

  it('covers every public method of SpotClient', () => {
    const covered = new Set<string>(ROWS.map((r) => r.method));
    const own = Object.getOwnPropertyNames(client).filter(
      (k) =>
        typeof (client as unknown as Record<string, unknown>)[k] === 'function' &&
        !['call', 'close', 'resetKeyGuard'].includes(k),
    );
    assert.ok(own.length >= 70, `expected the full catalogue, found ${own.length} methods`);
    const missing = own.filter((k) => !covered.has(k));
    assert.deepEqual(missing, [], `client methods without a fixture: ${missing.join(', ')}`);
    const unknown = [...covered].filter((k) => !own.includes(k));
    assert.deepEqual(unknown, [], `table rows naming no client method: ${unknown.join(', ')}`);
  });

  it('retrieveExport: a JSON error envelope instead of the archive throws the typed error', async () => {
    server.reply({
      headers: { 'content-type': 'application/json' },
      body: errorEnvelope('EGeneral:Invalid arguments'),
      traceId: 'trace-export-error',
    });
    await assert.rejects(client.retrieveExport({ id: 'NOPE' }), (err: unknown) => {
      assert.ok(err instanceof InvalidArgumentsError, `got ${String(err)}`);
      assert.equal(err.traceId, 'trace-export-error');
      assert.equal(err.raw, 'EGeneral:Invalid arguments');
      assert.equal(err.endpoint, 'RetrieveExport');
      return true;
    });
    assert.equal(server.last().path, '/0/private/RetrieveExport');
  });

  it('retrieveExport: JSON with a charset parameter is still read as the envelope', async () => {
    server.reply({
      headers: { 'content-type': 'application/json; charset=utf-8' },
      body: errorEnvelope('EGeneral:Permission denied'),
      traceId: 'trace-export-perm',
    });
    await assert.rejects(client.retrieveExport({ id: 'VSKC' }), (err: unknown) => {
      assert.ok(err instanceof Error && 'code' in err);
      assert.equal(err.code, 'GENERAL_PERMISSION_DENIED');
      return true;
    });
  });
});
