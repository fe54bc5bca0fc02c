import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatStatus, type StatusReport } from '../../src/cli/status-report.js';

void test('makerd status shows an average-cost PnL to 8 places, not its 40-digit remainder', () => {
  const report: StatusReport = {
    atMs: 1_700_000_000_000,
    mode: 'trading',
    halt: { halted: false },
    roles: { runner: { alive: true, beatAgeMs: 120 }, executor: { alive: true, beatAgeMs: 80 } },
    supervisor: undefined,
    pairs: [
      {
        pair: 'XXBTZUSD',
        altname: 'XBTUSD',
        executor: true,
        openOrders: 2,
        ordersByState: {},
        inventory: { base: '0.01', quote: '-950', avgPrice: '95000' },
        realizedPnl: '-5.2946641666666666666666666666666666666667',
        fees: '1.25',
        fills: 7,
        ratecount: { level: 3, max: 125 },
      },
    ],
  };
  const line = formatStatus(report)
    .split('\n')
    .find((l) => l.startsWith('XBTUSD:'));
  assert.match(line ?? '', /realized PnL -5\.29466417 \(fees 1\.25, 7 fills\)/);
});

void test('makerd status says a pulled pair quotes nothing, by whom and since when', () => {
  const report: StatusReport = {
    atMs: 1_700_000_000_000,
    mode: 'trading',
    halt: { halted: false },
    roles: { runner: { alive: true }, executor: { alive: true } },
    supervisor: undefined,
    pairs: [
      {
        pair: 'XETHZUSD',
        altname: 'ETHUSD',
        executor: true,
        openOrders: 0,
        ordersByState: {},
        inventory: { base: '0', quote: '0', avgPrice: '0' },
        realizedPnl: '0',
        fees: '0',
        fills: 0,
        ratecount: { level: 0, max: 125 },
        pulled: { by: 'operator:console (alice)', reason: 'pulled from the console', sinceMs: 0 },
      },
    ],
  };
  assert.match(
    formatStatus(report),
    /^ETHUSD: .*\n {2}PULLED by operator:console \(alice\) since 1970-01-01T00:00:00\.000Z: no quotes until restored/m,
  );
});
