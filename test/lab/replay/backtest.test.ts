import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { runBacktestCommand } from '../../../src/cli/backtest-command.js';
import { runBacktest } from '../../../src/lab/backtest-run.js';
import { builtInStrategies } from '../../../src/daemon/package-file.js';
import { loadSettings } from '../../../src/daemon/settings-file.js';
import { dec } from '../../../src/core/index.js';
import type { RecordedRow } from '../../../src/recording/format.js';
import type { BacktestReport } from '../../../src/lab/report/index.js';
import { silentLogger } from '../../../src/obs/index.js';
import { paperConfigText } from '../../support/paper-config.js';
import { fromArray, synthesiseRecording, writeRecording } from './synth-recording.js';

const START_MS = Date.UTC(2026, 10, 1);

/** The paper config with one pair quoted by a spread that trades often, and a fresh prefix. */
function writeConfig(dir: string, pair: string): string {
  const file = join(dir, `${pair}.yaml`);
  writeFileSync(file, paperConfigText({ pair }).text);
  return file;
}

function sink(): NodeJS.WriteStream & { text(): string } {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
  return Object.assign(stream as unknown as NodeJS.WriteStream, { text: () => text });
}

describe('backtest', () => {
  let dir: string;
  let rows: RecordedRow[];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'makerd-backtest-'));
    rows = await synthesiseRecording({ pairs: ['XBTUSD'], startMs: START_MS, durationMs: 90_000 });
    writeRecording(join(dir, 'rec'), rows);
  });

  after(() => rmSync(dir, { recursive: true, force: true }));

  it('gives the same fills twice for the same recording and config', async () => {
    const { settings, dir: configDir } = loadSettings(writeConfig(dir, 'XBTUSD'));
    const run = () =>
      runBacktest({
        settings,
        configDir,
        rows: () => fromArray(rows),
        latencyMs: 5,
        log: silentLogger(),
        strategiesDir: builtInStrategies(),
      });
    const first = await run();
    const second = await run();
    const fills = first.reports[0]?.fills ?? [];
    assert.ok(fills.length > 0, 'the bot traded');
    assert.deepEqual(second.reports[0]?.fills, fills);
    assert.deepEqual(second.pairs[0]?.pnl, first.pairs[0]?.pnl);
  });

  it('prints the summary with the PnL split and writes the report', async () => {
    const out = sink();
    const err = sink();
    const outDir = join(dir, 'out');
    const result = await runBacktestCommand(
      { data: join(dir, 'rec'), config: writeConfig(dir, 'XBTUSD'), out: outDir },
      { out, err },
    );
    const summary = out.text();
    const pnl = result.pairs[0]?.pnl;
    assert.ok(pnl !== undefined);
    assert.match(
      summary,
      /^pair\s+fills\s+volume\s+notional\s+spread\s+inventory\s+fees\s+pnl\s+ratecount max\s+refusals/m,
    );
    const fills = result.pairs[0]?.fills ?? 0;
    const cells = [fills, '[0-9.]+', '[0-9.]+', pnl.spread, pnl.inventory, pnl.fees, pnl.total]
      .map((c) => (typeof c === 'string' && /^-?\d/.test(c) ? Number(c).toFixed(2) : String(c)))
      .join('\\s+');
    assert.match(summary, new RegExp(`^XBTUSD\\s+${cells}\\s`, 'm'));
    assert.ok(
      dec(pnl.total).eq(dec(pnl.spread).plus(pnl.inventory).minus(pnl.fees)),
      `${pnl.total} = ${pnl.spread} + ${pnl.inventory} - ${pnl.fees}`,
    );
    assert.match(err.text(), /backtest: .*x real time, ETA/);
    // synth-recording.ts answers every call 20 ms after it is asked: the replay's latency.
    assert.match(summary, /latency 20 ms a call \(the recording's median round trip\)/);
    const report = JSON.parse(readFileSync(join(outDir, 'report.json'), 'utf8')) as BacktestReport;
    const pair = report.pairs[0];
    assert.equal(pair?.pair, 'XBTUSD');
    assert.equal(pair.summary.fills, fills);
    assert.equal(pair.fills.length, fills, 'every fill is listed, pending markouts too');
    const lines = readFileSync(join(outDir, 'fills.jsonl'), 'utf8').trim().split('\n');
    const listed = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.equal(listed.length, fills, 'fills.jsonl has every fill');
    assert.deepEqual(
      listed.map((f) => [f.tMs, f.side, f.price, f.volume, f.fee]),
      pair.fills.map((f) => [f.tMs, f.side, f.price, f.volume, f.fee]),
    );
    // A fill within the run's last minute ends with its 1 min markout pending (null); one well
    // before it has it.
    const endMs = pair.series.tMs.at(-1) ?? 0;
    for (const f of listed as { tMs: number; markouts: { value: string | null }[] }[]) {
      const minute = f.markouts.at(-1)?.value;
      if (f.tMs + 60_000 > endMs + 2_000) assert.equal(minute, null, `fill at ${f.tMs}`);
      if (f.tMs + 60_000 < endMs - 2_000) assert.notEqual(minute, null, `fill at ${f.tMs}`);
    }
    assert.ok(
      listed.every((f) => dec(f.spread as string).isFinite() && typeof f.mid === 'string'),
      'each fill carries its mid and spread',
    );
    assert.deepEqual(pair.summary.pnl, pnl);
    assert.ok(pair.series.tMs.length >= 60, `${pair.series.tMs.length} chart points for 90 s`);
    assert.equal(pair.series.pnlTotal.at(-1), Number(pnl.total), 'the chart ends at the total');
    assert.deepEqual(pair.markouts.horizonsMs, [1_000, 10_000, 60_000]);
    // The live queue estimator was checked against the replayed exchange's exact queue.
    assert.ok((pair.queue?.samples ?? 0) > 0, 'queue estimates were compared');
    assert.ok(Number.isFinite(pair.queue?.meanPercent), 'with a mean error');
    assert.ok(pair.summary.ratecount.max > 0, 'the ratecount model was read on the replay clock');
    assert.deepEqual(report.run.problems, []);
    assert.match(readFileSync(join(outDir, 'report.html'), 'utf8'), /<canvas|uPlot/);
  });

  it('prints a gap in the recording as it meets it, lists it in the report and fails', async () => {
    const holed = rows.filter(
      (r) =>
        !(
          r.endpoint === 'Depth' &&
          r.receivedMs > START_MS + 30_000 &&
          r.receivedMs < START_MS + 50_000
        ),
    );
    writeRecording(join(dir, 'holed'), holed);
    const out = sink();
    const err = sink();
    const outDir = join(dir, 'out-holed');
    // A data problem fails the run by default (--max-data-problems 0), after the report is written.
    await assert.rejects(
      runBacktestCommand(
        { data: join(dir, 'holed'), config: writeConfig(dir, 'XBTUSD'), out: outDir },
        { out, err },
      ),
      {
        message:
          'backtest: 1 data problem(s), more than --max-data-problems 0: the report is written and lists them, but its figures rest on that data',
      },
    );
    const line =
      /^backtest: (XBTUSD: no Depth answer from .* more than 3x its 1500 ms interval\))$/m;
    const printed = line.exec(err.text())?.[1];
    assert.ok(printed !== undefined, err.text());
    const report = JSON.parse(readFileSync(join(outDir, 'report.json'), 'utf8')) as BacktestReport;
    assert.deepEqual(
      report.run.problems.map((p) => [p.kind, p.pair, p.text]),
      [['gap', 'XBTUSD', printed]],
    );
    assert.match(out.text(), /^1 problem\(s\) in the recording, listed in the report$/m);
  });

  it('refuses a config pair the recording lacks, naming the pairs it holds', async () => {
    await assert.rejects(
      runBacktestCommand(
        { data: join(dir, 'rec'), config: writeConfig(dir, 'ETHUSD'), out: join(dir, 'x') },
        { out: sink(), err: sink() },
      ),
      { message: 'pairs[0].pair: ETHUSD is not in the recording (it holds XBTUSD)' },
    );
  });

  it('refuses an empty recording', async () => {
    const empty = mkdtempSync(join(dir, 'empty-'));
    await assert.rejects(
      runBacktestCommand(
        { data: empty, config: writeConfig(dir, 'XBTUSD') },
        { out: sink(), err: sink() },
      ),
      { message: `--data: ${empty} holds no recording (no pair folder of .jsonl.gz files)` },
    );
  });

  it('refuses an --out it cannot write before replaying', async () => {
    const file = join(dir, 'a-file');
    writeFileSync(file, '');
    const out = join(file, 'report');
    const err = sink();
    await assert.rejects(
      runBacktestCommand(
        { data: join(dir, 'rec'), config: writeConfig(dir, 'XBTUSD'), out },
        { out: sink(), err },
      ),
      { message: `--out: ${out}: ENOTDIR` },
    );
    assert.doesNotMatch(err.text(), /real time/, 'no replay ran');
  });
});
