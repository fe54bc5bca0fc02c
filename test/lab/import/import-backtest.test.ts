import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { runBacktestCommand } from '../../../src/cli/backtest-command.js';
import { runImportTardis } from '../../../src/cli/import-command.js';
import { importTardis, type ImportProgress } from '../../../src/lab/import/index.js';
import { paperConfigText } from '../../support/paper-config.js';
import { tempDir } from '../../recording/helpers.js';
import {
  INCREMENTAL_HEADER,
  T0_US,
  TRADES_HEADER,
  marketFiles,
  writeCsv,
} from './tardis-fixture.js';

function sink(): NodeJS.WriteStream & { text(): string } {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
  return Object.assign(stream as unknown as NodeJS.WriteStream, { text: () => text });
}

const T0_MS = T0_US / 1000;

void describe('an imported Tardis file, backtested', () => {
  let dir: string;
  let remove: () => void;

  before(() => {
    ({ dir, remove } = tempDir());
    const { book, trades } = marketFiles(3);
    writeCsv(join(dir, 'book.csv.gz'), INCREMENTAL_HEADER, book, true);
    writeCsv(join(dir, 'trades.csv'), TRADES_HEADER, trades);
  });

  after(() => remove());

  void it('replays every book change and fills our bids at the prints that crossed them', async () => {
    const out = sink();
    const rec = join(dir, 'rec');
    await runImportTardis(
      {
        book: join(dir, 'book.csv.gz'),
        trades: join(dir, 'trades.csv'),
        pair: 'XBTUSD',
        out: rec,
      },
      { out, err: sink() },
    );
    assert.match(out.text(), /^imported kraken XBT\/USD as XBTUSD, 2026-01-01T00:00:00/m);
    assert.match(
      out.text(),
      /fitted to XBTUSD's rules: 2 prices off the tick rounded outward, 0 crossed levels removed/,
    );
    assert.match(out.text(), new RegExp(`replay it: makerd backtest --data ${rec} `));

    const config = join(dir, 'xbt.yaml');
    writeFileSync(config, paperConfigText({ pair: 'XBTUSD' }).text);
    const outDir = join(dir, 'report');
    const printed = sink();
    const result = await runBacktestCommand(
      { data: rec, config, out: outDir },
      { out: printed, err: sink() },
    );
    // What the import changed is in the summary and the report.
    assert.match(
      printed.text(),
      /^imported from tardis \(kraken XBT\/USD as XBTUSD\): \d+ book changes, \d+ trades; fitted/m,
    );
    const report = JSON.parse(readFileSync(join(outDir, 'report.json'), 'utf8')) as {
      run: { imported?: { bookUpdates: number } };
    };
    assert.equal(report.run.imported?.bookUpdates, result.market.bookUpdates);
    // The engine's book followed every change, not poll answers.
    assert.equal(result.market.depthUpdates, 0);
    assert.ok(result.market.bookUpdates > 500, `${result.market.bookUpdates} book changes`);

    // Every 20 s from 10 s on, a sell swept the bids to 120 below the mid (60000, then 60010
    // from the snapshot at 60 s): each fill of ours is a bid the bot priced off the imported
    // book (below its best bid, mid − 0.1) that such a print went through, at the print's time.
    const fills = readFileSync(join(outDir, 'fills.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { tMs: number; side: string; price: string });
    assert.ok(fills.length >= 3, `${fills.length} fills`);
    for (const f of fills) {
      const atS = (f.tMs - T0_MS) / 1000;
      const mid = atS < 60 ? 60000 : 60010;
      assert.equal(f.side, 'buy');
      assert.equal((atS - 10) % 20, 0, `a fill at ${atS} s, not at a sweep`);
      assert.ok(
        Number(f.price) >= mid - 120 && Number(f.price) < mid - 0.1,
        `${f.price} at ${atS} s`,
      );
    }
  });

  void it('tells its progress in rows a second', async () => {
    const seen: ImportProgress[] = [];
    await importTardis({
      book: join(dir, 'book.csv.gz'),
      trades: join(dir, 'trades.csv'),
      pair: 'XBTUSD',
      out: join(dir, 'rec-progress'),
      onProgress: (p) => seen.push(p),
      progressEveryMs: 0,
    });
    assert.equal(seen[0]?.rows, 1000);
    assert.ok((seen[0]?.rowsPerSec ?? 0) > 0);
    assert.ok((seen[0]?.share ?? 0) > 0 && (seen[0]?.share ?? 0) <= 1);
  });
});
