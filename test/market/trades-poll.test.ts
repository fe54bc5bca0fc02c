import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { parseWithSchema } from '../../src/core/index.js';
import {
  catchUpPerSec,
  MarketConfig,
  MarketMetrics,
  type MarketFeed,
} from '../../src/market/index.js';
import { startHarness, type Harness } from './sim-harness.js';
import { burst } from './trade-burst.js';

const PAIR = 'XXBTZUSD';

describe('MarketFeed: the Trades poll follows the cursor and catches up within the budget', () => {
  let h: Harness;
  let feed: MarketFeed;
  const registry = new Registry();
  /** Every Trades call the feed sent: when, and from which cursor. */
  const calls: { atMs: number; since: string | undefined }[] = [];
  const metric = async (name: string): Promise<number> => {
    const text = (await registry.getSingleMetricAsString(name)) ?? '';
    const m = new RegExp(`${name}\\{pair="XBTUSD"\\} (\\d+)`).exec(text);
    assert.ok(m, text);
    return Number(m[1]);
  };
  const keptIds = (): number[] => feed.snapshot(PAIR).trades.map((t) => t.tradeId);
  const tradesPolls = (): number => {
    const st = feed.status().find((p) => p.id === `trades:${PAIR}`);
    return (st?.counts.ok ?? 0) + (st?.counts.error ?? 0);
  };

  before(async () => {
    h = await startHarness();
    const client = h.client(h.sim.addAccount({ tier: 'pro' }), 'pro');
    const call = client.call.bind(client);
    client.call = (endpoint, req, opts) => {
      if (endpoint.name === 'Trades') {
        calls.push({ atMs: h.clock.now(), since: (req as { since?: string }).since });
      }
      return call(endpoint, req, opts);
    };
    const config = parseWithSchema(
      MarketConfig,
      { trades_kept: 1000, polls: { trades: { count: 10 } } },
      'market',
    );
    ({ feed } = await h.feed(client, ['XBTUSD'], {
      config,
      metrics: new MarketMetrics(registry),
    }));
    feed.start();
    await h.run(12_000);
  });
  after(() => h.close());

  it('a burst of 35 trades between two polls, with count 10: every trade, once, in budget', async () => {
    assert.equal(calls[0]?.since, undefined, 'the first poll asks for the newest trades');
    assert.ok(
      calls.slice(1).every((c) => c.since !== undefined),
      'every later one follows the cursor',
    );
    const ids = burst(h.sim, 35);
    await h.run(12_000);

    const kept = keptIds();
    assert.deepEqual(
      kept.filter((id) => id >= (ids[0] ?? 0)),
      ids,
      'each trade of the burst once, in order',
    );
    assert.equal(new Set(kept).size, kept.length, 'no trade twice');
    // 35 trades at 10 a call took more calls than the polls made; the rest were catch-ups.
    const catchUps = calls.length - tradesPolls();
    assert.ok(catchUps >= 1, `catch-ups ${catchUps}`);
    assert.equal(await metric('makerd_trades_catchup_calls_total'), catchUps);
    assert.equal(await metric('makerd_trades_missed_total'), 0);
    // Within what the plan leaves unused, accrued since the first Trades poll.
    const spare = catchUpPerSec(feed.plan);
    const firstAt = calls[0]?.atMs ?? h.clock.now();
    assert.ok(
      catchUps <= (spare * (h.clock.now() - firstAt)) / 1000,
      `${catchUps} catch-ups in ${h.clock.now() - firstAt} ms at ${spare}/s`,
    );
    const json = await registry.getMetricsAsJSON();
    const budget = (name: string) =>
      json.find((m) => m.name === name)?.values.find((v) => v.labels.scope === 'public')?.value;
    const used = budget('makerd_rest_budget_used_per_second') ?? Infinity;
    const available = budget('makerd_rest_budget_available_per_second') ?? 0;
    assert.ok(used <= available, `public calls ${used}/s of ${available}/s`);
  });

  it('a burst the budget cannot catch up in time: the trades skipped are counted', async () => {
    const ids = burst(h.sim, 400);
    await h.run(40_000);

    const kept = new Set(keptIds());
    const missing = ids.filter((id) => !kept.has(id));
    assert.ok(missing.length > 0, 'some trades were skipped');
    assert.equal(await metric('makerd_trades_missed_total'), missing.length);
    // One stretch skipped: the oldest of the burst were followed, then the feed jumped to the
    // newest, and followed the cursor again from there.
    const first = missing[0] ?? 0;
    assert.deepEqual(
      missing,
      Array.from({ length: missing.length }, (_, i) => first + i),
    );
    assert.ok(kept.has(ids[0] ?? 0) && kept.has(ids[ids.length - 1] ?? 0));
    assert.ok(first > (ids[0] ?? 0) + 10, 'caught up over more than one answer first');
  });
});
