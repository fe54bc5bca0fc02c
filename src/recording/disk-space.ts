import { mkdirSync } from 'node:fs';
import { statfs } from 'node:fs/promises';
import { MakerdError } from '../core/index.js';

/** What a free-space check needs of fs.statfs: blocks available to us and their size. */
export type StatFs = (path: string) => Promise<{ readonly bavail: number; readonly bsize: number }>;

/** Below this a recording does not start, and a running one stops. */
export const DEFAULT_MIN_FREE_BYTES = 100 * 1024 * 1024;

/** Recording refused or stopped: one line saying why (a full disk, a file that cannot be written). */
export class RecordingStoppedError extends MakerdError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super('RECORDING_STOPPED', message, options);
  }
}

const MB = 1024 * 1024;

/** Throws a RecordingStoppedError when `dir`'s disk has less than `minFreeBytes` free. */
export async function requireFreeSpace(
  dir: string,
  minFreeBytes: number,
  stat: StatFs = statfs,
): Promise<void> {
  let free: number;
  try {
    const s = await stat(dir);
    free = s.bavail * s.bsize;
  } catch (err) {
    throw new RecordingStoppedError(
      `record: cannot check the free space of ${dir}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`,
      { cause: err },
    );
  }
  if (free < minFreeBytes) {
    throw new RecordingStoppedError(
      `record: ${dir} has ${Math.floor(free / MB)} MB free, needs at least ${Math.ceil(minFreeBytes / MB)} MB`,
    );
  }
}

/** Creates `dir` if need be and checks its free space: a RecordingStoppedError saying why not. */
export async function prepareDir(
  dir: string,
  minFreeBytes: number,
  stat: StatFs = statfs,
): Promise<void> {
  try {
    mkdirSync(dir, { recursive: true });
  } catch (err) {
    throw new RecordingStoppedError(
      `record: cannot create ${dir}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`,
      { cause: err },
    );
  }
  await requireFreeSpace(dir, minFreeBytes, stat);
}
