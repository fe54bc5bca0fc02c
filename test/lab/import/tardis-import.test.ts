import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, it } from 'node:test';
import { importTardis } from '../../../src/lab/import/index.js';
import {
  RecordingReader,
  readImportSummary,
  type RecordedRow,
} from '../../../src/recording/index.js';
import { collect, tempDir } from '../../recording/helpers.js';
import {
  INCREMENTAL_HEADER,
  T0_US,
  TRADES_HEADER,
  bookRow,
  snapshotHeader,
  snapshotRow,
  tradeRow,
  writeCsv,
} from './tardis-fixture.js';

const cleanup: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanup.splice(0)) c();
});

function folder(): string {
  const t = tempDir();
  cleanup.push(t.remove);
  return t.dir;
}

const ms = (n: number): number => T0_US + n * 1000;

interface Update {
  readonly atMs: number;
  readonly snapshot: boolean;
  readonly bids: [string, string][];
  readonly asks: [string, string][];
}

function updates(rows: readonly RecordedRow[]): Update[] {
  return rows
    .filter((r) => r.endpoint === 'BookUpdate')
    .map((r) => ({ atMs: r.receivedMs, ...(JSON.parse(r.body ?? '') as Omit<Update, 'atMs'>) }));
}

/** The book the BookUpdate rows describe, as the replay applies them: price -> volume. */
function bookOf(rows: readonly RecordedRow[]): { bids: string[]; asks: string[] } {
  const bids = new Map<string, string>();
  const asks = new Map<string, string>();
  for (const u of updates(rows)) {
    if (u.snapshot) {
      bids.clear();
      asks.clear();
    }
    for (const [side, levels] of [
      [bids, u.bids],
      [asks, u.asks],
    ] as const) {
      for (const [price, volume] of levels) {
        if (Number(volume) === 0) side.delete(price);
        else side.set(price, volume);
      }
    }
  }
  const list = (m: Map<string, string>, dir: number) =>
    [...m].sort((a, b) => dir * (Number(b[0]) - Number(a[0]))).map(([p, v]) => `${p} ${v}`);
  return { bids: list(bids, 1), asks: list(asks, -1) };
}

async function importFiles(
  dir: string,
  book: { header: string; rows: string[]; gzip?: boolean },
  trades: string[],
  extra: { pair?: string; out?: string; force?: boolean; assetPairs?: string; depth?: number } = {},
) {
  const bookPath = join(dir, book.gzip === true ? 'book.csv.gz' : 'book.csv');
  const tradesPath = join(dir, 'trades.csv');
  writeCsv(bookPath, book.header, book.rows, book.gzip);
  writeCsv(tradesPath, TRADES_HEADER, trades);
  const out = extra.out ?? join(dir, 'rec');
  const result = await importTardis({
    book: bookPath,
    trades: tradesPath,
    pair: extra.pair ?? 'XBTUSD',
    out,
    ...(extra.force === undefined ? {} : { force: extra.force }),
    ...(extra.depth === undefined ? {} : { depth: extra.depth }),
    ...(extra.assetPairs === undefined ? {} : { assetPairs: extra.assetPairs }),
  });
  const rows = await collect(new RecordingReader(out).rows());
  return { result, rows, out };
}

void describe('makerd import tardis', () => {
  void it('rebuilds an incremental_book_L2 file: removals, a snapshot mid-file, prices off the tick', async () => {
    const dir = folder();
    const book = [
      // Buffered before the first snapshot: skipped.
      bookRow(ms(0), false, 'bid', '59000.0', '1'),
      bookRow(ms(1), true, 'bid', '60000.0', '1.5'),
      bookRow(ms(1), true, 'bid', '59999.5', '2'),
      // Off the 0.1 tick: the bid rounds down onto 59999.5 and merges with it.
      bookRow(ms(1), true, 'bid', '59999.55', '0.25'),
      bookRow(ms(1), true, 'ask', '60000.5', '1'),
      // The ask rounds up, a level of its own.
      bookRow(ms(1), true, 'ask', '60000.51', '0.5'),
      // One message: a level changes, one is removed.
      bookRow(ms(2), false, 'bid', '60000.0', '0.75'),
      bookRow(ms(2), false, 'ask', '60000.5', '0'),
      // The off-tick bid goes: its merged level drops back.
      bookRow(ms(3), false, 'bid', '59999.55', '0'),
      // A removal of a level never there changes nothing.
      bookRow(ms(4), false, 'ask', '60123.4', '0'),
      // A new snapshot (a reconnection) replaces the book.
      bookRow(ms(5), true, 'bid', '60010.0', '1'),
      bookRow(ms(5), true, 'ask', '60011.0', '2'),
      bookRow(ms(6), false, 'ask', '60011.5', '3'),
    ];
    const trades = [
      tradeRow(ms(2), 'a1', 'sell', '60000.0', '0.25'),
      // Off the tick: a buy rounds up (it took asks), a sell down.
      tradeRow(ms(6), 'a2', 'buy', '60011.05', '0.1'),
      tradeRow(ms(6), 'a3', 'sell', '60009.99', '0.1'),
      // Unknown side: at the best ask, a buy.
      tradeRow(ms(7), 'a4', 'unknown', '60011.0', '0.2'),
      // Unknown and inside the spread: skipped, counted.
      tradeRow(ms(7), 'a5', 'unknown', '60010.5', '0.2'),
    ];
    const { result, rows, out } = await importFiles(
      dir,
      { header: INCREMENTAL_HEADER, rows: book, gzip: true },
      trades,
    );

    const u = updates(rows);
    assert.deepEqual(u[0], {
      atMs: ms(1) / 1000,
      snapshot: true,
      bids: [
        ['60000', '1.5'],
        ['59999.5', '2.25'],
      ],
      asks: [
        ['60000.5', '1'],
        ['60000.6', '0.5'],
      ],
    });
    assert.deepEqual(u[1], {
      atMs: ms(2) / 1000,
      snapshot: false,
      bids: [['60000', '0.75']],
      asks: [['60000.5', '0']],
    });
    assert.deepEqual(u[2]?.bids, [['59999.5', '2']]);
    assert.equal(u[3]?.snapshot, true);
    assert.equal(u.length, 5, 'the removal of an unknown level wrote nothing');
    assert.deepEqual(bookOf(rows), { bids: ['60010 1'], asks: ['60011 2', '60011.5 3'] });

    // Each trade at its own time, before the book change of the same instant.
    const kinds = rows.map((r) => `${r.endpoint}@${r.receivedMs - ms(0) / 1000}`);
    assert.deepEqual(kinds.slice(0, 4), [
      'AssetPairs@1',
      'BookUpdate@1',
      'Trades@2',
      'BookUpdate@2',
    ]);
    const prints = rows
      .filter((r) => r.endpoint === 'Trades')
      .flatMap(
        (r) => (JSON.parse(r.body ?? '') as { result: { XXBTZUSD: unknown[][] } }).result.XXBTZUSD,
      );
    const sec = (n: number): number => Number((ms(n) / 1000 / 1000).toFixed(3));
    assert.deepEqual(prints, [
      ['60000.0', '0.25000000', sec(2), 's', 'l', '', 1],
      ['60011.1', '0.10000000', sec(6), 'b', 'l', '', 2],
      ['60009.9', '0.10000000', sec(6), 's', 'l', '', 3],
      ['60011.0', '0.20000000', sec(7), 'b', 'l', '', 4],
    ]);

    assert.deepEqual(result.fit, {
      offTick: 4,
      crossed: 0,
      beforeBook: 1,
      lotRounded: 0,
      tradesSideUnknown: 1,
      tradesBelowLot: 0,
    });
    assert.deepEqual(readImportSummary(out)?.fit, result.fit);
    assert.equal(result.exchange, 'kraken');
    assert.equal(result.symbol, 'XBT/USD');
    assert.equal(result.book.kind, 'incremental_book_L2');
    const rules = JSON.parse(rows[0]?.body ?? '') as {
      result: Record<string, { tick_size: string }>;
    };
    assert.equal(rules.result['XXBTZUSD']?.tick_size, '0.1');
  });

  void it('diffs book_snapshot_25 rows into the levels that changed', async () => {
    const dir = folder();
    const header = snapshotHeader(25);
    const book = [
      snapshotRow(
        ms(1),
        25,
        [
          ['60001.0', '1'],
          ['60002.0', '2'],
        ],
        [
          ['60000.0', '1'],
          ['59999.0', '3'],
        ],
      ),
      // The best bid grows, 60002 leaves the top levels, 60003 joins.
      snapshotRow(
        ms(2),
        25,
        [
          ['60001.0', '1'],
          ['60003.0', '4'],
        ],
        [
          ['60000.0', '2'],
          ['59999.0', '3'],
        ],
      ),
    ];
    const { result, rows } = await importFiles(dir, { header, rows: book }, [
      tradeRow(ms(3), '1', 'buy', '60001.0', '0.5'),
    ]);
    const u = updates(rows);
    assert.equal(u.length, 2);
    assert.equal(u[0]?.snapshot, true);
    assert.deepEqual(u[1], {
      atMs: ms(2) / 1000,
      snapshot: false,
      bids: [['60000', '2']],
      asks: [
        ['60002', '0'],
        ['60003', '4'],
      ],
    });
    assert.equal(result.book.kind, 'book_snapshot_25');
    assert.equal(result.tradesWritten, 1);
  });

  void it('writes the best --depth levels a side; a level removed brings the next one in', async () => {
    const dir = folder();
    const book = [
      ...['60000.0', '59999.0', '59998.0', '59997.0'].map((p) =>
        bookRow(ms(1), true, 'bid', p, '1'),
      ),
      bookRow(ms(1), true, 'ask', '60001.0', '1'),
      bookRow(ms(2), false, 'bid', '60000.0', '0'),
      // Below the window: kept, not written.
      bookRow(ms(3), false, 'bid', '59997.0', '5'),
    ];
    const { rows, result } = await importFiles(
      dir,
      { header: INCREMENTAL_HEADER, rows: book },
      [],
      {
        depth: 2,
      },
    );
    const u = updates(rows);
    assert.deepEqual(u[0]?.bids, [
      ['60000', '1'],
      ['59999', '1'],
    ]);
    assert.deepEqual(u[1]?.bids, [
      ['60000', '0'],
      ['59998', '1'],
    ]);
    assert.equal(u.length, 2, 'a change below the window writes nothing');
    assert.equal(result.book.depth, 2);
    await assert.rejects(
      importFiles(dir, { header: INCREMENTAL_HEADER, rows: book }, [], {
        depth: 0,
        out: join(dir, 'r0'),
      }),
      { message: '--depth: levels a side, 1 to 1000, got 0' },
    );
  });

  void it('removes a stale level an update crosses, and counts it', async () => {
    const dir = folder();
    const book = [
      bookRow(ms(1), true, 'bid', '60000.0', '1'),
      bookRow(ms(1), true, 'ask', '60001.0', '1'),
      bookRow(ms(1), true, 'ask', '60002.0', '1'),
      // A bid at 60001.5: the ask at 60001 must have gone (the feed never said so).
      bookRow(ms(2), false, 'bid', '60001.5', '1'),
    ];
    const { result, rows } = await importFiles(dir, { header: INCREMENTAL_HEADER, rows: book }, []);
    assert.deepEqual(bookOf(rows), { bids: ['60001.5 1', '60000 1'], asks: ['60002 1'] });
    assert.equal(result.fit.crossed, 1);
  });

  void it('refuses bad input in one line naming the flag', async () => {
    const dir = folder();
    const good = [bookRow(ms(1), true, 'bid', '60000.0', '1')];
    const refused = (promise: Promise<unknown>, message: string | RegExp) =>
      assert.rejects(promise, (err: Error) => {
        if (typeof message === 'string') assert.equal(err.message, message);
        else assert.match(err.message, message);
        return true;
      });
    await refused(
      importTardis({
        book: join(dir, 'missing.csv'),
        trades: join(dir, 'missing.csv'),
        pair: 'XBTUSD',
        out: join(dir, 'r0'),
      }),
      `--book: ${join(dir, 'missing.csv')}: ENOENT`,
    );
    await refused(
      importFiles(dir, { header: INCREMENTAL_HEADER.replace(',amount', ''), rows: good }, [], {
        out: join(dir, 'r1'),
      }),
      /^--book: .*book\.csv: the header has no column "amount" \(it has exchange,symbol,/,
    );
    await refused(
      importFiles(dir, { header: 'a,b,c', rows: ['1,2,3'] }, [], { out: join(dir, 'r2') }),
      /^--book: .*book\.csv is neither incremental_book_L2 \(no column "is_snapshot"\) nor book_snapshot_25/,
    );
    await refused(
      importFiles(
        dir,
        { header: INCREMENTAL_HEADER, rows: good },
        [tradeRow(ms(2), '1', 'buy', '3000.0', '1', 'ETH/USD')],
        { out: join(dir, 'r3') },
      ),
      /^--trades: .*trades\.csv line 2: symbol kraken ETH\/USD, but --book holds kraken XBT\/USD \(one symbol per import\)$/,
    );
    await refused(
      importFiles(
        dir,
        {
          header: INCREMENTAL_HEADER,
          rows: [...good, bookRow(ms(2), false, 'bid', '3000.0', '1', 'ETH/USD')],
        },
        [],
        { out: join(dir, 'r4') },
      ),
      /^--book: .*book\.csv line 3: symbol kraken ETH\/USD, but the file began with kraken XBT\/USD/,
    );
    await refused(
      importFiles(dir, { header: INCREMENTAL_HEADER, rows: good }, [], {
        pair: 'DOGEUSD',
        out: join(dir, 'r5'),
      }),
      '--pair: DOGEUSD is not a pair makerd knows the rules of (XBTUSD, ETHUSD, ETHXBT); give its AssetPairs answer with --asset-pairs FILE',
    );
    await refused(
      importFiles(
        dir,
        { header: INCREMENTAL_HEADER, rows: [bookRow(ms(1), true, 'bid', 'abc', '1')] },
        [],
        { out: join(dir, 'r6') },
      ),
      /^--book: .*book\.csv line 2: price "abc" is not a number$/,
    );
  });

  void it('refuses a non-empty --out unless --force, and --force replaces a recording only', async () => {
    const dir = folder();
    const book = {
      header: INCREMENTAL_HEADER,
      rows: [bookRow(ms(1), true, 'bid', '60000.0', '1')],
    };
    const out = join(dir, 'rec');
    await importFiles(dir, book, [], { out });
    await assert.rejects(importFiles(dir, book, [], { out }), {
      message: `--out: ${out} is not empty (--force replaces a recording there)`,
    });
    const { rows } = await importFiles(dir, book, [], { out, force: true });
    assert.equal(rows.length, 2);
    writeFileSync(join(out, 'notes.txt'), 'mine');
    await assert.rejects(importFiles(dir, book, [], { out, force: true }), {
      message: `--out: ${out} holds notes.txt, which is not part of a recording: not replaced, even with --force`,
    });
    assert.equal(readFileSync(join(out, 'notes.txt'), 'utf8'), 'mine');
  });

  void it('takes the pair rules from an AssetPairs answer given with --asset-pairs', async () => {
    const dir = folder();
    const rules = join(dir, 'pairs.json');
    mkdirSync(dir, { recursive: true });
    const entry = {
      altname: 'XBTUSD',
      wsname: 'XBT/USD',
      base: 'XXBT',
      quote: 'ZUSD',
      pair_decimals: 0,
      lot_decimals: 4,
      cost_decimals: 5,
      ordermin: '0.0001',
      costmin: '0.5',
      tick_size: '5',
      fees: [[0, 0.4]],
      fees_maker: [[0, 0.25]],
    };
    writeFileSync(rules, JSON.stringify({ error: [], result: { XXBTZUSD: entry } }));
    const { rows, result } = await importFiles(
      dir,
      {
        header: INCREMENTAL_HEADER,
        rows: [
          bookRow(ms(1), true, 'bid', '60003.0', '1.23456'),
          bookRow(ms(1), true, 'ask', '60006.0', '1'),
        ],
      },
      [],
      { assetPairs: rules },
    );
    // On a 5 tick: the bid down to 60000, the ask up to 60010; volumes to 4 decimals.
    assert.deepEqual(bookOf(rows), { bids: ['60000 1.2346'], asks: ['60010 1'] });
    assert.equal(result.fit.offTick, 2);
    assert.equal(result.fit.lotRounded, 1);
    await assert.rejects(
      importFiles(dir, { header: INCREMENTAL_HEADER, rows: [] }, [], {
        pair: 'ETHUSD',
        assetPairs: rules,
        out: join(dir, 'r2'),
      }),
      { message: `--asset-pairs: ${rules} has no pair ETHUSD (it holds XBTUSD)` },
    );
  });
});
