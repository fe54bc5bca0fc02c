import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { encodeUserref } from '../../src/core/index.js';
import { buildSnapshot, decideMode, mergeTrades, type TradeRow } from '../../src/market/index.js';
import { depth, ETHUSD, fresh, input, NOW, order } from './fixtures.js';

const text = (d: { toFixed(): string } | undefined): string | undefined => d?.toFixed();

describe('snapshot builder: prices', () => {
  const cases: {
    name: string;
    bids: [string, string][];
    asks: [string, string][];
    mid: string | undefined;
    spread: string | undefined;
    micro: string | undefined;
  }[] = [
    {
      name: 'microprice leans towards the thinner side',
      bids: [
        ['100.1', '1'],
        ['100.0', '5'],
      ],
      asks: [['100.3', '3']],
      mid: '100.2',
      spread: '0.2',
      micro: '100.15',
    },
    {
      name: 'equal sizes put the microprice at the mid',
      bids: [['0.00000001', '0.5']],
      asks: [['0.00000003', '0.5']],
      mid: '0.00000002',
      spread: '0.00000002',
      micro: '0.00000002',
    },
    {
      name: 'digits beyond a double survive',
      bids: [['123456789012345.12345678', '1']],
      asks: [['123456789012345.12345682', '1']],
      mid: '123456789012345.1234568',
      spread: '0.00000004',
      micro: '123456789012345.1234568',
    },
    {
      name: 'a one-sided book has no mid',
      bids: [['100.1', '1']],
      asks: [],
      mid: undefined,
      spread: undefined,
      micro: undefined,
    },
    {
      name: 'zero sizes give no microprice but a mid',
      bids: [['99', '0']],
      asks: [['101', '0']],
      mid: '100',
      spread: '2',
      micro: undefined,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const snap = buildSnapshot(input({ depth: depth(c.bids, c.asks) }));
      assert.equal(text(snap.mid), c.mid);
      assert.equal(text(snap.spread), c.spread);
      assert.equal(text(snap.microprice), c.micro);
      assert.equal(text(snap.bestBid), c.bids[0]?.[0]);
      assert.equal(text(snap.bestAsk), c.asks[0]?.[0]);
      assert.equal(snap.book.bids.length, c.bids.length);
    });
  }
});

describe('snapshot builder: own orders, Level3, trades, inventory', () => {
  const mine = encodeUserref(5, { side: 'sell', level: 2 }, 7);
  const otherInstance = encodeUserref(6, { side: 'buy', level: 0 }, 1);
  const open = {
    'OMINE-1': order({
      side: 'sell',
      price: '101.5',
      userref: mine,
      oflags: 'fciq,post',
      opentm: 1_700_000_001.25,
    }),
    'OTHER-1': order({ side: 'buy', price: '99.5', userref: otherInstance, opentm: 1_700_000_002 }),
    'MANUAL-1': order({ side: 'buy', price: '99.0', userref: null, opentm: 1_700_000_003 }),
    'BYID-1': order({ pair: 'XXBTZUSD', userref: 0, opentm: 1_700_000_004 }),
    'ETH-1': order({ pair: 'ETHUSD', userref: mine }),
  };

  it('lists the key orders of this pair, decoding slots of this instance only', () => {
    const snap = buildSnapshot(input({ openOrders: open }));
    assert.deepEqual(
      snap.openOrders.map((o) => o.txid),
      ['OMINE-1', 'OTHER-1', 'MANUAL-1', 'BYID-1'],
    );
    const [m, other, manual] = snap.openOrders;
    assert.deepEqual(m?.slot, { side: 'sell', level: 2 });
    assert.equal(m?.generation, 7);
    assert.equal(m?.postOnly, true);
    assert.equal(m?.side, 'sell');
    assert.equal(m?.price.toFixed(), '101.5');
    assert.equal(m?.openedAtMs, 1_700_000_001_250);
    assert.equal(other?.userref, otherInstance);
    assert.equal(other?.slot, undefined);
    assert.equal(other?.generation, undefined);
    assert.equal(manual?.slot, undefined);
    assert.equal(manual?.postOnly, false);
    const eth = buildSnapshot(input({ pair: ETHUSD, openOrders: open }));
    assert.deepEqual(
      eth.openOrders.map((o) => o.txid),
      ['ETH-1'],
    );
  });

  it('takes our orders whose price level Depth no longer shows as gone from the book', () => {
    const mine = (side: 'buy' | 'sell', level: number, price: string) =>
      order({ side, price, userref: encodeUserref(5, { side, level }, 1) });
    const listed = {
      'BID-GONE': mine('buy', 0, '99.5'),
      'BID-SMALLER': mine('buy', 1, '99.0'),
      'BID-DEEP': mine('buy', 2, '97.0'),
      'ASK-GONE': mine('sell', 0, '100.5'),
      FOREIGN: order({
        side: 'buy',
        price: '99.4',
        userref: encodeUserref(9, { side: 'buy', level: 0 }, 1),
      }),
    };
    // Level 99.0 is there (maybe less than ours: partly filled, still open); 99.5 and 100.5 are
    // not, within the range shown; 97.0 is below the deepest bid shown.
    const book = depth(
      [
        ['99.8', '1'],
        ['99.0', '0.001'],
        ['98.0', '1'],
      ],
      [
        ['100.2', '1'],
        ['100.9', '1'],
      ],
    );
    const at = (ordersReceivedAtMs: number, bookAsOfMs: number) =>
      buildSnapshot(
        input({ openOrders: listed, depth: book, ordersReceivedAtMs, bookAsOfMs, ordersAsOfMs: 1 }),
      );

    const snap = at(NOW - 500, NOW - 100);
    assert.deepEqual(snap.vanishedOrders.map((o) => o.txid).sort(), ['ASK-GONE', 'BID-GONE']);
    assert.deepEqual(snap.openOrders.map((o) => o.txid).sort(), [
      'BID-DEEP',
      'BID-SMALLER',
      'FOREIGN',
    ]);
    assert.equal(snap.bookAsOfMs, NOW - 100);
    // A Depth asked for before OpenOrders answered may predate our orders: it proves nothing.
    const older = at(NOW - 100, NOW - 500);
    assert.deepEqual(older.vanishedOrders, []);
    assert.equal(older.openOrders.length, 5);
  });

  it('marks our orders in Level3 and keeps nanosecond timestamps exact', () => {
    const ts = 1_700_000_000_123_456_789n; // > 2^53
    const snap = buildSnapshot(
      input({
        openOrders: open,
        level3: {
          pair: 'XBTUSD',
          bids: [{ price: '99.5', qty: '1', order_id: 'OTHER-1', timestamp: ts }],
          asks: [
            { price: '101.5', qty: '1', order_id: 'OMINE-1', timestamp: ts + 1n },
            { price: '101.5', qty: '2', order_id: 'SOMEONE', timestamp: ts + 2n },
          ],
        },
      }),
    );
    assert.equal(snap.level3?.bids[0]?.own, true);
    assert.deepEqual(
      snap.level3?.asks.map((o) => o.own),
      [true, false],
    );
    assert.equal(snap.level3?.asks[1]?.timestampNs, 1_700_000_000_123_456_791n);
    assert.equal(snap.level3?.asks[1]?.timestampNs.toString(), '1700000000123456791');
  });

  it('keeps the newest trades, mapped', () => {
    const rows: TradeRow[] = [1, 2, 3, 4].map((i) => [
      `100.${i}`,
      '0.5',
      1_700_000_000 + i + 0.123,
      i % 2 === 0 ? 's' : 'b',
      i === 4 ? 'm' : 'l',
      '',
      i,
    ]);
    const snap = buildSnapshot(input({ trades: rows, tradesKept: 3 }));
    assert.deepEqual(
      snap.trades.map((t) => [t.tradeId, t.side, t.orderType, t.price.toFixed(), t.timeMs]),
      [
        [2, 'sell', 'limit', '100.2', 1_700_000_002_123],
        [3, 'buy', 'limit', '100.3', 1_700_000_003_123],
        [4, 'sell', 'market', '100.4', 1_700_000_004_123],
      ],
    );
  });

  it('parses a trade kept across answers once', () => {
    const row = (i: number): TradeRow => [`100.${i}`, '0.5', 1_700_000_000 + i, 'b', 'l', '', i];
    const first = [row(1), row(2)];
    const merged = mergeTrades(first, [row(2), row(3)], 3);
    const before = buildSnapshot(input({ trades: first, tradesKept: 3 }));
    const after = buildSnapshot(input({ trades: merged, tradesKept: 3 }));
    assert.deepEqual(
      after.trades.map((t) => t.tradeId),
      [1, 2, 3],
    );
    assert.equal(after.trades[1], before.trades[1], 'the same trade object');
  });

  it('values inventory at the mid with holds and credit taken off available', () => {
    const snap = buildSnapshot(
      input({
        depth: depth([['249.9', '1']], [['250.1', '1']]),
        balances: {
          XXBT: { balance: '2.0000000000', hold_trade: '0.5' },
          ZUSD: { balance: '1500.0000', hold_trade: '100', credit: '50', credit_used: '20' },
        },
      }),
    );
    const inv = snap.inventory;
    assert.equal(inv.base.total.toFixed(), '2');
    assert.equal(inv.base.available.toFixed(), '1.5');
    assert.equal(inv.quote.available.toFixed(), '1430');
    assert.equal(inv.valueInQuote?.toFixed(), '2000');
    assert.equal(inv.baseShare?.toFixed(), '0.25');
    const noMid = buildSnapshot(input({ balances: {} }));
    assert.equal(noMid.inventory.base.total.toFixed(), '0');
    assert.equal(noMid.inventory.valueInQuote, undefined);
  });
});

describe('snapshot builder: staleness and immutability', () => {
  it('flags old, failed, missing sources; disabled ones never', () => {
    const snap = buildSnapshot(
      input({
        sources: {
          depth: fresh(NOW - 3000, 3000),
          groupedBook: { enabled: false, receivedAtMs: NOW, lastError: undefined, staleAfterMs: 1 },
          level3: fresh(NOW - 3001, 3000),
          trades: { ...fresh(NOW - 10), lastError: 'EService:Throttled: 1700000200' },
          openOrders: fresh(NOW - 100),
          balance: { ...fresh(0), receivedAtMs: undefined },
        },
      }),
    );
    assert.equal(snap.sources.depth.stale, false);
    assert.equal(snap.sources.depth.ageMs, 3000);
    assert.deepEqual(snap.sources.groupedBook, {
      receivedAtMs: undefined,
      ageMs: Infinity,
      stale: false,
      staleAfterMs: Infinity,
      lastError: undefined,
    });
    assert.equal(snap.sources.level3.stale, true);
    assert.equal(snap.sources.trades.stale, true);
    assert.equal(snap.sources.trades.lastError, 'EService:Throttled: 1700000200');
    assert.equal(snap.sources.balance.ageMs, Infinity);
    assert.equal(snap.stale, true);
    assert.deepEqual(snap.staleSources, ['level3', 'trades', 'balance']);
    assert.equal(buildSnapshot(input()).stale, false);
  });

  it('is frozen all the way down', () => {
    const snap = buildSnapshot(
      input({
        depth: depth([['100', '1']], [['101', '1']]),
        openOrders: { A: order({}) },
        trades: [['100', '1', 1_700_000_000, 'b', 'l', '', 1]],
      }),
    );
    const attempts: [string, () => void][] = [
      ['top level', () => Object.assign(snap, { mode: 'halted' })],
      ['book array', () => (snap.book.bids as unknown[]).push({})],
      ['level', () => Object.assign(snap.venueBook.bids[0] ?? {}, { price: 1 })],
      ['market level', () => Object.assign(snap.book.asks[0] ?? {}, { price: 1 })],
      ['fees', () => Object.assign(snap.fees, { makerBps: 0 })],
      ['own order', () => Object.assign(snap.openOrders[0] ?? {}, { txid: 'X' })],
      ['slot list', () => (snap.staleSources as unknown[]).push('depth')],
      ['source status', () => Object.assign(snap.sources.depth, { stale: true })],
      ['inventory', () => Object.assign(snap.inventory.base, { total: 0 })],
      ['trades', () => (snap.trades as unknown[]).pop()],
      ['pair', () => Object.assign(snap.pair, { id: 'X' })],
    ];
    for (const [what, mutate] of attempts) assert.throws(mutate, TypeError, what);
  });

  it('parses an answer once for every snapshot built from it, and a repeated level once', () => {
    const book = depth(
      [
        ['100', '1'],
        ['99', '2'],
      ],
      [['101', '1']],
    );
    const trades: TradeRow[] = [['100', '1', 1_700_000_000, 'b', 'l', '', 1]];
    const first = buildSnapshot(input({ depth: book, trades }));
    const second = buildSnapshot(input({ depth: book, trades, seq: 2 }));
    assert.notEqual(first, second);
    assert.equal(second.book, first.book, 'the same answer: the same parsed book');
    assert.equal(second.trades, first.trades);
    // The next answer moved the best bid only: the levels it repeats are not parsed again.
    const next = depth(
      [
        ['100.5', '1'],
        ['99', '2'],
      ],
      [['101', '1']],
    );
    const third = buildSnapshot(input({ depth: next, seq: 3 }));
    assert.notEqual(third.book, first.book);
    assert.equal(third.book.bids[0]?.price.toFixed(), '100.5');
    assert.equal(third.book.bids[1], first.book.bids[1]);
    assert.equal(third.book.asks[0], first.book.asks[0]);
    assert.ok(Object.isFrozen(third.book.bids[1]));
  });

  it('parses an OpenOrders, BalanceEx or Level3 answer once for the ticks that reuse it', () => {
    const mine = encodeUserref(5, { side: 'buy', level: 0 }, 1);
    const open = {
      'O-BTC': order({ side: 'buy', price: '100', userref: mine }),
      'O-ETH': order({ pair: 'ETHUSD', side: 'buy', price: '10', userref: mine }),
    };
    const balances = {
      XXBT: { balance: '1', hold_trade: '0' },
      ZUSD: { balance: '5', hold_trade: '1' },
    };
    const level3 = {
      pair: 'XBTUSD',
      bids: [{ price: '100', qty: '1', order_id: 'O-BTC', timestamp: 1n }],
      asks: [],
    };
    const book = depth([['100', '1']], [['101', '1']]);
    const at = (seq: number, pair = input().pair) =>
      buildSnapshot(input({ pair, seq, depth: book, openOrders: open, balances, level3 }));
    const [first, second] = [at(1), at(2)];
    assert.equal(second.openOrders, first.openOrders, 'one parsed order list');
    assert.equal(second.inventory.base, first.inventory.base, 'one parsed balance');
    assert.equal(second.level3, first.level3, 'one Level3 view');
    assert.equal(first.level3?.bids[0]?.own, true);
    assert.ok(Object.isFrozen(first.openOrders) && Object.isFrozen(first.openOrders[0]));
    // Another pair from the same answer has its own list, and an answer that changed is read.
    assert.deepEqual(
      at(3, ETHUSD).openOrders.map((o) => o.txid),
      ['O-ETH'],
    );
    const moved = { ...open, 'O-BTC': order({ side: 'buy', price: '99', userref: mine }) };
    const after = buildSnapshot(
      input({ seq: 4, depth: book, openOrders: moved, balances, level3 }),
    );
    assert.equal(after.openOrders[0]?.price.toFixed(), '99');
    assert.equal(first.openOrders[0]?.price.toFixed(), '100');
  });
});

describe('trading mode', () => {
  const status = (s: 'online' | 'maintenance' | 'cancel_only' | 'post_only', title?: string) => ({
    status: s,
    timestamp: '2026-03-01T12:00:00Z',
    ...(title === undefined
      ? {}
      : { emergency: [{ event_id: 1, title, incident_status: 'identified' }] }),
  });
  const cases: [string, Parameters<typeof decideMode>[0], string, string | undefined][] = [
    [
      'halt wins',
      {
        halt: { halted: true, reason: 'risk limit' },
        statusEnabled: true,
        status: status('cancel_only'),
      },
      'halted',
      'risk limit',
    ],
    [
      'unknown status is maintenance',
      { halt: { halted: false }, statusEnabled: true, status: undefined },
      'maintenance',
      'system status not yet known',
    ],
    [
      'disabled status is online',
      { halt: undefined, statusEnabled: false, status: undefined },
      'online',
      undefined,
    ],
    [
      'exchange mode with incident title',
      {
        halt: undefined,
        statusEnabled: true,
        status: status('cancel_only', 'Matching engine incident'),
      },
      'cancel_only',
      'Matching engine incident',
    ],
    [
      'exchange mode without events',
      { halt: undefined, statusEnabled: true, status: status('post_only') },
      'post_only',
      'post_only',
    ],
    [
      'online has no reason',
      { halt: undefined, statusEnabled: true, status: status('online', 'Websocket incident') },
      'online',
      undefined,
    ],
  ];
  for (const [name, given, mode, reason] of cases) {
    it(name, () => {
      assert.deepEqual(decideMode(given), { mode, reason });
    });
  }
});
