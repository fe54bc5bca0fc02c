import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RecordedRow } from '../../src/recording/index.js';

/** A fresh folder under the system's temp dir; removed by the returned function. */
export function tempDir(): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'makerd-rec-'));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A folder's files, sorted. */
export function filesIn(dir: string, folder: string): string[] {
  return readdirSync(join(dir, folder)).sort();
}

export async function collect<T>(rows: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const r of rows) out.push(r);
  return out;
}

export function depthRow(pair: string, atMs: number, price = '50000.1'): RecordedRow {
  return {
    askedMs: atMs - 20,
    receivedMs: atMs,
    endpoint: 'Depth',
    pair,
    body: `{"error":[],"result":{"${pair}":{"asks":[["${price}","1.25000000",1700000000]],"bids":[]}}}`,
  };
}

/** A statfs that reports `freeMb` free. */
export const freeMb = (mb: number) => () => Promise.resolve({ bavail: mb * 256, bsize: 4096 });
