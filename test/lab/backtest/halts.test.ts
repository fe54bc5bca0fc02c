import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runBacktest, type BacktestResult } from '../../../src/lab/backtest-run.js';
import { builtInStrategies } from '../../../src/daemon/package-file.js';
import { loadSettings } from '../../../src/daemon/settings-file.js';
import type { RecordedRow } from '../../../src/recording/format.js';
import { silentLogger } from '../../../src/obs/index.js';
import { paperConfigText } from '../../support/paper-config.js';
import { fromArray, synthesiseRecording } from '../replay/synth-recording.js';

const START_MS = Date.UTC(2026, 10, 1);
const OVERSIZE_MS = START_MS + 90_000;
const OVERSIZE = fileURLToPath(new URL('./fixtures/oversize-later.ts', import.meta.url));

describe('backtest: a halt', () => {
  let dir: string;
  let rows: RecordedRow[];
  let result: BacktestResult;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'makerd-halt-'));
    rows = await synthesiseRecording({ pairs: ['XBTUSD'], startMs: START_MS, durationMs: 240_000 });
    const file = join(dir, 'halt.yaml');
    const strategy = [
      '    strategy:',
      `      name: ${OVERSIZE}`,
      `      options: { min_spread_bps: 20, levels: 2, order_size: '0.01', fee_floor: false, oversize_from_ms: ${OVERSIZE_MS} }`,
    ];
    writeFileSync(file, paperConfigText({ pair: 'XBTUSD', strategy }).text);
    const { settings, dir: configDir } = loadSettings(file);
    result = await runBacktest({
      settings,
      configDir,
      rows: () => fromArray(rows),
      latencyMs: 5,
      log: silentLogger(),
      strategiesDir: builtInStrategies(),
    });
  });

  after(() => rmSync(dir, { recursive: true, force: true }));

  it('is listed with its reason, time and the orders its CancelAll took off', () => {
    const halts = result.watched.halts;
    assert.equal(halts.length, 1, JSON.stringify(halts));
    const [halt] = halts;
    assert.match(halt?.reason ?? '', /^risk: XBTUSD: .*max_order_notional/);
    assert.equal(halt?.by, 'runner');
    assert.ok((halt?.startMs ?? 0) >= OVERSIZE_MS, 'set when the quotes grew');
    assert.equal(halt?.endMs, null, 'still halted at the end');
    assert.ok(typeof halt?.cancelled === 'number' && halt.cancelled > 0, `${halt?.cancelled}`);
    assert.equal(result.watched.cancelAlls, 2, 'a CancelAll at once and the sweep after it');
  });

  it('leaves no order resting: nothing fills after it', () => {
    const startMs = result.watched.halts[0]?.startMs ?? 0;
    const ledger = result.pairs[0]?.ledger ?? [];
    assert.ok(
      ledger.some((t) => t.timeMs < startMs),
      'the bot traded before the halt',
    );
    // One round trip for the CancelAll to arrive; the recording goes on for 150 s after.
    const late = ledger.filter((t) => t.timeMs > startMs + 100);
    assert.deepEqual(late, [], 'fills after the halt');
  });
});
