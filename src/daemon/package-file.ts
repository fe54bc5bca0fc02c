import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { InvalidInputError } from '../core/index.js';

/** A file of the package (e.g. config/sim.yaml), found upward from this file (sources or dist/). */
export function packageFile(...parts: string[]): string | undefined {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    if (existsSync(join(dir, 'package.json'))) return join(dir, ...parts);
    dir = dirname(dir);
  }
  return undefined;
}

/**
 * The built-in strategies folder, beside the code that runs: strategies/ for the sources (tsx),
 * dist/strategies/ for the build, whose compiled plugins import the compiled runner API.
 */
export function builtInStrategies(): string {
  const dir = fileURLToPath(new URL('../../strategies', import.meta.url));
  if (!existsSync(dir)) {
    throw new InvalidInputError('strategies', `the built-in strategies folder ${dir} is missing`);
  }
  return dir;
}
