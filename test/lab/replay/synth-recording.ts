import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import {
  KEY_FOLDER,
  RECORDING_VERSION,
  encodeRow,
  segmentPath,
  type RecordedRow,
  type RecordingHeader,
} from '../../../src/recording/index.js';
import {
  PAPER_INTERVALS_MS,
  simulateMarket,
  type SimulatedMarketOptions,
} from '../../../src/lab/simulated-recording.js';

export type SynthOptions = SimulatedMarketOptions & { readonly startMs: number };

/** The simulator's default flow as a recording would hold it (src/lab/simulated-recording.ts). */
export async function synthesiseRecording(options: SynthOptions): Promise<RecordedRow[]> {
  const rows: RecordedRow[] = [];
  await simulateMarket(options, (row) => rows.push(row));
  return rows;
}

/** Writes rows as recording files (one per pair or key folder, per hour) under `dir`. */
export function writeRecording(dir: string, rows: readonly RecordedRow[]): void {
  const files = new Map<string, { header: RecordingHeader; lines: string[] }>();
  const session = rows[0]?.receivedMs ?? 0;
  for (const row of rows) {
    const folder = row.pair ?? KEY_FOLDER;
    const path = segmentPath(folder, row.receivedMs, session);
    let file = files.get(path);
    if (file === undefined) {
      file = {
        header: {
          makerd_recording: RECORDING_VERSION,
          pair: folder,
          sessionStartMs: session,
          intervalsMs: PAPER_INTERVALS_MS,
          tier: 'starter',
        },
        lines: [],
      };
      files.set(path, file);
    }
    file.lines.push(encodeRow(row));
  }
  for (const [path, file] of files) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    const text = `${JSON.stringify(file.header)}\n${file.lines.join('')}`;
    writeFileSync(join(dir, path), gzipSync(text));
  }
}

/** Rows as the replay takes them (an AsyncIterable, as the recording reader gives them). */
export function fromArray(rows: readonly RecordedRow[]): AsyncIterable<RecordedRow> {
  return {
    [Symbol.asyncIterator]: () => {
      let i = 0;
      return {
        next: () =>
          Promise.resolve(
            i < rows.length
              ? { done: false, value: rows[i++] as RecordedRow }
              : { done: true, value: undefined },
          ),
      };
    },
  };
}
