// `npm run build` (and `prepare`, so `npm ci` in a checkout): tsc compiles src/ and strategies/
// to dist/, and dist/.built is then stamped with the time the compile began. bin/makerd.js runs
// dist/ only while no source is newer than that stamp: a file saved during the compile, after tsc
// may have read it, is newer. A failed compile leaves the stamp as it was.
//
// Then esbuild bundles the operator console's page (console/) to dist/console/: app.js (uPlot
// included), app.css (uPlot's stylesheet first) and index.html, which makerd's HTTP endpoint
// serves. The page is not type-checked here: `npm run typecheck` does that.
import { spawnSync } from 'node:child_process';
import {
  closeSync,
  copyFileSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

// `npx makerd` in a checkout links it into npx's cache and runs this as its `prepare` first, its
// output hidden: a whole build in silence (30-39 s on a loaded machine), or before `npm ci` a
// failure that also leaves npx's cache entry broken for every later `npx makerd`. bin/makerd.js
// checks dist/ itself (it runs the sources through tsx, saying so, or says to run `npm ci`), so
// there is nothing to build then. (esbuild is imported after this: before `npm ci` it is not there.)
if (process.env.npm_command === 'exec') process.exit(0);
const { build, transform } = await import('esbuild');

const root = fileURLToPath(new URL('..', import.meta.url));
const require = createRequire(import.meta.url);
const building = `${root}dist/.building`;
mkdirSync(`${root}dist`, { recursive: true });
// Created, not touched: its mtime comes from the clock that dates the sources' mtimes.
rmSync(building, { force: true });
closeSync(openSync(building, 'w'));
const tsc = require.resolve('typescript/bin/tsc');
const { status } = spawnSync(process.execPath, [tsc, '-p', `${root}tsconfig.build.json`], {
  stdio: 'inherit',
});
if (status === 0) renameSync(building, `${root}dist/.built`);
process.exitCode = status ?? 1;

const page = `${root}console`;
const out = `${root}dist/console`;
try {
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const uplot = JSON.parse(readFileSync(require.resolve('uplot/package.json'), 'utf8'));
  await build({
    entryPoints: [`${page}/app.ts`],
    outfile: `${out}/app.js`,
    tsconfig: `${page}/tsconfig.json`,
    bundle: true,
    minify: true,
    format: 'iife',
    // Phones a few years old: Safari 15.4 is the first with <dialog>.
    target: ['chrome100', 'firefox100', 'safari15.4'],
    // uPlot's notice, which its MIT licence asks to keep with copies (minifying drops it).
    banner: { js: `/*! uPlot v${uplot.version} (c) Leon Sorokin, MIT License */` },
    logLevel: 'warning',
  });
  const css = [require.resolve('uplot/dist/uPlot.min.css'), `${page}/app.css`]
    .map((file) => readFileSync(file, 'utf8'))
    .join('\n');
  const { code } = await transform(css, { loader: 'css', minify: true });
  writeFileSync(`${out}/app.css`, code);
  copyFileSync(`${page}/index.html`, `${out}/index.html`);
} catch (err) {
  console.error(
    `build: the console page did not build: ${err instanceof Error ? err.message : err}`,
  );
  process.exitCode = 1;
}
