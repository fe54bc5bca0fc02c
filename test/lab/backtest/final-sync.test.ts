import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runBacktest } from '../../../src/lab/backtest-run.js';
import { builtInStrategies } from '../../../src/daemon/package-file.js';
import { loadSettings } from '../../../src/daemon/settings-file.js';
import { dec } from '../../../src/core/index.js';
import type { RecordedRow } from '../../../src/recording/format.js';
import { silentLogger } from '../../../src/obs/index.js';
import { BOTH_PAIRS_TRADING, paperConfigText } from '../../support/paper-config.js';
import { fromArray, synthesiseRecording } from '../replay/synth-recording.js';

const START_MS = Date.UTC(2026, 10, 1);

describe('backtest: the last fills', () => {
  let dir: string;
  let rows: RecordedRow[];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'makerd-final-sync-'));
    rows = await synthesiseRecording({
      pairs: ['XBTUSD', 'ETHUSD'],
      startMs: START_MS,
      durationMs: 120_000,
    });
  });

  after(() => rmSync(dir, { recursive: true, force: true }));

  it('reports every fill the replayed exchange booked for our key, and its position', async () => {
    const file = join(dir, 'both.yaml');
    writeFileSync(file, paperConfigText({ pairs: BOTH_PAIRS_TRADING }).text);
    const { settings, dir: configDir } = loadSettings(file);
    const result = await runBacktest({
      settings,
      configDir,
      rows: () => fromArray(rows),
      latencyMs: 5,
      log: silentLogger(),
      strategiesDir: builtInStrategies(),
    });
    for (const p of result.pairs) {
      assert.ok(p.ledger.length > 0, `${p.pair} traded`);
      const net = p.ledger.reduce(
        (sum, t) => (t.side === 'buy' ? sum.plus(t.volume) : sum.minus(t.volume)),
        dec(0),
      );
      const volume = p.ledger.reduce((sum, t) => sum.plus(t.volume), dec(0));
      // The bot sees an order's executed volume, so two executions between two of its looks are
      // one fill to it: the volume and the position are what must agree, not the count.
      assert.equal(p.volume, volume.toFixed(), `${p.pair}: volume against the exchange's`);
      assert.equal(p.position, net.toFixed(), `${p.pair}: end position against the exchange's`);
      assert.ok(p.fills <= p.ledger.length, `${p.pair}: ${p.fills} fills`);
    }
  });
});
