import assert from 'node:assert/strict';
import { once } from 'node:events';
import { hostname, userInfo } from 'node:os';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { demoStatusLines } from '../../src/cli/demo-status.js';
import { demoSummary } from '../../src/cli/demo-summary.js';
import { LiveTerminal } from '../../src/cli/live-terminal.js';
import type { StatusReport } from '../../src/daemon/status-report.js';
import { makerd, stop } from '../support/spawn.js';
import { until } from '../support/until.js';

/** A loopback port nothing listens on (the discard port is never served here). */
const NO_REDIS = 'redis://127.0.0.1:9';
const PAPER = fileURLToPath(new URL('../../config/paper.yaml', import.meta.url));

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
      // The status line (logged here, no terminal) with our quotes on the book.
      const statusLines = () =>
        demo.lines.filter((l) =>
          /^\d\d:\d\d:\d\d \| trading \| XBTUSD bid [\d.]+ ask [\d.]+ mid [\d.]+ pos /.test(
            String(l.msg),
          ),
        );
      await until('two status lines', () => statusLines().length >= 2, 30_000);

      // The banner's command acts on this demo, recorded as this shell's over HTTP.
      const url = String(running.http);
      const banner = demo.lines.find((l) => typeof l.halt === 'string');
      assert.equal(banner?.halt, `npx makerd halt --http ${url}`);
      const shell = `${userInfo().username}@${hostname()}`;
      const act = async (...args: string[]) => {
        const cli = makerd([...args, '--http', url]);
        const [exit] = (await once(cli.child, 'exit')) as [number | null];
        assert.equal(exit, 0, cli.stderr());
        return cli.lines[0];
      };
      const halted = await act('halt', '--reason', 'from a shell');
      assert.deepEqual([halted?.halted, halted?.changed, halted?.outcome], [true, true, 'halted']);
      await until('the status line says halted', () =>
        demo.lines.some((l) => /^\S+ \| HALTED \(from a shell\) \| XBTUSD /.test(String(l.msg))),
      );
      const resumed = await act('resume');
      assert.match(
        String(resumed?.outcome),
        /^resumed; was halted by operator:\S+@\S+ for from a shell/,
      );
      assert.deepEqual(await act('pull', 'ethusd'), {
        pulled: 'ETHUSD',
        changed: true,
        outcome: 'pulled',
      });
      assert.equal((await act('restore', 'ETHUSD'))?.restored, 'ETHUSD');
      const unknown = makerd(['pull', 'DOGEUSD', '--http', url]);
      assert.deepEqual(await once(unknown.child, 'exit'), [2, null]);
      assert.equal(
        unknown.stderr(),
        `makerd: ${url}/pull answered 400: pair: DOGEUSD is not traded here (XBTUSD, ETHUSD)\n`,
      );
      const audited = demo.lines.filter((l) => l.audit === true);
      assert.deepEqual(
        audited.map((l) => [l.action, l.door, l.actor, l.remote, l.changed]),
        [
          ['halt', 'cli-http', shell, '127.0.0.1', true],
          ['resume', 'cli-http', shell, '127.0.0.1', true],
          ['pull', 'cli-http', shell, '127.0.0.1', true],
          ['restore', 'cli-http', shell, '127.0.0.1', true],
        ],
      );

      const exited = once(demo.child, 'exit');
      demo.child.kill('SIGINT');
      const [code] = (await exited) as [number | null];
      assert.equal(code, 0, demo.stderr());
      t.diagnostic(String(statusLines().at(-1)?.msg));
      assert.ok(
        demo.lines.some((l) => l.msg === 'shutdown: orders cancelled, dead-man timer disarmed'),
      );
      // The summary comes last: run time, how the shutdown went, per pair what it did and left.
      const summary = demo.lines.filter((l) => String(l.msg).startsWith('demo summary: '));
      for (const l of summary) t.diagnostic(String(l.msg));
      assert.deepEqual(demo.lines.slice(-3), summary);
      assert.match(
        String(summary[0]?.msg),
        /^demo summary: ran \d+s; shutdown: \d+ orders cancelled, dead-man timer disarmed; 0 orders left on the simulator$/,
      );
      for (const [i, pair] of ['XBTUSD', 'ETHUSD'].entries()) {
        assert.match(
          String(summary[i + 1]?.msg),
          new RegExp(
            `^demo summary: ${pair} \\d+ fills, volume [\\d.]+ \\([\\d.]+ quote\\), pnl -?[\\d.]+ \\(spread .+\\), 0 orders left$`,
          ),
        );
      }
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

  it('makerd halt that names no process says how to name one; an absent Redis is one line', async () => {
    // A Redis that does not answer: the package's config/paper.yaml would be tried there.
    const env = { REDIS_URL: NO_REDIS, MAKERD_REDIS_URL: NO_REDIS };
    const halt = makerd(['halt'], env);
    const viaConfig = makerd(['halt', '--config', PAPER], env);
    assert.deepEqual(await once(halt.child, 'exit'), [2, null]);
    assert.equal(
      halt.stderr(),
      "makerd: --http or --config: which makerd should halt? --http URL for a running process (makerd demo prints its own), --config FILE for a deployment through its Redis (makerd run's default is config/paper.yaml)\n",
    );
    assert.deepEqual(await once(viaConfig.child, 'exit'), [1, null]);
    assert.equal(
      viaConfig.stderr(),
      'makerd: redis.url: cannot connect to redis://127.0.0.1:9: connect ECONNREFUSED 127.0.0.1:9\n',
    );
  });

  it('status --http names the endpoint that does not answer', async () => {
    const status = makerd(['status', '--http', 'http://127.0.0.1:9']);
    const [code] = (await once(status.child, 'exit')) as [number | null];
    assert.equal(code, 1);
    assert.match(status.stderr(), /makerd: no answer from http:\/\/127\.0\.0\.1:9: /);
  });

  /** Two pairs as /status reports them, with the runner's PnL split unless `noRunner`. */
  const twoPairs = (noRunner = false) => {
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
    const pair = (altname: string, base: string) => ({
      pair: `X${altname}`,
      altname,
      executor: true,
      openOrders: 2,
      ordersByState: {},
      inventory: { base, quote: '3003.6488675', avgPrice: '60000' },
      realizedPnl: '-8.3577325',
      fees: '1',
      fills: 7,
      ratecount: { level: 54.91, max: 60 },
      pnl: noRunner ? undefined : pnl,
    });
    return {
      atMs: Date.UTC(2026, 10, 22, 9, 30, 5),
      mode: 'trading',
      halt: { halted: false },
      roles: { runner: { alive: true, beatAgeMs: 10 }, executor: { alive: true, beatAgeMs: 5 } },
      supervisor: undefined,
      pairs: [pair('XBTUSD', '-0.05'), pair('ETHUSD', '1.25')],
    } satisfies StatusReport;
  };
  const local = {
    pairs: [
      { pair: 'XBTUSD', mid: '60012.35' },
      { pair: 'ETHUSD', mid: '2999.405' },
    ],
  };
  const quotes = new Map([
    ['XBTUSD', { bid: '60008.1', ask: '60016.6' }],
    ['ETHUSD', { bid: '2998.61', ask: '3000.2' }],
  ]);

  it('fits 80 columns: the state, then per pair our bid and ask, the mid, position and PnL', () => {
    const written: string[] = [];
    const out = {
      isTTY: true,
      columns: 80,
      write: (chunk: string, done?: () => void) => void (written.push(chunk), done?.()),
    } as unknown as NodeJS.WriteStream;
    const terminal = new LiveTerminal(out);
    const lines = demoStatusLines(twoPairs(), local, quotes, terminal.width);
    assert.deepEqual(lines, [
      '09:30:05 | trading',
      'XBTUSD bid 60008.1 ask 60016.6 mid 60012.35 pos -0.0500 pnl -1.86 7 fills',
      'ETHUSD bid 2998.61 ask 3000.2 mid 2999.405 pos 1.2500 pnl -1.86 7 fills',
    ]);
    // Drawn at the bottom; a log line clears all three lines, scrolls above and they come back.
    terminal.setStatus(lines);
    terminal.logStream.write('a log line\n');
    assert.equal(written.at(-1), `\r\x1b[2A\x1b[Ja log line\n${lines.join('\n')}`);
    assert.ok(lines.every((l) => l.length < 80));
  });

  it('puts it all on one line when it fits (a wide terminal, a log line)', () => {
    assert.deepEqual(demoStatusLines(twoPairs(true), local, new Map(), Infinity), [
      '09:30:05 | trading | XBTUSD bid - ask - mid 60012.35 pos -0.0500 realized pnl -8.36 7 fills 2 orders rc 55/60 | ' +
        'ETHUSD bid - ask - mid 2999.405 pos 1.2500 realized pnl -8.36 7 fills 2 orders rc 55/60',
    ]);
  });

  it('sums up at exit: run time, shutdown, and per pair fills, volume, PnL, orders left', () => {
    const end = {
      ranMs: 125_400,
      report: twoPairs(),
      shutdown: { cancelled: 4, disarmed: true },
      cancelAsked: true,
      ordersLeft: new Map<string, number>(),
    };
    assert.deepEqual(
      demoSummary(end).map((l) => [l.level, l.msg]),
      [
        [
          'info',
          'demo summary: ran 2m05s; shutdown: 4 orders cancelled, dead-man timer disarmed; 0 orders left on the simulator',
        ],
        [
          'info',
          'demo summary: XBTUSD 7 fills, volume 0.3500 (21000.50 quote), pnl -1.86 (spread 2.50 inv -3.36 fees 1.00), 0 orders left',
        ],
        [
          'info',
          'demo summary: ETHUSD 7 fills, volume 0.3500 (21000.50 quote), pnl -1.86 (spread 2.50 inv -3.36 fees 1.00), 0 orders left',
        ],
      ],
    );
    const bad = demoSummary({
      ...end,
      shutdown: { cancelled: undefined, disarmed: false },
      ordersLeft: new Map([['ETHUSD', 2]]),
    });
    assert.deepEqual(
      bad.map((l) => [
        l.level,
        l.msg.replace(/^demo summary: (\S+ \S+).*?(\d+ orders left).*$/, '$1 $2'),
      ]),
      [
        ['warn', 'ran 2m05s; 2 orders left'],
        ['info', 'XBTUSD 7 0 orders left'],
        ['warn', 'ETHUSD 7 2 orders left'],
      ],
    );
    assert.match(
      bad[0]?.msg ?? '',
      /shutdown: the cancel was NOT confirmed, the dead-man timer may still be armed;/,
    );
  });
});
