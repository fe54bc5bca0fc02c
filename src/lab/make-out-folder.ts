import { existsSync, statSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { InvalidInputError } from '../core/index.js';

/**
 * Makes a command's output folder (and the missing folders above it), or refuses with one line
 * naming the flag. One level at a time: node's recursive mkdir never returns under /proc.
 * A folder that holds `guarded` (an earlier run's report) is refused unless `force`.
 */
export async function makeOutFolder(
  flag: string,
  dir: string,
  options: { guarded?: readonly string[]; force?: boolean } = {},
): Promise<void> {
  const missing: string[] = [];
  let at = dir;
  while (!existsSync(at)) {
    missing.unshift(at);
    const up = dirname(at);
    if (up === at) break;
    at = up;
  }
  if (missing.length === 0) {
    if (!statSync(dir).isDirectory()) throw new InvalidInputError(flag, `${dir}: ENOTDIR`);
    const found = (options.guarded ?? []).filter((name) => existsSync(join(dir, name)));
    if (found.length > 0 && options.force !== true) {
      throw new InvalidInputError(
        flag,
        `${dir} holds an earlier report (${found.join(', ')}); give --force to replace it, or another folder`,
      );
    }
    return;
  }
  for (const folder of missing) {
    try {
      await mkdir(folder);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      // Another process (a sweep's other worker) made it meanwhile: a folder is what we wanted.
      if (code === 'EEXIST' && statSync(folder).isDirectory()) continue;
      throw new InvalidInputError(flag, `${dir}: ${code ?? (err as Error).message}`);
    }
  }
}
