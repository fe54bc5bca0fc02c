import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  formatStatus,
  type PairStatus,
  type StatusReport,
} from '../../src/daemon/status-report.js';

/** A pair with nothing on it, worked by an executor: each test sets what it shows. */
const pairStatus = (over: Partial<PairStatus>): PairStatus => ({
  pair: 'XXBTZUSD',
  altname: 'XBTUSD',
  executor: true,
  openOrders: 0,
  ordersByState: {},
  inventory: { base: '0', quote: '0', avgPrice: '0' },
  realizedPnl: '0',
  fees: '0',
  fills: 0,
  ratecount: { level: 0, max: 125 },
  ...over,
});

/** Trading, both roles alive, no supervisor: each test sets what it shows. */
const statusReport = (over: Partial<StatusReport>): StatusReport => ({
  atMs: 1_700_000_000_000,
  mode: 'trading',
  halt: { halted: false },
  roles: { runner: { alive: true }, executor: { alive: true } },
  supervisor: undefined,
  pairs: [],
  ...over,
});

void test('makerd status shows an average-cost PnL to 8 places, not its 40-digit remainder', () => {
  const report = statusReport({
    roles: { runner: { alive: true, beatAgeMs: 120 }, executor: { alive: true, beatAgeMs: 80 } },
    pairs: [
      pairStatus({
        openOrders: 2,
        inventory: { base: '0.01', quote: '-950', avgPrice: '95000' },
        realizedPnl: '-5.2946641666666666666666666666666666666667',
        fees: '1.25',
        fills: 7,
        ratecount: { level: 3, max: 125 },
      }),
    ],
  });
  const line = formatStatus(report)
    .split('\n')
    .find((l) => l.startsWith('XBTUSD:'));
  assert.match(line ?? '', /realized PnL -5\.29466417 \(fees 1\.25, 7 fills\)/);
});

void test('makerd status says a pulled pair quotes nothing, by whom and since when', () => {
  const report = statusReport({
    pairs: [
      pairStatus({
        pair: 'XETHZUSD',
        altname: 'ETHUSD',
        pulled: { by: 'operator:console (alice)', reason: 'pulled from the console', sinceMs: 0 },
      }),
    ],
  });
  assert.match(
    formatStatus(report),
    /^ETHUSD: .*\n {2}PULLED by operator:console \(alice\) since 1970-01-01T00:00:00\.000Z: no quotes until restored/m,
  );
});

void test('makerd status shows the fees, the half-spread floor with its parts, model and queue', () => {
  const quoting: PairStatus['quoting'] = {
    atMs: 1_700_000_000_000,
    fees: { makerBps: '25', takerBps: '40', source: 'ladder', volumeUsd: '0' },
    adverseSelection: { bps: '1.5', horizonMs: 10_000, fills: 14 },
    floor: {
      enabled: true,
      halfSpreadBps: '28.5',
      makerFeeBps: '25',
      adverseBps: '1.5',
      minEdgeBps: '2',
    },
    model: { k: 0.123456789, samples: 420, fit: 'ok' },
    queue: [
      {
        txid: 'OABC',
        side: 'buy',
        price: '59990.0',
        ahead: '0.25',
        behind: '1.1',
        source: 'depth',
        rule: 'power:2',
      },
    ],
  };
  const text = formatStatus(
    statusReport({
      pairs: [pairStatus({ openOrders: 1, ratecount: { level: 0, max: 60 }, quoting })],
    }),
  );
  assert.match(text, /^ {2}fees maker 25 bps, taker 40 bps \(fee ladder, 30-day volume 0 USD\)$/m);
  assert.match(
    text,
    /^ {2}half-spread floor 28\.5 bps = maker fee 25 \+ adverse selection 1\.5 \(14 fills, 10 s\) \+ edge 2$/m,
  );
  assert.match(text, /^ {2}model k 0\.123457, samples 420, fit ok$/m);
  assert.match(text, /^ {2}queue buy 59990\.0: 0\.25 ahead, 1\.1 behind \(estimated, power:2\)$/m);
});

void test('makerd status prints names and reasons from outside as escapes: no terminal control, no forged line', () => {
  const operator = 'operator:console (eve\u001b[2J\u001b]0;pwned\u0007)';
  const report = statusReport({
    mode: 'halted',
    halt: { halted: true, reason: 'a\nb', by: operator, sinceMs: 0 },
    supervisor: {
      exchange: 'online\u009b2J',
      posture: 'normal',
      risk: { reason: 'loss\r\nXBTUSD: executor working' },
    },
    pairs: [
      pairStatus({
        altname: 'XBT\u001b[31mUSD',
        pulled: { by: operator, reason: 'x', sinceMs: 0 },
      }),
    ],
  });
  const lines = formatStatus(report).split('\n');
  assert.deepEqual(
    // eslint-disable-next-line no-control-regex
    lines.filter((l) => /[\u0000-\u001f\u007f-\u009f]/.test(l)),
    [],
  );
  assert.equal(
    lines[0],
    'HALTED: a\\nb (by operator:console (eve\\u001b[2J\\u001b]0;pwned\\u0007) since 1970-01-01T00:00:00.000Z)',
  );
  assert.match(lines.join('\n'), /exchange online\\u009b2J, .*, risk BREACHED: loss\\r\\nXBTUSD/);
  assert.equal(lines.filter((l) => l.startsWith('XBT')).length, 1, 'one line for the pair');
  assert.equal(lines.filter((l) => l.startsWith('b')).length, 0, 'no line begins with the reason');
});
