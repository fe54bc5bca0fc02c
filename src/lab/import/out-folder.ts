import { mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { errorMessage, InvalidInputError } from '../../core/index.js';
import { IMPORT_SUMMARY_FILE } from '../../recording/import-summary.js';

const RECORDING_FILE = /\.jsonl\.gz$/;

/**
 * The import's output folder: created, or empty. One that holds something is refused, unless
 * `force` and what it holds is a recording (folders of recording files, an import summary):
 * that is removed. Anything else in it is never removed.
 */
export async function prepareOut(dir: string, force: boolean): Promise<void> {
  let entries: string[];
  try {
    entries = await readdir(dir);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT') throw new InvalidInputError('--out', `${dir}: ${code ?? String(err)}`);
    entries = [];
  }
  if (entries.length > 0) {
    if (!force) {
      throw new InvalidInputError(
        '--out',
        `${dir} is not empty (--force replaces a recording there)`,
      );
    }
    for (const name of entries) {
      if (!(await isRecordingPart(dir, name))) {
        throw new InvalidInputError(
          '--out',
          `${dir} holds ${name}, which is not part of a recording: not replaced, even with --force`,
        );
      }
    }
    await Promise.all(entries.map((name) => rm(join(dir, name), { recursive: true })));
  }
  try {
    await mkdir(dir, { recursive: true });
  } catch (err) {
    throw new InvalidInputError(
      '--out',
      `${dir}: ${(err as NodeJS.ErrnoException).code ?? errorMessage(err)}`,
    );
  }
}

async function isRecordingPart(dir: string, name: string): Promise<boolean> {
  if (name === IMPORT_SUMMARY_FILE) return true;
  try {
    const files = await readdir(join(dir, name), { withFileTypes: true });
    return files.every((f) => f.isFile() && RECORDING_FILE.test(f.name));
  } catch {
    return false;
  }
}
