import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { constants as zlibConstants, createGunzip } from 'node:zlib';
import {
  decodeRow,
  READABLE_VERSIONS,
  RecordingLineError,
  UnknownEndpointError,
  type RecordedRow,
  type RecordingHeader,
} from './format.js';
import type { RecordingProblem } from './problems.js';

/** What one file's reading tells its reader besides the rows. */
export interface FileEvents {
  readonly header: (header: RecordingHeader) => void;
  readonly problem: (problem: RecordingProblem) => void;
}

/**
 * The rows of one recording file, streamed (gunzip and a line splitter: memory holds a chunk and
 * a line, never the file). Bad lines, a header of another version, and a file cut short are
 * reported through `events.problem` and the rows before them still come out.
 */
export async function* fileRows(
  dir: string,
  file: string,
  events: FileEvents,
): AsyncGenerator<RecordedRow> {
  // Z_SYNC_FLUSH at the end: a file cut short gives every row flushed before the cut instead of
  // an error that drops what the reader had not consumed yet (a slower reader lost more rows).
  const gunzip = createGunzip({ finishFlush: zlibConstants.Z_SYNC_FLUSH });
  const path = join(dir, file);
  const source = createReadStream(path);
  source.on('error', (err) => gunzip.destroy(err));
  source.pipe(gunzip);
  const text = new StringDecoder('utf8');
  let inflated = 0;
  let lineNo = 0;
  let rows = 0;
  let rest = '';
  let header = false;
  // An unknown endpoint is told once per file, not on each of its rows.
  const unknown = new Set<string>();
  const line = (text: string): RecordedRow | 'stop' | undefined => {
    lineNo++;
    if (!header) {
      header = true;
      const h = readHeader(text);
      if (typeof h === 'string') {
        events.problem({ kind: 'version', file, line: 1, message: `${file}: ${h}` });
        return 'stop';
      }
      events.header(h);
      return undefined;
    }
    try {
      rows++;
      return decodeRow(text);
    } catch (err) {
      rows--;
      if (!(err instanceof RecordingLineError)) throw err;
      if (err instanceof UnknownEndpointError) {
        if (unknown.has(err.endpoint)) return undefined;
        unknown.add(err.endpoint);
      }
      events.problem({
        kind: 'corrupt-line',
        file,
        line: lineNo,
        message: `${file} line ${lineNo}: ${err.message}`,
      });
      return undefined;
    }
  };
  try {
    for await (const chunk of gunzip) {
      inflated += (chunk as Buffer).length;
      rest += text.write(chunk as Buffer);
      let start = 0;
      for (let end = rest.indexOf('\n'); end >= 0; end = rest.indexOf('\n', start)) {
        const row = line(rest.slice(start, end));
        start = end + 1;
        if (row === 'stop') return;
        if (row !== undefined) yield row;
      }
      rest = rest.slice(start);
    }
    rest += text.end();
    if (!(await endsWhole(path, inflated))) {
      // The writer died: what it flushed is whole rows; a part-written last line is not one.
      events.problem({
        kind: 'truncated',
        file,
        message: `${file}: cut short after ${rows} rows (the recorder stopped while writing)`,
      });
      return;
    }
    if (rest !== '') {
      const row = line(rest);
      if (row !== undefined && row !== 'stop') yield row;
    }
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    events.problem({
      kind: 'corrupt-file',
      file,
      message: `${file}: unreadable after ${rows} rows: ${code ?? ''} ${(err as Error).message}`,
    });
  } finally {
    source.destroy();
    gunzip.destroy();
  }
}

/**
 * Whether the file ends with its gzip trailer: a whole file's last 4 bytes are the inflated size
 * modulo 2^32 (RFC 1952, ISIZE; a recording file is one gzip member). A file cut short ends in
 * compressed data instead, which matches by chance once in 4 billion.
 */
async function endsWhole(path: string, inflated: number): Promise<boolean> {
  const file = await open(path, 'r');
  try {
    const { size } = await file.stat();
    if (size < 18) return false;
    const tail = Buffer.alloc(4);
    await file.read(tail, 0, 4, size - 4);
    return tail.readUInt32LE(0) === inflated % 2 ** 32;
  } finally {
    await file.close();
  }
}

/** The header, or why it is not one this makerd reads. */
function readHeader(text: string): RecordingHeader | string {
  let h: unknown;
  try {
    h = JSON.parse(text);
  } catch {
    return 'the first line is not a recording header (not JSON)';
  }
  const version = (h as { makerd_recording?: unknown } | null)?.makerd_recording;
  if (version === undefined) return 'the first line is not a recording header';
  if (typeof version !== 'number' || !READABLE_VERSIONS.includes(version)) {
    return `a recording of version ${JSON.stringify(version)}; this makerd reads versions ${READABLE_VERSIONS.join(' and ')}`;
  }
  return h as RecordingHeader;
}
