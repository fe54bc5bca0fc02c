import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import type { StatusReport } from '../../src/daemon/status-report.js';
import { dec } from '../../src/core/index.js';
import { scrapedValue } from '../support/metrics.js';
import { startPaperRun, type PaperRun } from '../support/paper-run.js';
import { BIN } from '../support/spawn.js';
import { until } from '../support/until.js';

/**
 * Issue #33 item 3, live: a paper run's /status carries each pair's PnL split with
 * total = spread + inventory - fees exactly, and its metrics the same total.
 */
void describe('makerd run: PnL attribution in /status and the metrics', () => {
  let run: PaperRun;

  before(async () => {
    run = await startPaperRun(23);
  });
  after(async () => {
    await run.close();
  });

  void it('splits the PnL of real fills and exports the same total', async () => {
    const { http } = await run.start();
    const status = async () => (await (await fetch(`${http}/status`)).json()) as StatusReport;
    await until('our bid on the book', async () =>
      (await run.orders()).some((o) => o.pair === 'XXBTZUSD' && o.side === 'buy'),
    );
    // The market falls through our bid: a fill, and a position whose mark moves.
    const fair = (await run.admin('/_sim/market', {})) as { fair_value: Record<string, string> };
    const price = dec(fair.fair_value.XXBTZUSD ?? '0');
    await run.admin('/_sim/market', { fair_value: { XBTUSD: price.times('0.995').toFixed(1) } });
    const filled = await until(
      'a fill in the PnL split',
      async () => {
        const r = await status();
        const pnl = r.pairs.find((p) => p.altname === 'XBTUSD')?.pnl;
        return pnl !== undefined && pnl.fills > 0 ? r : undefined;
      },
      45_000,
      250,
    );
    assert.equal(typeof filled.pnlSinceMs, 'number', '/status says since when the split counts');
    for (const p of filled.pairs) {
      const pnl = p.pnl;
      assert.ok(pnl !== undefined, `${p.altname}: a split`);
      assert.ok(
        dec(pnl.total).eq(dec(pnl.spread).plus(pnl.inventory).minus(pnl.fees)),
        `${p.altname}: ${pnl.total} = ${pnl.spread} + ${pnl.inventory} - ${pnl.fees}`,
      );
      assert.deepEqual(
        pnl.markouts.map((m) => m.horizonMs),
        [1_000, 10_000, 60_000],
      );
      assert.ok(pnl.timeAtQuote.any > 0, `${p.altname}: quoted some of the time`);
    }

    // The gauges and the report are set in the same step: two equal scrapes around one /status.
    const agreed = await until(
      'a /status between two equal scrapes',
      async () => {
        const total = () =>
          scrapedValue(http, 'makerd_pnl_quote', { pair: 'XBTUSD', component: 'total' });
        const before = await total();
        const r = await status();
        const after = await total();
        const pnl = r.pairs.find((p) => p.altname === 'XBTUSD')?.pnl;
        return before === after && pnl !== undefined ? { scraped: after, pnl } : undefined;
      },
      10_000,
      100,
    );
    assert.equal(agreed.scraped, Number(agreed.pnl.total));
    assert.ok(
      (await scrapedValue(http, 'makerd_time_at_quote_ratio', { pair: 'XBTUSD', side: 'bid' })) > 0,
    );

    const { stdout } = await promisify(execFile)(process.execPath, [BIN, 'status', '--http', http]);
    assert.match(
      stdout,
      /XBTUSD: .*\n {2}PnL -?[\d.]+ = spread -?[\d.]+ \+ inventory -?[\d.]+ - fees [\d.]+ /,
    );
    assert.match(stdout, /PnL split and markouts counted since \S+ \(runner start\)/);

    // What the quotes were held to: the key's fees from the simulator's TradeVolume (25 bps
    // maker on the starter rung, lower once the run's fills add volume), and spread's floor
    // (the paper run turns it off: reported, not applied).
    const quoting = (await status()).pairs.find((p) => p.altname === 'XBTUSD')?.quoting;
    assert.equal(quoting?.fees.source, 'trade-volume');
    assert.ok(Number(quoting.fees.makerBps) > 0, `maker fee ${quoting.fees.makerBps}`);
    assert.equal(quoting.floor?.enabled, false);
    assert.equal(quoting.floor.makerFeeBps, quoting.fees.makerBps);
    assert.equal(
      await scrapedValue(http, 'makerd_fee_bps', { pair: 'XBTUSD', liquidity: 'maker' }),
      Number(quoting.fees.makerBps),
    );
    assert.match(stdout, /^ {2}half-spread floor OFF \(maker fee [\d.]+ bps/m);
  });
});
