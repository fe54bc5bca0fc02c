/**
 * glft end to end: a backtest of a few simulated minutes of the simulator's default flow, through
 * the live runner, risk gate, executor and rate-limit models (src/lab/backtest-run.ts).
 */
import { paperConfigText } from '../support/paper-config.js';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runBacktest } from '../../src/lab/backtest-run.js';
import { builtInStrategies } from '../../src/daemon/package-file.js';
import { loadSettings } from '../../src/daemon/settings-file.js';
import type { RecordedRow } from '../../src/recording/format.js';
import { silentLogger } from '../../src/obs/index.js';
import { fromArray, synthesiseRecording } from '../lab/replay/synth-recording.js';

const START_MS = Date.UTC(2026, 10, 1);
const MINUTES = 8;

/** config/paper.yaml with XBTUSD alone, quoted by glft around the paper account's 2 XBT. */
function writeConfig(dir: string): string {
  const { text } = paperConfigText({
    strategy: [
      '    strategy:',
      '      name: glft',
      "      options: { order_size: '0.01', target_base: '2', max_position: '0.1' }",
    ],
  });
  const file = join(dir, 'glft.yaml');
  writeFileSync(file, text);
  return file;
}

describe('glft on the simulator', () => {
  let dir: string;
  let rows: RecordedRow[];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'makerd-glft-'));
    rows = await synthesiseRecording({
      pairs: ['XBTUSD'],
      startMs: START_MS,
      durationMs: MINUTES * 60_000,
    });
  });

  after(() => rmSync(dir, { recursive: true, force: true }));

  it('trades, after the fit too, without a rate-limit refusal', async () => {
    const { settings, dir: configDir } = loadSettings(writeConfig(dir));
    const result = await runBacktest({
      settings,
      configDir,
      rows: () => fromArray(rows),
      latencyMs: 5,
      log: silentLogger(),
      strategiesDir: builtInStrategies(),
    });
    const pair = result.pairs[0];
    assert.equal(pair?.pair, 'XBTUSD');
    const fills = result.reports[0]?.fills ?? [];
    assert.ok(pair.fills > 0, 'glft traded');
    // The fit needs min_trades (100) arrivals: about 2.5 minutes of this flow.
    assert.ok(
      fills.some((f) => f.tMs > START_MS + 4 * 60_000),
      `a fill after 4 minutes: ${fills.map((f) => f.tMs - START_MS).join(', ')}`,
    );
    const limited = Object.keys(pair.refusals).filter((r) => /rate limit/i.test(r));
    assert.deepEqual(limited, [], JSON.stringify(pair.refusals));
    assert.equal(result.stepErrors, 0);
  });
});
