import { writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';

/** Files in Tardis.dev's exact CSV layouts (docs.tardis.dev/downloadable-csv-files/data-types). */
export const INCREMENTAL_HEADER =
  'exchange,symbol,timestamp,local_timestamp,is_snapshot,side,price,amount';
export const TRADES_HEADER = 'exchange,symbol,timestamp,local_timestamp,id,side,price,amount';

/** The header of book_snapshot_N: asks[i] then bids[i], price then amount, i < N. */
export function snapshotHeader(levels: number): string {
  const cols = ['exchange', 'symbol', 'timestamp', 'local_timestamp'];
  for (let i = 0; i < levels; i++) {
    cols.push(`asks[${i}].price`, `asks[${i}].amount`, `bids[${i}].price`, `bids[${i}].amount`);
  }
  return cols.join(',');
}

export const T0_US = Date.UTC(2026, 0, 1) * 1000;

/** One incremental_book_L2 row at `us` µs (exchange time 300 µs earlier). */
export function bookRow(
  us: number,
  snapshot: boolean,
  side: 'bid' | 'ask',
  price: string,
  amount: string,
  symbol = 'XBT/USD',
): string {
  return `kraken,${symbol},${us - 300},${us},${snapshot},${side},${price},${amount}`;
}

export function tradeRow(
  us: number,
  id: string,
  side: 'buy' | 'sell' | 'unknown',
  price: string,
  amount: string,
  symbol = 'XBT/USD',
): string {
  return `kraken,${symbol},${us - 300},${us},${id},${side},${price},${amount}`;
}

/** One book_snapshot row: asks and bids best first, empty cells where a side has fewer. */
export function snapshotRow(
  us: number,
  levels: number,
  asks: readonly [string, string][],
  bids: readonly [string, string][],
): string {
  const cells = ['kraken', 'XBT/USD', String(us - 300), String(us)];
  for (let i = 0; i < levels; i++) {
    cells.push(...(asks[i] ?? ['', '']), ...(bids[i] ?? ['', '']));
  }
  return cells.join(',');
}

/** Writes a CSV file, gzip when `gzip` (Tardis serves .csv.gz). */
export function writeCsv(
  path: string,
  header: string,
  rows: readonly string[],
  gzip = false,
): void {
  const text = `${header}\n${rows.join('\n')}\n`;
  writeFileSync(path, gzip ? gzipSync(text) : text);
}

/**
 * A few minutes of XBT/USD: a snapshot of 10 levels a side around 60000 (one price off the 0.1
 * tick), a level changing every 200 ms, one removed and put back every 5 s, a second snapshot a
 * minute in (the book moved up 10), and every 20 s a sell that sweeps the bids down to 0.2 %
 * below the mid: the book drops those levels as the print arrives and refills them 500 ms later.
 */
export function marketFiles(minutes: number): { book: string[]; trades: string[] } {
  const book: string[] = [];
  const trades: string[] = [];
  // Buffered before the first snapshot: Tardis says skip.
  book.push(bookRow(T0_US - 1000, false, 'bid', '59000.0', '1'));
  const snapshot = (us: number, mid: number): void => {
    for (let i = 0; i < 10; i++) {
      book.push(bookRow(us, true, 'bid', (mid - 0.1 - i * 0.5).toFixed(1), '1.5'));
      book.push(bookRow(us, true, 'ask', (mid + 0.1 + i * 0.5).toFixed(1), '1.5'));
    }
    book.push(bookRow(us, true, 'bid', (mid - 7.95).toFixed(2), '0.5'));
  };
  let mid = 60000;
  snapshot(T0_US, mid);
  let tradeId = 1000;
  const endUs = T0_US + minutes * 60_000_000;
  for (let us = T0_US + 200_000; us < endUs; us += 200_000) {
    const step = (us - T0_US) / 200_000;
    if (us === T0_US + 60_000_000) {
      mid += 10;
      snapshot(us, mid);
      continue;
    }
    const amount = (1 + (step % 5) / 10).toFixed(1);
    book.push(
      bookRow(
        us,
        false,
        step % 2 === 0 ? 'bid' : 'ask',
        (mid + (step % 2 === 0 ? -1.1 : 1.1)).toFixed(1),
        amount,
      ),
    );
    if (step % 25 === 0) book.push(bookRow(us, false, 'ask', (mid + 2.1).toFixed(1), '0'));
    if (step % 25 === 5) book.push(bookRow(us, false, 'ask', (mid + 2.1).toFixed(1), '1.5'));
    if (step % 100 === 50) {
      // A sell sweeping the bids to 120 below the mid: the print, then the book's removals.
      const through = (mid - 120).toFixed(1);
      trades.push(tradeRow(us, String(tradeId++), 'sell', through, '0.4'));
      for (let i = 0; i < 10; i++)
        book.push(bookRow(us, false, 'bid', (mid - 0.1 - i * 0.5).toFixed(1), '0'));
      book.push(bookRow(us, false, 'bid', (mid - 7.95).toFixed(2), '0'));
      const refill = us + 500_000;
      for (let i = 0; i < 10; i++)
        book.push(bookRow(refill, false, 'bid', (mid - 0.1 - i * 0.5).toFixed(1), '1.5'));
    }
    if (step % 50 === 10)
      trades.push(tradeRow(us, String(tradeId++), 'buy', (mid + 0.1).toFixed(1), '0.05'));
  }
  book.sort((a, b) => Number(a.split(',')[3]) - Number(b.split(',')[3]));
  return { book, trades };
}
