import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runBacktest, type StoreKind } from '../../../src/lab/backtest-run.js';
import { builtInStrategies } from '../../../src/daemon/package-file.js';
import { loadSettings } from '../../../src/daemon/settings-file.js';
import type { RecordedRow } from '../../../src/recording/format.js';
import { silentLogger } from '../../../src/obs/index.js';
import { BOTH_PAIRS_TRADING, paperConfigText } from '../../support/paper-config.js';
import { fromArray, synthesiseRecording } from '../replay/synth-recording.js';

const START_MS = Date.UTC(2026, 10, 1);

describe('backtest: the stores in memory and in Redis', () => {
  let dir: string;
  let rows: RecordedRow[];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'makerd-store-kinds-'));
    rows = await synthesiseRecording({
      pairs: ['XBTUSD', 'ETHUSD'],
      startMs: START_MS,
      durationMs: 300_000,
    });
  });

  after(() => rmSync(dir, { recursive: true, force: true }));

  it('give the same executions on the replayed exchange, order for order', async () => {
    const file = join(dir, 'both.yaml');
    writeFileSync(file, paperConfigText({ pairs: BOTH_PAIRS_TRADING }).text);
    const { settings, dir: configDir } = loadSettings(file);
    const run = (stores: StoreKind) =>
      runBacktest({
        stores,
        settings,
        configDir,
        rows: () => fromArray(rows),
        latencyMs: 5,
        log: silentLogger(),
        strategiesDir: builtInStrategies(),
      });
    const memory = await run('memory');
    const redis = await run('redis');
    assert.equal(memory.stores, 'memory');
    assert.equal(memory.redisCommands, 0, 'the in-memory run sends nothing to Redis');
    assert.ok(redis.redisCommands > 0, 'the Redis run keeps its state there');
    for (const [i, p] of memory.pairs.entries()) {
      assert.ok(p.ledger.length > 10, `${p.pair} traded (${p.ledger.length} executions)`);
      assert.deepEqual(p.ledger, redis.pairs[i]?.ledger, `${p.pair}: the same executions`);
      assert.deepEqual(p.pnl, redis.pairs[i]?.pnl, `${p.pair}: the same PnL`);
    }
  });
});
