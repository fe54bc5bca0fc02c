/**
 * `makerd backtest`'s what-if flags: fees instead of the recording's ladders (or a 30-day volume
 * on them), and the queue rule, seen in what the replayed exchange charged and the summary.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runBacktestCommand } from '../../src/cli/backtest-command.js';
import { dec } from '../../src/core/index.js';
import { DEFAULT_PAIRS } from '../../src/sim/defaults.js';
import { recordXbt, sink, writePaperConfig } from '../lab/sweep/sweep-fixture.js';

interface FillLine {
  readonly side: string;
  readonly price: string;
  readonly volume: string;
  readonly fee: string;
}

/** The maker rung of the XBTUSD ladder at a 30-day volume. */
function makerPct(volumeUsd: number): number {
  const ladder = DEFAULT_PAIRS.find((p) => p.altname === 'XBTUSD')?.fees_maker ?? [];
  return ladder.filter(([threshold]) => threshold <= volumeUsd).at(-1)?.[1] ?? NaN;
}

describe('backtest overrides', () => {
  let dir: string;
  let config: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'makerd-overrides-'));
    await recordXbt(join(dir, 'rec'));
    config = writePaperConfig(dir).file;
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  async function run(flags: Record<string, string>, name: string) {
    const out = sink();
    const outDir = join(dir, name);
    const result = await runBacktestCommand(
      { data: join(dir, 'rec'), config, out: outDir, latencyMs: '5', ...flags },
      { out, err: sink() },
    );
    const fills = readFileSync(join(outDir, 'fills.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as FillLine);
    return { result, fills, summary: out.text() };
  }

  it('--maker-fee 0 --taker-fee 0.4: maker fills cost nothing, and the bot knows it', async () => {
    const { result, fills, summary } = await run({ makerFee: '0', takerFee: '0.4' }, 'zero');
    assert.match(
      summary,
      /^fees at the start: XBTUSD maker 0 %, taker 0\.4 % \(30-day volume 0 USD\)/m,
    );
    assert.ok(fills.length > 0, 'the bot traded');
    // Every quote is post-only: every fill is a maker fill.
    assert.deepEqual(
      fills.filter((f) => !dec(f.fee).isZero()),
      [],
      'no fill paid a fee',
    );
    assert.equal(result.pairs[0]?.pnl.fees, '0');
  });

  it('--fee-volume places the key on the ladder: fills pay that rung', async () => {
    const volume = 1_000_000;
    const pct = makerPct(volume);
    assert.ok(pct < makerPct(0), 'a lower rung than the first');
    const { fills, summary } = await run({ feeVolume: String(volume) }, 'volume');
    assert.match(
      summary,
      new RegExp(`XBTUSD maker ${pct} %, taker [0-9.]+ % \\(30-day volume ${volume} USD\\)`),
    );
    assert.ok(fills.length > 0, 'the bot traded');
    for (const f of fills) {
      const rate = dec(pct).div(100);
      assert.ok(
        dec(f.fee).eq(dec(f.price).times(f.volume).times(rate)),
        `fee ${f.fee} = ${f.price} x ${f.volume} x ${rate.toFixed()}`,
      );
    }
  });

  it('--queue-rule: a rule the estimator knows is replayed, another refused before any run', async () => {
    const { summary } = await run({ queueRule: 'power:2' }, 'power');
    assert.match(summary, /; queue rule power:2(;|$)/m);
    await assert.rejects(run({ queueRule: 'cube' }, 'cube'), {
      message:
        '--queue-rule: "cube" is not a queue rule; use linear, log, risk-averse, power or power:N (0 < N <= 10)',
    });
    await assert.rejects(run({ makerFee: '101' }, 'bad-fee'), {
      message: '--maker-fee: must be a percent from 0 to 100, got 101',
    });
  });
});
