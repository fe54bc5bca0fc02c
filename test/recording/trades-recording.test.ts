/**
 * The recorder keeps every trade the Trades poll follows, catch-up answers included, and writes
 * down what the budget could not fetch: the reader reports it as a gap.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { parseWithSchema } from '../../src/core/index.js';
import { Recorder, RecordingReader, type RecordedRow } from '../../src/recording/index.js';
import { MarketConfig, MarketMetrics, type TradeRow } from '../../src/market/index.js';
import { startHarness, type Harness } from '../market/sim-harness.js';
import { burst } from '../market/trade-burst.js';
import { collect, freeMb, tempDir } from './helpers.js';

describe('recording a Trades poll that follows the cursor', () => {
  let h: Harness;
  const { dir, remove } = tempDir();
  const registry = new Registry();
  let recorder: Recorder;
  let small: number[] = [];
  let large: number[] = [];
  let rows: RecordedRow[] = [];
  let reader: RecordingReader;

  before(async () => {
    h = await startHarness();
    recorder = new Recorder({ dir, clock: h.clock, statfs: freeMb(10_000) });
    const client = h.client(h.sim.addAccount({ tier: 'pro' }), 'pro', {
      transport: recorder.transport,
    });
    const config = parseWithSchema(
      MarketConfig,
      { trades_kept: 1000, polls: { trades: { count: 10 } } },
      'market',
    );
    const { feed, pairs } = await h.feed(client, ['XBTUSD'], {
      config,
      metrics: new MarketMetrics(registry),
    });
    await recorder.start({ plan: feed.plan, client, pairs });
    feed.onTradesGap(recorder.tradesGap.bind(recorder));
    feed.start();
    await h.run(12_000);
    small = burst(h.sim, 35);
    await h.run(12_000);
    large = burst(h.sim, 400);
    await h.run(40_000);
    await feed.stop();
    await recorder.close();
    reader = new RecordingReader(dir);
    rows = await collect(reader.pairRows('XBTUSD'));
  });
  after(async () => {
    await h.close();
    remove();
  });

  /** Trade ids of every recorded Trades answer, in the order recorded. */
  const recordedIds = (): number[] =>
    rows
      .filter((r) => r.endpoint === 'Trades' && r.body !== undefined)
      .flatMap((r) => {
        const result = (JSON.parse(r.body as string) as { result: Record<string, unknown> }).result;
        return (result['XXBTZUSD'] as TradeRow[]).map((t) => t[6]);
      });

  it('keeps every trade of a burst larger than one answer, each once', () => {
    const ids = recordedIds();
    assert.deepEqual(
      ids.filter((id) => small.includes(id)),
      small,
    );
    assert.equal(new Set(ids).size, ids.length, 'no answer overlaps another');
  });

  it('writes down the trades the budget could not fetch; the reader reports the gap', async () => {
    const recorded = new Set(recordedIds());
    const missing = large.filter((id) => !recorded.has(id));
    assert.ok(missing.length > 0);
    const gaps = rows.filter((r) => r.endpoint === 'TradesGap');
    assert.equal(gaps.length, 1);
    const gap = (JSON.parse(gaps[0]?.body ?? '{}') as { result: Record<string, number> }).result;
    assert.equal(gap.missed, missing.length);
    assert.equal(gap.after_id, (missing[0] ?? 0) - 1);
    assert.equal(gap.resume_id, (missing.at(-1) ?? 0) + 1);
    assert.equal(gap.calls_short, Math.ceil(missing.length / 10));

    assert.equal(reader.problems.length, 1, reader.problems.map((p) => p.message).join('\n'));
    const problem = reader.problems[0];
    assert.equal(problem?.kind, 'gap');
    assert.equal(problem?.pair, 'XBTUSD');
    assert.match(
      problem?.message ?? '',
      new RegExp(
        `^XBTUSD: trades missed from 2026-03-02T09:00:\\d\\d\\.\\d{3}Z to 2026-03-02T09:00:\\d\\d\\.\\d{3}Z ` +
          `\\(${missing.length} trades, ids ${missing[0]} to ${missing.at(-1)}; ` +
          `${Math.ceil(missing.length / 10)} Trades calls short\\)$`,
      ),
    );
    assert.equal(recorder.stats().gaps, 1);
    assert.match(
      (await registry.getSingleMetricAsString('makerd_trades_missed_total')) ?? '',
      new RegExp(`makerd_trades_missed_total\\{pair="XBTUSD"\\} ${missing.length}\\b`),
    );
  });
});
