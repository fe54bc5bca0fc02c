import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runBacktestCommand } from '../../../src/cli/backtest-command.js';
import type { RecordedRow } from '../../../src/recording/format.js';
import type { BacktestReport } from '../../../src/lab/report/index.js';
import { BOTH_PAIRS_TRADING, paperConfigText } from '../../support/paper-config.js';
import { synthesiseRecording, writeRecording } from '../replay/synth-recording.js';

const START_MS = Date.UTC(2026, 10, 1);
const THROWS = fileURLToPath(new URL('./fixtures/throws.ts', import.meta.url));

function sink(): NodeJS.WriteStream & { text(): string } {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
  return Object.assign(stream as unknown as NodeJS.WriteStream, { text: () => text });
}

function readReport(dir: string): BacktestReport {
  return JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as BacktestReport;
}

describe('backtest: data problems and strategy errors', () => {
  let dir: string;
  let rows: RecordedRow[];
  let config: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'makerd-data-problems-'));
    rows = await synthesiseRecording({
      pairs: ['XBTUSD', 'ETHUSD'],
      startMs: START_MS,
      durationMs: 180_000,
    });
    config = join(dir, 'both.yaml');
    writeFileSync(config, paperConfigText({ pairs: BOTH_PAIRS_TRADING }).text);
  });

  after(() => rmSync(dir, { recursive: true, force: true }));

  it('lists recorded levels the engine refused and a pair whose data ends early, and fails', async () => {
    const changed = rows
      // ETHUSD's rows stop after a minute; XBTUSD's go on for two more.
      .filter((r) => r.pair !== 'ETHUSD' || r.receivedMs < START_MS + 60_000)
      // Some XBTUSD Depth answers with an ask off the 0.1 tick.
      .map((r) =>
        r.pair === 'XBTUSD' && r.endpoint === 'Depth' && r.receivedMs > START_MS + 30_000
          ? { ...r, body: r.body?.replace(/"asks":\[\["(\d+\.\d)"/, '"asks":[["$15"') }
          : r,
      );
    writeRecording(join(dir, 'bad'), changed);
    const out = sink();
    const err = sink();
    const outDir = join(dir, 'out-bad');
    await assert.rejects(
      runBacktestCommand({ data: join(dir, 'bad'), config, out: outDir }, { out, err }),
      { message: /^backtest: 2 data problem\(s\), more than --max-data-problems 0: / },
    );
    const problems = readReport(outDir).run.problems;
    assert.deepEqual(
      problems.map((p) => [p.kind, p.pair]),
      [
        ['ends-early', 'ETHUSD'],
        ['refused-levels', 'XBTUSD'],
      ],
    );
    for (const p of problems) {
      assert.equal(err.text().split(`backtest: ${p.text}\n`).length, 2, `printed once: ${p.text}`);
    }
    assert.match(
      problems[0]?.text ?? '',
      /^ETHUSD: the data ends at .*, 2\.0 min before the run's end/,
    );
    assert.match(problems[1]?.text ?? '', /^XBTUSD: \d+ recorded order\(s\) the engine refused/);
    assert.match(out.text(), /^2 problem\(s\) in the recording, listed in the report$/m);

    // Accepted with --max-data-problems 2: the same report, exit 0.
    await runBacktestCommand(
      { data: join(dir, 'bad'), config, out: outDir, force: true, maxDataProblems: '2' },
      { out: sink(), err: sink() },
    );
  });

  it('reports a file cut short once, with one row count', async () => {
    writeRecording(join(dir, 'cut'), rows);
    const folder = join(dir, 'cut', 'XBTUSD');
    const file = join(folder, readdirSync(folder)[0] as string);
    const bytes = readFileSync(file);
    writeFileSync(file, bytes.subarray(0, bytes.length >> 1));
    const err = sink();
    const outDir = join(dir, 'out-cut');
    await runBacktestCommand(
      { data: join(dir, 'cut'), config, out: outDir, maxDataProblems: '5' },
      { out: sink(), err },
    );
    const printed = err.text().match(/cut short after \d+ rows/g);
    assert.equal(printed?.length, 1, err.text());
    assert.deepEqual(
      readReport(outDir)
        .run.problems.filter((p) => p.kind === 'truncated')
        .map((p) => p.text),
      [err.text().match(/^backtest: (.*cut short after \d+ rows.*)$/m)?.[1]],
    );
  });

  it('counts a strategy that throws on every tick and fails; log lines carry replay time', async () => {
    writeRecording(join(dir, 'rec'), rows);
    const strategy = ['    strategy:', `      name: ${THROWS}`];
    const file = join(dir, 'throws.yaml');
    writeFileSync(file, paperConfigText({ pair: 'XBTUSD', strategy }).text);
    const out = sink();
    const err = sink();
    const outDir = join(dir, 'out-throws');
    await assert.rejects(
      runBacktestCommand({ data: join(dir, 'rec'), config: file, out: outDir }, { out, err }),
      {
        message: /^backtest: the strategy threw on every tick of XBTUSD \(\d+\): the log says why$/,
      },
    );
    const report = readReport(outDir);
    const errors = report.pairs[0]?.summary.strategy.errors ?? 0;
    assert.ok(errors > 0);
    assert.equal(report.pairs[0]?.summary.strategy.ticks, errors);
    assert.equal(report.run.strategyErrors, errors);
    assert.match(
      out.text(),
      new RegExp(`^${errors} strategy error\\(s\\): ticks whose quote\\(\\) threw$`, 'm'),
    );
    const logged = err
      .text()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { msg: string; time: string });
    const threw = logged.filter((l) => l.msg === 'strategy quote() threw; pulling its quotes');
    assert.ok(threw.length > 0, 'the errors are logged');
    for (const l of threw) {
      const ms = Date.parse(l.time);
      assert.ok(ms >= START_MS && ms <= START_MS + 180_000, `${l.time}: the replay's time`);
    }
  });
});
