import assert from 'node:assert/strict';
import { once } from 'node:events';
import { describe, it } from 'node:test';
import { demoStatusLine } from '../../src/cli/demo-status.js';
import type { StatusReport } from '../../src/daemon/status-report.js';
import { makerd, stop } from '../support/spawn.js';
import { until } from '../support/until.js';

/** A loopback port nothing listens on (the discard port is never served here). */
const NO_REDIS = 'redis://127.0.0.1:9';

describe('makerd demo', () => {
  it('starts its own redis-server when none answers, paper-trades, and on Ctrl-C stops it', async (t) => {
    // Long enough for `makerd status` to start and ask it however slow the host; stopped by
    // Ctrl-C (SIGINT) once seen, as an operator stops it.
    const demo = makerd(['demo', '--json', '--seconds', '120', '--status-every', '1'], {
      REDIS_URL: NO_REDIS,
      MAKERD_REDIS_URL: '',
      MAKERD_HTTP_PORT: '0',
    });
    try {
      const intro = await demo.waitFor(
        'demo: paper trading against a fresh simulator; Ctrl-C cancels every order and stops',
        30_000,
      );
      const redis = String(intro.redis);
      assert.match(
        redis,
        /^redis:\/\/127\.0\.0\.1:\d+ \(started redis-server, pid \d+, no persistence\)$/,
      );
      assert.match(String(intro.simulator), /^http:\/\/127\.0\.0\.1:\d+$/);
      const running = await demo.waitFor('makerd demo running', 30_000);
      // The demo's simulator has a port of its own: status asks the process instead.
      const status = makerd(['status', '--http', String(running.http)]);
      const [statusCode] = (await once(status.child, 'exit')) as [number | null];
      assert.equal(statusCode, 0, status.stderr());
      const text = status.lines.map((l) => String(l.msg)).join('\n');
      assert.match(text, /^trading \(not halted\)$/m);
      assert.match(text, /^supervisor: exchange online, posture normal, dead-man fires at /m);
      assert.match(text, /^XBTUSD: executor working, \d+ open orders, /m);
      const statusLines = () =>
        demo.lines.filter((l) => /^\d\d:\d\d:\d\d \| trading \| XBTUSD mid /.test(String(l.msg)));
      await until('two status lines', () => statusLines().length >= 2, 30_000);
      const exited = once(demo.child, 'exit');
      demo.child.kill('SIGINT');
      const [code] = (await exited) as [number | null];
      assert.equal(code, 0, demo.stderr());
      t.diagnostic(String(statusLines().at(-1)?.msg));
      assert.ok(
        demo.lines.some((l) => l.msg === 'shutdown: orders cancelled, dead-man timer disarmed'),
      );
      const pid = Number(/pid (\d+)/.exec(redis)?.[1]);
      assert.throws(() => process.kill(pid, 0), /ESRCH/, 'the demo stopped its redis-server');
    } finally {
      await stop(demo.child);
    }
  });

  it('says how to get Redis when none answers and redis-server is not installed', async () => {
    const demo = makerd(['demo', '--seconds', '1'], {
      REDIS_URL: NO_REDIS,
      MAKERD_REDIS_URL: '',
      MAKERD_REDIS_SERVER: '/nonexistent/redis-server',
    });
    const [code] = (await once(demo.child, 'exit')) as [number | null];
    assert.equal(code, 1);
    assert.match(
      demo.stderr(),
      /no Redis answers at redis:\/\/127\.0\.0\.1:9 and \/nonexistent\/redis-server is not installed: install it \(Debian or Ubuntu: sudo apt-get install redis-server/,
    );
  });

  it('status --http names the endpoint that does not answer', async () => {
    const status = makerd(['status', '--http', 'http://127.0.0.1:9']);
    const [code] = (await once(status.child, 'exit')) as [number | null];
    assert.equal(code, 1);
    assert.match(status.stderr(), /makerd: no answer from http:\/\/127\.0\.0\.1:9: /);
  });

  it('writes one status line: halt, roles down, and per pair mid, orders, inventory, PnL split, fills, ratecount', () => {
    const pair = {
      pair: 'XXBTZUSD',
      altname: 'XBTUSD',
      executor: true,
      openOrders: 3,
      ordersByState: {},
      inventory: { base: '-0.05', quote: '3003.6488675', avgPrice: '60000' },
      realizedPnl: '-8.3577325',
      fees: '1',
      fills: 7,
      ratecount: { level: 54.91, max: 60 },
    };
    const pnl = {
      position: '-0.05',
      total: '-1.8577325',
      spread: '2.504',
      inventory: '-3.3617325',
      fees: '1',
      fills: 7,
      volumeBase: '0.35',
      volumeQuote: '21000.5',
      timeAtQuote: { bid: 0.9, ask: 0.8, both: 0.75, any: 0.95, observedMs: 60_000 },
      quoteDistanceBps: {},
      ratecountUse: {},
      markouts: [],
    };
    const report = (pnlOfPair?: typeof pnl) =>
      ({
        atMs: Date.UTC(2026, 10, 22, 9, 30, 5),
        mode: 'halted',
        halt: { halted: true, reason: 'operator halt' },
        roles: { runner: { alive: true, beatAgeMs: 10 }, executor: { alive: false } },
        supervisor: undefined,
        pairs: [{ ...pair, pnl: pnlOfPair }],
      }) satisfies StatusReport;
    const local = { pairs: [{ pair: 'XBTUSD', mid: '60012.35' }] };
    assert.equal(
      demoStatusLine(report(pnl), local),
      '09:30:05 | HALTED (operator halt) | executor down | XBTUSD mid 60012.35 3 orders base -0.0500 pnl -1.86 = spread 2.50 + inv -3.36 - fees 1.00 7 fills rc 55/60',
    );
    assert.equal(
      demoStatusLine(report(), local),
      '09:30:05 | HALTED (operator halt) | executor down | XBTUSD mid 60012.35 3 orders base -0.0500 realized pnl -8.36 7 fills rc 55/60',
      'no runner reports the split: the realized PnL, named so',
    );
  });
});
