import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Beside the recording's folders: what an import read and what it changed to fit the pair. */
export const IMPORT_SUMMARY_FILE = 'import.json';

/** What `makerd import` writes to DIR/import.json (the backtest's report can show it). */
export interface ImportSummary {
  readonly source: 'tardis';
  readonly exchange: string;
  readonly symbol: string;
  /** The pair the recording holds it as (altname). */
  readonly pair: string;
  readonly book: {
    readonly file: string;
    readonly kind: string;
    readonly rows: number;
    /** The levels a side written (the best). */
    readonly depth: number;
  };
  readonly trades: { readonly file: string; readonly rows: number };
  /** The data's span (local_timestamp, ms since the epoch). */
  readonly fromMs: number;
  readonly toMs: number;
  /** Recording rows written: BookUpdate and Trades. */
  readonly bookUpdates: number;
  readonly tradesWritten: number;
  /** Changes made to fit the pair's rules, and data left out, each counted. */
  readonly fit: {
    /** Prices off the pair's tick, rounded outward (bids down, asks up) and merged. */
    readonly offTick: number;
    /** Stale levels the other side of an update crossed, removed. */
    readonly crossed: number;
    /** Book rows and trades before the data's first snapshot (skipped: no book to apply them to). */
    readonly beforeBook: number;
    /** Volumes with more decimals than the pair's lot, rounded. */
    readonly lotRounded: number;
    /** Trades of unknown side priced inside the spread (skipped). */
    readonly tradesSideUnknown: number;
    /** Trades whose volume rounds to 0 on the pair's lot (skipped). */
    readonly tradesBelowLot: number;
  };
}

/** The import's summary of a recording folder, if it was imported. */
export function readImportSummary(dir: string): ImportSummary | undefined {
  try {
    return JSON.parse(readFileSync(join(dir, IMPORT_SUMMARY_FILE), 'utf8')) as ImportSummary;
  } catch {
    return undefined;
  }
}
