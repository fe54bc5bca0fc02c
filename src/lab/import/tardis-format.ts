import { Decimal, InvalidInputError } from '../../core/index.js';
import type { CsvFile, CsvRow } from './csv-file.js';

/**
 * The Tardis.dev downloadable CSV layouts (https://docs.tardis.dev/downloadable-csv-files/data-types):
 * comma-separated, a header line, times in microseconds since the epoch (UTC).
 *
 * - incremental_book_L2: exchange,symbol,timestamp,local_timestamp,is_snapshot,side,price,amount;
 *   `amount` is the level's new total (0 removes it); rows of one feed message share their
 *   local_timestamp; a row with is_snapshot=true after one without starts a new snapshot, which
 *   replaces the book.
 * - book_snapshot_25 (and _5): exchange,symbol,timestamp,local_timestamp, then asks[0].price,
 *   asks[0].amount, bids[0].price, bids[0].amount, ... up to [24]; one row per change of the top
 *   levels, empty cells where a side has fewer.
 * - trades: exchange,symbol,timestamp,local_timestamp,id,side,price,amount; `side` the taker's
 *   (buy, sell or unknown).
 */
export const COMMON_COLUMNS = ['exchange', 'symbol', 'timestamp', 'local_timestamp'] as const;
export const INCREMENTAL_COLUMNS = [...COMMON_COLUMNS, 'is_snapshot', 'side', 'price', 'amount'];
export const TRADES_COLUMNS = [...COMMON_COLUMNS, 'id', 'side', 'price', 'amount'];

export type BookKind = 'incremental_book_L2' | 'book_snapshot';

/** Where each column is. */
type Columns = Readonly<Record<string, number>>;

export interface BookLayout {
  readonly kind: BookKind;
  readonly columns: Columns;
  /** book_snapshot: the levels a row holds per side (25 for book_snapshot_25). */
  readonly levels: number;
}

/** The book file's layout, told by its header; a missing column is named. */
export function bookLayout(file: CsvFile): BookLayout {
  if (file.header.includes('is_snapshot')) {
    return { kind: 'incremental_book_L2', columns: columns(file, INCREMENTAL_COLUMNS), levels: 0 };
  }
  if (file.header.includes('asks[0].price') || file.header.includes('bids[0].price')) {
    let levels = 0;
    while (file.header.includes(`asks[${levels}].price`)) levels++;
    const wanted: string[] = [...COMMON_COLUMNS];
    for (let i = 0; i < Math.max(levels, 1); i++) {
      for (const side of ['asks', 'bids'])
        wanted.push(`${side}[${i}].price`, `${side}[${i}].amount`);
    }
    return { kind: 'book_snapshot', columns: columns(file, wanted), levels };
  }
  throw new InvalidInputError(
    file.flag,
    `${file.path} is neither incremental_book_L2 (no column "is_snapshot") nor book_snapshot_25 (no column "asks[0].price")`,
  );
}

export function tradesLayout(file: CsvFile): Columns {
  return columns(file, TRADES_COLUMNS);
}

function columns(file: CsvFile, wanted: readonly string[]): Columns {
  const out: Record<string, number> = {};
  for (const name of wanted) {
    const i = file.header.indexOf(name);
    if (i < 0) {
      throw new InvalidInputError(
        file.flag,
        `${file.path}: the header has no column "${name}" (it has ${file.header.join(',')})`,
      );
    }
    out[name] = i;
  }
  return out;
}

/** Reads one row's cells, each refusal one line naming the flag, the file and the line. */
export class RowReader {
  readonly #file: CsvFile;
  readonly #columns: Columns;
  #row: CsvRow = { line: 0, cells: [] };

  constructor(file: CsvFile, columns: Columns) {
    this.#file = file;
    this.#columns = columns;
  }

  at(row: CsvRow): this {
    this.#row = row;
    return this;
  }

  get line(): number {
    return this.#row.line;
  }

  text(column: string): string {
    return this.#row.cells[this.#columns[column] as number] ?? '';
  }

  /** local_timestamp (µs) as whole ms. */
  localMs(): number {
    const us = this.text('local_timestamp');
    if (!/^\d{1,17}$/.test(us))
      this.fail(`local_timestamp "${us}" is not microseconds since the epoch`);
    return Math.floor(Number(us) / 1000);
  }

  decimal(column: string): Decimal {
    const text = this.text(column);
    let value: Decimal | undefined;
    try {
      value = new Decimal(text);
    } catch {
      value = undefined;
    }
    if (text === '' || value === undefined || !value.isFinite() || value.isNegative()) {
      this.fail(`${column} "${text}" is not a number`);
    }
    return value;
  }

  fail(reason: string): never {
    throw new InvalidInputError(this.#file.flag, `${this.#file.path} line ${this.line}: ${reason}`);
  }
}
