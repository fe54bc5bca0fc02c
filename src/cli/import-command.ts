import { resolve } from 'node:path';
import { importTardis, type ImportProgress } from '../lab/import/index.js';
import { LiveTerminal } from './live-terminal.js';

export interface ImportTardisOptions {
  readonly book: string;
  readonly trades: string;
  readonly pair: string;
  readonly out: string;
  readonly assetPairs?: string;
  readonly depth?: string;
  readonly force?: boolean;
}

export interface CommandIo {
  readonly out: NodeJS.WriteStream;
  readonly err: NodeJS.WriteStream;
}

/** Without a terminal, a progress line this often (wall time). */
const PROGRESS_LINE_MS = 5_000;

/**
 * `makerd import tardis`: Tardis.dev CSV files into a recording (src/lab/import). Progress on
 * stderr (a status line on a terminal, a line every 5 s otherwise); the summary, what was changed
 * to fit the pair, and the command that replays it on stdout.
 */
export async function runImportTardis(
  opts: ImportTardisOptions,
  io: CommandIo = { out: process.stdout, err: process.stderr },
): Promise<void> {
  const terminal = new LiveTerminal(io.err);
  const out = resolve(opts.out);
  const show = (p: ImportProgress): void => {
    const text =
      `import: ${(p.share * 100).toFixed(1).padStart(5)}% ${p.rows.toLocaleString('en')} rows ` +
      `(${Math.round(p.rowsPerSec).toLocaleString('en')} rows/s), data at ` +
      `${new Date(p.atMs).toISOString().slice(0, 19)}Z`;
    if (terminal.live) terminal.setStatus(text);
    else io.err.write(`${text}\n`);
  };
  let result;
  try {
    result = await importTardis({
      book: opts.book,
      trades: opts.trades,
      pair: opts.pair,
      out,
      ...(opts.assetPairs === undefined ? {} : { assetPairs: opts.assetPairs }),
      ...(opts.depth === undefined ? {} : { depth: Number(opts.depth) }),
      force: opts.force === true,
      onProgress: show,
      progressEveryMs: terminal.live ? 200 : PROGRESS_LINE_MS,
    });
  } finally {
    terminal.clear();
  }
  const iso = (ms: number): string => new Date(ms).toISOString();
  const seconds = result.wallMs / 1000;
  const rows = result.book.rows + result.trades.rows;
  const f = result.fit;
  io.out.write(
    [
      `imported ${result.exchange} ${result.symbol} as ${result.pair}, ${iso(result.fromMs)} to ${iso(result.toMs)}:`,
      `  ${result.book.rows} book rows (${result.book.kind}) as ${result.bookUpdates} book updates ` +
        `(the best ${result.book.depth} levels a side), ` +
        `${result.trades.rows} trades as ${result.tradesWritten}; ${result.files.files} files, ` +
        `${Math.ceil(result.files.bytes / 1024)} KB, ${seconds.toFixed(1)} s ` +
        `(${Math.round(rows / Math.max(seconds, 0.001))} rows/s)`,
      `  fitted to ${result.pair}'s rules: ${f.offTick} prices off the tick rounded outward, ` +
        `${f.crossed} crossed levels removed, ${f.lotRounded} volumes rounded to the lot, ` +
        `${f.beforeBook} rows before the first snapshot skipped, ` +
        `${f.tradesSideUnknown} trades of unknown side skipped, ${f.tradesBelowLot} trades below the lot skipped`,
      `replay it: makerd backtest --data ${out} --config FILE (a config quoting ${result.pair})`,
      '',
    ].join('\n'),
  );
}
