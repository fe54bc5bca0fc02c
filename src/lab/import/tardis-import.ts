import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Decimal, InvalidInputError } from '../../core/index.js';
import { IMPORT_SUMMARY_FILE, type ImportSummary } from '../../recording/import-summary.js';
import type { RecordedRow } from '../../recording/format.js';
import { RecordingWriter, type RecordingStats } from '../../recording/recording-writer.js';
import { ReplayClock } from '../replay/replay-clock.js';
import { openCsv, type CsvFile, type CsvRow } from './csv-file.js';
import { ImportBook, type BookChange } from './import-book.js';
import { prepareOut } from './out-folder.js';
import { importPairRules, type ImportPair } from './pair-rules.js';
import { bookLayout, RowReader, tradesLayout, type BookLayout } from './tardis-format.js';

export interface TardisImportOptions {
  readonly book: string;
  readonly trades: string;
  /** The pair the recording holds the data as (altname, e.g. XBTUSD). */
  readonly pair: string;
  readonly out: string;
  /** An AssetPairs answer with the pair's rules; default the simulator's for a pair it knows. */
  readonly assetPairs?: string;
  /** The levels a side the recording holds, the best (default DEFAULT_DEPTH). */
  readonly depth?: number;
  /** Replace a recording already in `out`. */
  readonly force?: boolean;
  /** Told now and then (at most every `progressEveryMs` of wall time) how far the import is. */
  readonly onProgress?: (progress: ImportProgress) => void;
  readonly progressEveryMs?: number;
}

export interface ImportProgress {
  /** CSV rows read, both files. */
  readonly rows: number;
  readonly rowsPerSec: number;
  /** Share of the two files read (by bytes on disk), 0..1. */
  readonly share: number;
  /** The data's time reached (ms since the epoch). */
  readonly atMs: number;
}

export interface TardisImportResult extends ImportSummary {
  readonly files: RecordingStats;
  readonly wallMs: number;
}

/**
 * The levels a side an import writes by default: the bot's Depth polls ask for fewer, and a
 * feed's deep levels are often stale (some venues leave it to the client to drop levels beyond
 * its depth).
 */
export const DEFAULT_DEPTH = 100;
/** The replay spreads a side over 8 keys of 225 open orders each: room for this many levels. */
export const MAX_DEPTH = 1_000;

/** Flushed every so many rows: the gzip streams keep up (backpressure), memory stays flat. */
const FLUSH_EVERY_ROWS = 20_000;
/** The wall clock is looked at every so many rows, for the progress line. */
const PROGRESS_EVERY_ROWS = 1_000;

/**
 * `makerd import tardis`: a Tardis.dev book file (incremental_book_L2 or book_snapshot_25) and
 * trades file of one symbol, merged by local_timestamp, written as a makerd recording of `pair`
 * (docs/backtest.md, "Real history"): the book as BookUpdate rows, one per feed message (the
 * levels it changed, on the pair's tick), the trades as Trades answers at their own time, the
 * pair's rules as an AssetPairs answer at the start. On equal times trades go first: the book
 * change that follows a print then finds the volume the print took already gone. What was
 * changed to fit the pair is counted, printed and kept in DIR/import.json.
 */
export async function importTardis(o: TardisImportOptions): Promise<TardisImportResult> {
  const wallStart = performance.now();
  const depth = o.depth ?? DEFAULT_DEPTH;
  if (!Number.isInteger(depth) || depth < 1 || depth > MAX_DEPTH) {
    throw new InvalidInputError('--depth', `levels a side, 1 to ${MAX_DEPTH}, got ${o.depth}`);
  }
  const pair = await importPairRules(o.pair, o.assetPairs);
  const bookFile = await openCsv(o.book, '--book');
  const tradesFile = await openCsv(o.trades, '--trades');
  const layout = bookLayout(bookFile);
  const tradeCols = new RowReader(tradesFile, tradesLayout(tradesFile));
  await prepareOut(o.out, o.force === true);

  const bookRows = bookFile.rows;
  const tradeRows = tradesFile.rows;
  const source = new SourceCheck();
  const bookCols = new RowReader(bookFile, layout.columns);
  const book = new ImportBook({ tick: pair.tick, lotDecimals: pair.lotDecimals }, depth);
  // The recording starts at the data's first snapshot: what comes before has no book to act on.
  let nextBook = await pull(bookRows);
  let skippedBook = 0;
  while (
    layout.kind === 'incremental_book_L2' &&
    nextBook !== undefined &&
    bookCols.at(nextBook).text('is_snapshot') !== 'true'
  ) {
    source.see(bookCols, '--book');
    skippedBook += 1;
    nextBook = await pull(bookRows);
  }
  if (nextBook === undefined) {
    throw new InvalidInputError('--book', `${o.book}: no book snapshot in the file`);
  }
  source.see(bookCols.at(nextBook), '--book');
  const firstMs = bookCols.localMs();
  let nextTrade = await pull(tradeRows);
  let skippedTrades = 0;
  while (nextTrade !== undefined && tradeCols.at(nextTrade).localMs() < firstMs) {
    source.see(tradeCols, '--trades');
    skippedTrades += 1;
    nextTrade = await pull(tradeRows);
  }
  book.counts.beforeBook = skippedBook + skippedTrades;

  const writer = await RecordingWriter.open({
    dir: o.out,
    // Rows carry their own times; this clock only names the files and never moves.
    clock: new ReplayClock(firstMs),
    sessionStartMs: firstMs,
    intervalsMs: {},
    tier: 'imported',
  });
  const out = new RowOut(writer, pair);
  const apply = bookApplier(layout, bookCols, book);
  const trades = new TradeTaker(tradeCols, book, pair, out);
  out.assetPairs(firstMs);

  const progress = new ProgressClock(o, [bookFile, tradesFile], wallStart);
  let bookRead = skippedBook;
  let tradesRead = skippedTrades;
  let messageUs: string | undefined;
  let messageMs = firstMs;
  let lastMs = firstMs;
  const flushBook = (): void => {
    const change = book.takeChange();
    if (change !== undefined) out.book(messageMs, change);
    messageUs = undefined;
  };
  try {
    while (nextBook !== undefined || nextTrade !== undefined) {
      const b = nextBook === undefined ? undefined : bookCols.at(nextBook);
      const t = nextTrade === undefined ? undefined : tradeCols.at(nextTrade);
      const bookMs = b === undefined ? Infinity : b.localMs();
      const tradeMs = t === undefined ? Infinity : t.localMs();
      // Trades first on equal times (see above).
      if (t !== undefined && tradeMs <= bookMs) {
        source.see(t, '--trades');
        // A book message of an earlier instant is written before this trade.
        if (messageUs !== undefined && t.text('local_timestamp') !== messageUs) flushBook();
        lastMs = Math.max(lastMs, tradeMs);
        trades.take(lastMs);
        tradesRead++;
        nextTrade = await pull(tradeRows);
      } else if (b !== undefined) {
        source.see(b, '--book');
        const us = b.text('local_timestamp');
        // One feed message: the rows of one local_timestamp become one BookUpdate row.
        if (messageUs !== undefined && us !== messageUs) flushBook();
        out.flushTrades();
        lastMs = Math.max(lastMs, bookMs);
        messageUs = us;
        messageMs = lastMs;
        apply(b);
        bookRead++;
        nextBook = await pull(bookRows);
      }
      const read = bookRead + tradesRead;
      if (read % PROGRESS_EVERY_ROWS === 0) progress.tick(read, lastMs);
      if (read % FLUSH_EVERY_ROWS === 0) await writer.flush();
    }
    flushBook();
    out.flushTrades();
  } finally {
    await writer.close();
    await Promise.all([bookRows.return(undefined), tradeRows.return(undefined)]);
  }
  if (writer.stopped !== undefined) throw writer.stopped;
  const [exchange, symbol] = source.identity();
  const summary: ImportSummary = {
    source: 'tardis',
    exchange,
    symbol,
    pair: pair.altname,
    book: { file: o.book, kind: bookKindName(layout), rows: bookRead, depth },
    trades: { file: o.trades, rows: tradesRead },
    fromMs: firstMs,
    toMs: lastMs,
    bookUpdates: out.bookUpdates,
    tradesWritten: trades.written,
    fit: {
      ...book.counts,
      tradesSideUnknown: trades.sideUnknown,
      tradesBelowLot: trades.belowLot,
    },
  };
  await writeFile(join(o.out, IMPORT_SUMMARY_FILE), `${JSON.stringify(summary, null, 2)}\n`);
  return { ...summary, files: writer.stats(), wallMs: performance.now() - wallStart };
}

/** The next row, or undefined at the end. */
async function pull(rows: AsyncGenerator<CsvRow>): Promise<CsvRow | undefined> {
  const next = await rows.next();
  return next.done === true ? undefined : next.value;
}

function bookKindName(layout: BookLayout): string {
  return layout.kind === 'incremental_book_L2' ? layout.kind : `book_snapshot_${layout.levels}`;
}

/** Applies one book row to the book, by the file's layout. */
function bookApplier(layout: BookLayout, r: RowReader, book: ImportBook): (row: RowReader) => void {
  if (layout.kind === 'book_snapshot') {
    let first = true;
    const side = (name: 'bids' | 'asks'): [string, Decimal][] => {
      const out: [string, Decimal][] = [];
      for (let i = 0; i < layout.levels; i++) {
        if (r.text(`${name}[${i}].price`) === '') continue;
        r.decimal(`${name}[${i}].price`);
        out.push([r.text(`${name}[${i}].price`), r.decimal(`${name}[${i}].amount`)]);
      }
      return out;
    };
    return () => {
      if (first) book.clear();
      first = false;
      book.replace(side('bids'), side('asks'));
    };
  }
  let lastSnapshot = false;
  return () => {
    const snapshotText = r.text('is_snapshot');
    if (snapshotText !== 'true' && snapshotText !== 'false') {
      r.fail(`is_snapshot "${snapshotText}" is neither true nor false`);
    }
    const snapshot = snapshotText === 'true';
    // A snapshot after updates (a reconnection, a new day) replaces the book.
    if (snapshot && !lastSnapshot) book.clear();
    lastSnapshot = snapshot;
    const side = r.text('side');
    if (side !== 'bid' && side !== 'ask') r.fail(`side "${side}" is neither bid nor ask`);
    r.decimal('price');
    book.set(side, r.text('price'), r.decimal('amount'));
  };
}

/** Trades into Trades answers: the rows of one instant in one answer. */
class TradeTaker {
  readonly #r: RowReader;
  readonly #book: ImportBook;
  readonly #pair: ImportPair;
  readonly #out: RowOut;
  written = 0;
  sideUnknown = 0;
  belowLot = 0;

  constructor(r: RowReader, book: ImportBook, pair: ImportPair, out: RowOut) {
    this.#r = r;
    this.#book = book;
    this.#pair = pair;
    this.#out = out;
  }

  take(atMs: number): void {
    const r = this.#r;
    const price = r.decimal('price');
    let side = r.text('side');
    if (side === 'unknown') side = this.#sideOf(price) ?? side;
    if (side === 'unknown') {
      this.sideUnknown += 1;
      return;
    }
    if (side !== 'buy' && side !== 'sell') r.fail(`side "${side}" is not buy, sell or unknown`);
    const volume = this.#book.lot(r.decimal('amount'));
    if (volume.isZero()) {
      this.belowLot += 1;
      return;
    }
    // A buy took asks (rounded up), a sell took bids (rounded down): the book's own rounding.
    const onTick = this.#book.onTick(
      price,
      side === 'buy' ? Decimal.ROUND_CEIL : Decimal.ROUND_FLOOR,
    );
    if (!onTick.eq(price)) this.#book.counts.offTick += 1;
    this.written += 1;
    this.#out.trade(atMs, {
      price: onTick.toFixed(this.#pair.tick.decimalPlaces()),
      volume: volume.toFixed(this.#pair.lotDecimals),
      side: side === 'buy' ? 'b' : 's',
      id: this.written,
    });
  }

  /** A print at or through the best ask was a buy, at or through the best bid a sell. */
  #sideOf(price: Decimal): 'buy' | 'sell' | undefined {
    const { bid, ask } = this.#book.best();
    if (ask !== undefined && price.gte(ask)) return 'buy';
    if (bid !== undefined && price.lte(bid)) return 'sell';
    return undefined;
  }
}

interface TradeText {
  readonly price: string;
  readonly volume: string;
  readonly side: 'b' | 's';
  readonly id: number;
}

/** Writes the recording's rows: bodies built as text, as the exchange (or format.ts) has them. */
class RowOut {
  readonly #writer: RecordingWriter;
  readonly #pair: ImportPair;
  #trades: TradeText[] = [];
  #tradesMs = 0;
  bookUpdates = 0;

  constructor(writer: RecordingWriter, pair: ImportPair) {
    this.#writer = writer;
    this.#pair = pair;
  }

  assetPairs(atMs: number): void {
    this.#write(atMs, 'AssetPairs', undefined, this.#pair.assetPairsBody);
  }

  book(atMs: number, change: BookChange): void {
    this.flushTrades();
    this.bookUpdates += 1;
    this.#write(atMs, 'BookUpdate', this.#pair.altname, JSON.stringify(change));
  }

  trade(atMs: number, trade: TradeText): void {
    if (this.#trades.length > 0 && atMs !== this.#tradesMs) this.flushTrades();
    this.#tradesMs = atMs;
    this.#trades.push(trade);
  }

  /** The trades of one instant as one Trades answer: [price, volume, time s, side, l, "", id]. */
  flushTrades(): void {
    if (this.#trades.length === 0) return;
    const atMs = this.#tradesMs;
    const seconds = (atMs / 1000).toFixed(3);
    const rows = this.#trades.map(
      (t) =>
        `[${JSON.stringify(t.price)},${JSON.stringify(t.volume)},${seconds},"${t.side}","l","",${t.id}]`,
    );
    const last = `${atMs}000000`;
    const body = `{"error":[],"result":{${JSON.stringify(this.#pair.id)}:[${rows.join(',')}],"last":"${last}"}}`;
    this.#trades = [];
    this.#write(atMs, 'Trades', this.#pair.altname, body);
  }

  #write(atMs: number, endpoint: RecordedRow['endpoint'], pair: string | undefined, body: string) {
    // Asked and received at the same instant: the data's time, no round trip to time.
    this.#writer.write({ askedMs: atMs, receivedMs: atMs, endpoint, pair, body });
  }
}

/** One exchange and symbol across both files and every row. */
class SourceCheck {
  #exchange: string | undefined;
  #symbol: string | undefined;
  #from: string | undefined;

  see(r: RowReader, flag: string): void {
    const exchange = r.text('exchange');
    const symbol = r.text('symbol');
    if (this.#symbol === undefined) {
      this.#exchange = exchange;
      this.#symbol = symbol;
      this.#from = flag;
      return;
    }
    if (symbol === this.#symbol && exchange === this.#exchange) return;
    const where = this.#from === flag ? 'the file began with' : `${this.#from} holds`;
    r.fail(
      `symbol ${exchange} ${symbol}, but ${where} ${this.#exchange ?? ''} ${this.#symbol} (one symbol per import)`,
    );
  }

  identity(): [string, string] {
    return [this.#exchange ?? '', this.#symbol ?? ''];
  }
}

/** Reports progress at most every `progressEveryMs` of wall time. */
class ProgressClock {
  readonly #o: TardisImportOptions;
  readonly #files: readonly CsvFile[];
  readonly #startMs: number;
  #lastMs: number;

  constructor(o: TardisImportOptions, files: readonly CsvFile[], startMs: number) {
    this.#o = o;
    this.#files = files;
    this.#startMs = startMs;
    this.#lastMs = startMs;
  }

  tick(rows: number, atMs: number): void {
    if (this.#o.onProgress === undefined) return;
    const now = performance.now();
    if (now - this.#lastMs < (this.#o.progressEveryMs ?? 1_000)) return;
    this.#lastMs = now;
    const size = this.#files.reduce((sum, f) => sum + f.size, 0);
    const read = this.#files.reduce((sum, f) => sum + f.bytesRead(), 0);
    this.#o.onProgress({
      rows,
      rowsPerSec: rows / Math.max(0.001, (now - this.#startMs) / 1000),
      share: size === 0 ? 1 : Math.min(1, read / size),
      atMs,
    });
  }
}
