import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { errorMessage, InvalidInputError } from '../../core/index.js';

/** One data line of a CSV file: its cells and its line number (the header is line 1). */
export interface CsvRow {
  readonly line: number;
  readonly cells: readonly string[];
}

/** A CSV file opened for streaming: its header read, its rows still to come. */
export interface CsvFile {
  readonly path: string;
  /** The command-line flag that named it, for errors. */
  readonly flag: string;
  readonly header: readonly string[];
  readonly rows: AsyncGenerator<CsvRow>;
  /** Bytes read from disk so far (compressed, for a gzip file): the progress line's share. */
  bytesRead(): number;
  readonly size: number;
}

const GZIP_MAGIC = [0x1f, 0x8b];
const CHUNK_BYTES = 1 << 20;

/**
 * Opens a CSV file, plain or gzip (told by its first two bytes, not its name), and reads its
 * header line. The rest is streamed line by line: memory holds a chunk, never the file. Cells are
 * split at commas: the Tardis.dev layouts quote nothing. A path that cannot be read, or a file
 * with no header line, is one line naming the flag.
 */
export async function openCsv(path: string, flag: string): Promise<CsvFile> {
  let size: number;
  let gzip: boolean;
  try {
    const handle = await open(path, 'r');
    try {
      const stat = await handle.stat();
      if (!stat.isFile()) throw Object.assign(new Error('not a file'), { code: 'not a file' });
      size = stat.size;
      const head = Buffer.alloc(2);
      const { bytesRead } = await handle.read(head, 0, 2, 0);
      gzip = bytesRead === 2 && head[0] === GZIP_MAGIC[0] && head[1] === GZIP_MAGIC[1];
    } finally {
      await handle.close();
    }
  } catch (err) {
    throw new InvalidInputError(
      flag,
      `${path}: ${(err as NodeJS.ErrnoException).code ?? errorMessage(err)}`,
    );
  }
  // Large chunks: a row is a few dozen bytes, and each chunk is a wait on the disk or the zlib pool.
  const source = createReadStream(path, { highWaterMark: CHUNK_BYTES });
  let text: Readable = source;
  if (gzip) {
    const gunzip = createGunzip({ chunkSize: CHUNK_BYTES });
    source.on('error', (err) => gunzip.destroy(err));
    text = source.pipe(gunzip);
  }
  text.setEncoding('utf8');
  const lines = readLines(text, path, flag);
  const first = await lines.next();
  if (first.done === true || first.value.trim() === '') {
    await lines.return(undefined);
    throw new InvalidInputError(flag, `${path}: the file is empty (no header line)`);
  }
  const header = first.value.trim().split(',');
  async function* rows(): AsyncGenerator<CsvRow> {
    let line = 1;
    try {
      for await (const text of lines) {
        line++;
        if (text === '') continue;
        yield { line, cells: text.split(',') };
      }
    } finally {
      await lines.return(undefined);
    }
  }
  return { path, flag, header, rows: rows(), bytesRead: () => source.bytesRead, size };
}

/** Lines without their end (LF or CRLF); a read or gunzip error is one line naming the flag. */
async function* readLines(text: Readable, path: string, flag: string): AsyncGenerator<string> {
  let rest = '';
  try {
    for await (const chunk of text) {
      rest += chunk as string;
      let start = 0;
      for (let end = rest.indexOf('\n'); end >= 0; end = rest.indexOf('\n', start)) {
        yield trimCr(rest.slice(start, end));
        start = end + 1;
      }
      rest = rest.slice(start);
    }
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'Z_BUF_ERROR' ? 'the gzip file is cut short' : (code ?? String(err));
    throw new InvalidInputError(flag, `${path}: ${why}`);
  } finally {
    text.destroy();
  }
  if (rest !== '') yield trimCr(rest);
}

function trimCr(line: string): string {
  return line.endsWith('\r') ? line.slice(0, -1) : line;
}
