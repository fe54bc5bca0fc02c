import { createReadStream } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { createGunzip } from 'node:zlib';
import { InvalidInputError } from '../../core/index.js';
import { decodeRow, RecordingLineError, type RecordedRow } from '../recording/format.js';

/**
 * A recording folder's rows in receive order, streamed: the files of one hour are merged (one row
 * held per file), hours one after the other. The stand-in for the recorder's RecordingReader
 * (branch lab-record), which replaces it behind the same AsyncIterable<RecordedRow>; it reports a
 * bad line as one error naming the file and line, and knows nothing of gaps.
 */
export async function* readRecordingDir(dir: string): AsyncGenerator<RecordedRow> {
  const byHour = new Map<string, string[]>();
  let folders;
  try {
    folders = await readdir(dir, { withFileTypes: true });
  } catch (err) {
    throw new InvalidInputError(
      '--data',
      `cannot read ${dir}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`,
    );
  }
  for (const folder of folders) {
    if (!folder.isDirectory()) continue;
    for (const name of await readdir(join(dir, folder.name))) {
      if (!name.endsWith('.jsonl.gz')) continue;
      const hour = name.slice(0, 13);
      const files = byHour.get(hour) ?? [];
      files.push(join(dir, folder.name, name));
      byHour.set(hour, files);
    }
  }
  for (const hour of [...byHour.keys()].sort()) {
    const heads = await Promise.all(
      (byHour.get(hour) ?? []).sort().map(async (file) => {
        const rows = fileRows(file);
        return { rows, next: await rows.next() };
      }),
    );
    for (;;) {
      let best: (typeof heads)[number] | undefined;
      for (const h of heads) {
        if (h.next.done === true) continue;
        if (
          best === undefined ||
          h.next.value.receivedMs < (best.next.value as RecordedRow).receivedMs
        ) {
          best = h;
        }
      }
      if (best === undefined) break;
      yield best.next.value as RecordedRow;
      best.next = await best.rows.next();
    }
  }
}

async function* fileRows(file: string): AsyncGenerator<RecordedRow> {
  const lines = createInterface({ input: createReadStream(file).pipe(createGunzip()) });
  let n = 0;
  const iterator = lines[Symbol.asyncIterator]();
  for (;;) {
    let next: IteratorResult<string>;
    try {
      next = await iterator.next();
    } catch (err) {
      // A file cut short (the recorder killed mid-write) or not gzip at all.
      throw new InvalidInputError('--data', `${file} after line ${n}: ${(err as Error).message}`);
    }
    if (next.done === true) return;
    n += 1;
    if (n === 1 || next.value === '') continue;
    try {
      yield decodeRow(next.value);
    } catch (err) {
      const reason = err instanceof RecordingLineError ? err.message : String(err);
      throw new InvalidInputError('--data', `${file} line ${n}: ${reason}`);
    }
  }
}
