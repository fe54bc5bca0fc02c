import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { runBacktestCommand } from '../../../src/cli/backtest-command.js';
import { runBacktest } from '../../../src/cli/backtest-run.js';
import { builtInStrategies, loadSettings } from '../../../src/cli/role-command.js';
import type { RecordedRow } from '../../../src/lab/recording/format.js';
import { silentLogger } from '../../../src/obs/index.js';
import { REDIS_URL, freshPrefix } from '../../support/redis.js';
import { fromArray, synthesiseRecording, writeRecording } from './synth-recording.js';

const START_MS = Date.UTC(2026, 10, 1);

/** The paper config with one pair, this test's Redis and a fresh prefix. */
function writeConfig(dir: string, pair: string): string {
  const paper = readFileSync(new URL('../../../config/paper.yaml', import.meta.url), 'utf8');
  const text = paper
    .replace(
      /^redis:\n {2}url: .*\n {2}prefix: .*$/m,
      `redis:\n  url: ${REDIS_URL}\n  prefix: ${freshPrefix()}`,
    )
    .replace(/^ {2}- pair: ETHUSD[\s\S]*?(?=^market:)/m, '')
    .replace('- pair: XBTUSD', `- pair: ${pair}`)
    .replace(
      'sim_config: sim.yaml',
      `sim_config: ${new URL('../../../config/sim.yaml', import.meta.url).pathname}`,
    );
  const file = join(dir, `${pair}.yaml`);
  writeFileSync(file, text);
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
    const fills = first.pairs[0]?.trades ?? [];
    assert.ok(fills.length > 0, 'the bot traded');
    assert.deepEqual(second.pairs[0]?.trades, fills);
    assert.equal(second.pairs[0]?.pnl, first.pairs[0]?.pnl);
  });

  it('prints the summary and writes report.json', async () => {
    const out = sink();
    const err = sink();
    const outDir = join(dir, 'out');
    const result = await runBacktestCommand(
      { data: join(dir, 'rec'), config: writeConfig(dir, 'XBTUSD'), out: outDir },
      { out, err },
    );
    const summary = out.text();
    const fills = result.pairs[0]?.fills ?? 0;
    assert.match(
      summary,
      /^pair\s+fills\s+volume\s+notional\s+fees\s+pnl\s+ratecount max\s+refusals/m,
    );
    assert.match(summary, new RegExp(`^XBTUSD\\s+${fills}\\s`, 'm'));
    assert.match(err.text(), /backtest: .*x real time, ETA/);
    const report = JSON.parse(readFileSync(join(outDir, 'report.json'), 'utf8')) as {
      pairs: { pair: string; fills: number }[];
    };
    assert.deepEqual(
      report.pairs.map((p) => [p.pair, p.fills]),
      [['XBTUSD', fills]],
    );
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
      { message: '--data: the recording is empty (no rows)' },
    );
  });
});
