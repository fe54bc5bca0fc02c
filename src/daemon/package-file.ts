import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** A file of the package (e.g. config/sim.yaml), found upward from this file (sources or dist/). */
export function packageFile(...parts: string[]): string | undefined {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    if (existsSync(join(dir, 'package.json'))) return join(dir, ...parts);
    dir = dirname(dir);
  }
  return undefined;
}
