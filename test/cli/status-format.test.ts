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
