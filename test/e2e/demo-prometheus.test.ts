/**
 * Issue #7's end-to-end run: `makerd demo` for over a minute against the simulator, scraped by a
 * real Prometheus (Debian's package) with the repository's alert rules loaded. Checks what an
 * operator would look at: orders on both sides, fills, inventory and PnL, no rate-limit
 * rejection, and the dashboard's key series in Prometheus.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { freePort } from '../../src/core/free-port.js';
import { freshPrefix } from '../support/redis.js';
import { BOTH_PAIRS_TRADING, paperConfigText } from '../support/paper-config.js';
import { makerd, stop } from '../support/spawn.js';
import { until, type SimStateView } from '../support/until.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const RUN_S = 62;
const MISSING =
  "prometheus is not installed: install Debian's prometheus package (apt-get install prometheus)";

/** What the dashboard is for, each a series the demo must have produced. */
const KEY_SERIES = [
  'makerd_mid_price',
  'makerd_quote_price',
  'makerd_quoted_spread_bps',
  'makerd_inventory_base',
  'makerd_realized_pnl_quote',
  'makerd_marked_pnl_quote',
  'makerd_fills_total',
  'makerd_ratecount_level',
  'makerd_ratecount_max',
  'makerd_rest_counter_level',
  'makerd_order_actions_total',
  'makerd_intent_queue_depth',
  'makerd_tick_to_wire_seconds_bucket',
  'makerd_exchange_status',
  'makerd_halted',
  'makerd_heartbeat_age_seconds',
];

interface Sample {
  metric: Record<string, string>;
  value: [number, string];
}

describe('end to end: makerd demo scraped by Prometheus', () => {
  it(`paper-trades for ${RUN_S} s with every key series in Prometheus`, async (t) => {
    if (spawnSync('prometheus', ['--version']).error !== undefined) {
      if (process.env.MAKERD_REQUIRE_TOOLS === '1') assert.fail(MISSING);
      t.skip(MISSING);
      return;
    }
    const [httpPort, promPort] = [await freePort(), await freePort()];
    const dir = mkdtempSync(join(tmpdir(), 'makerd-e2e-'));
    const prefix = freshPrefix();
    // Both pairs quoted close enough to trade within the minute: the paper config's own settings
    // trade a few times an hour.
    const config = join(dir, 'demo.yaml');
    writeFileSync(config, paperConfigText({ pairs: BOTH_PAIRS_TRADING, prefix }).text);
    const demo = makerd(
      ['demo', '--config', config, '--json', '--seconds', String(RUN_S + 8), '--status-every', '5'],
      { MAKERD_HTTP_PORT: String(httpPort), MAKERD_REDIS_PREFIX: prefix },
    );
    writeFileSync(
      join(dir, 'prometheus.yml'),
      stringify({
        global: { scrape_interval: '1s', evaluation_interval: '1s' },
        rule_files: [join(ROOT, 'config/prometheus/alerts.yml')],
        scrape_configs: [
          { job_name: 'makerd', static_configs: [{ targets: [`127.0.0.1:${httpPort}`] }] },
        ],
      }),
    );
    const prometheus = spawn(
      'prometheus',
      [
        `--config.file=${join(dir, 'prometheus.yml')}`,
        `--storage.tsdb.path=${join(dir, 'data')}`,
        `--web.listen-address=127.0.0.1:${promPort}`,
      ],
      { stdio: 'ignore' },
    );
    const promUrl = `http://127.0.0.1:${promPort}`;
    const query = async (expr: string): Promise<Sample[]> => {
      const res = await fetch(`${promUrl}/api/v1/query?query=${encodeURIComponent(expr)}`);
      const body = (await res.json()) as { status: string; data: { result: Sample[] } };
      assert.equal(body.status, 'success', expr);
      return body.data.result;
    };
    try {
      const intro = await demo.waitFor(
        'demo: paper trading against a fresh simulator; Ctrl-C cancels every order and stops',
        30_000,
      );
      const simUrl = String(intro.simulator);
      const running = await demo.waitFor('makerd demo running', 30_000);
      const startedAt = Date.now();
      const sim = async (): Promise<SimStateView> =>
        (await (await fetch(`${simUrl}/_sim/state`)).json()) as SimStateView;
      await until(
        'Prometheus scraping the demo',
        async () => ((await query('up{job="makerd"} == 1')).length === 1 ? true : undefined),
        30_000,
      );
      // Orders on both sides of both pairs, while it runs.
      const sides = await until(
        'our orders on both sides',
        async () => {
          const ours = (await sim()).open_orders.filter((o) => o.key === 'paper-key');
          const set = new Set(ours.map((o) => `${o.pair} ${o.side}`));
          return set.size === 4 ? [...set].sort() : undefined;
        },
        30_000,
      );
      assert.deepEqual(sides, ['XETHZUSD buy', 'XETHZUSD sell', 'XXBTZUSD buy', 'XXBTZUSD sell']);

      await new Promise((r) => setTimeout(r, Math.max(0, RUN_S * 1000 - (Date.now() - startedAt))));
      const state = await sim();
      const last = [...demo.lines].reverse().find((l) => / \| trading \| /.test(String(l.msg)));
      t.diagnostic(
        `status after ${Math.round((Date.now() - startedAt) / 1000)} s: ${String(last?.msg)}`,
      );

      // Fills, inventory and PnL, as makerd tracked them. The demo trades on while they are read,
      // and Prometheus holds what its last scrape (each second) saw: a fill between that scrape
      // and the /status read shows as a difference, so both are read again after the next scrape
      // until they agree, a few times at most.
      interface StatusPairs {
        pairs: {
          altname: string;
          fills: number;
          inventory: { base: string };
          realizedPnl: string;
        }[];
      }
      const differences = async (): Promise<{
        fills: number;
        promFills: string;
        diff: string[];
      }> => {
        const status = (await (
          await fetch(`${String(running.http)}/status`)
        ).json()) as StatusPairs;
        const fills = status.pairs.reduce((n, p) => n + p.fills, 0);
        const promFills = (await query('sum(makerd_fills_total)'))[0]?.value[1] ?? 'absent';
        const diff: string[] = [];
        if (Number(promFills) !== fills)
          diff.push(`fills: Prometheus ${promFills}, tracker ${fills}`);
        for (const p of status.pairs.filter((x) => x.fills > 0)) {
          const [inv] = await query(`makerd_inventory_base{pair="${p.altname}"}`);
          if (Number(inv?.value[1]) !== Number(p.inventory.base)) {
            diff.push(`${p.altname} inventory: Prometheus ${inv?.value[1]}, ${p.inventory.base}`);
          }
          const [pnl] = await query(`makerd_realized_pnl_quote{pair="${p.altname}"}`);
          if (!(Math.abs(Number(pnl?.value[1]) - Number(p.realizedPnl)) < 1e-6)) {
            diff.push(`${p.altname} PnL: Prometheus ${pnl?.value[1]}, ${p.realizedPnl}`);
          }
        }
        return { fills, promFills, diff };
      };
      let seen = await differences();
      for (let i = 0; i < 5 && seen.diff.length > 0; i++) {
        await new Promise((r) => setTimeout(r, 1_500));
        seen = await differences();
      }
      assert.ok(seen.fills > 0, 'the demo filled');
      assert.deepEqual(seen.diff, [], 'Prometheus has what the tracker has');
      t.diagnostic(`Prometheus: sum(makerd_fills_total) = ${seen.promFills}`);

      // Zero rate-limit rejections: on the exchange's side and in makerd's counters.
      const limited = Object.entries(state.rejections).filter(([e]) =>
        /rate limit|throttled/i.test(e),
      );
      assert.deepEqual(limited, [], 'the simulator refused nothing for rate');
      assert.deepEqual(
        await query('makerd_order_rejections_total{error=~"(?i).*(rate limit|throttled).*"} > 0'),
        [],
      );
      assert.deepEqual(await query('ALERTS{alertstate="firing"}'), [], 'no alert firing');

      // The dashboard's key series, each present in Prometheus.
      const dashboard = readFileSync(join(ROOT, 'config/grafana/dashboards/makerd.json'), 'utf8');
      const absent: string[] = [];
      for (const name of KEY_SERIES) {
        assert.ok(dashboard.includes(name), `${name} is on the dashboard`);
        if ((await query(`count(${name})`)).length === 0) absent.push(name);
      }
      assert.deepEqual(absent, [], 'key series missing from Prometheus');
      const quotes = await query('makerd_quote_price');
      t.diagnostic(
        `Prometheus: makerd_quote_price → ${quotes
          .map((s) => `${s.metric.pair} ${s.metric.side} ${s.value[1]}`)
          .sort()
          .join(', ')}`,
      );
      assert.equal(quotes.length, 4);

      const [code] = (await once(demo.child, 'exit')) as [number | null];
      assert.equal(code, 0, demo.stderr());
      assert.ok(
        demo.lines.some((l) => l.msg === 'shutdown: orders cancelled, dead-man timer disarmed'),
      );
    } finally {
      await stop(demo.child);
      prometheus.kill('SIGTERM');
      if (prometheus.exitCode === null) await once(prometheus, 'exit');
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
