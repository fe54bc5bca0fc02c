// `npm run build` (and `prepare`, so `npm ci` in a checkout): tsc compiles src/ and strategies/
// to dist/, and dist/.built is then stamped with the time the compile began. bin/makerd.js runs
// dist/ only while no source is newer than that stamp: a file saved during the compile, after tsc
// may have read it, is newer. A failed compile leaves the stamp as it was.
import { spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const building = `${root}dist/.building`;
mkdirSync(`${root}dist`, { recursive: true });
// Created, not touched: its mtime comes from the clock that dates the sources' mtimes.
rmSync(building, { force: true });
closeSync(openSync(building, 'w'));
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const { status } = spawnSync(process.execPath, [tsc, '-p', `${root}tsconfig.build.json`], {
  stdio: 'inherit',
});
if (status === 0) renameSync(building, `${root}dist/.built`);
process.exitCode = status ?? 1;
