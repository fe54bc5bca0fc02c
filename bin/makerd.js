#!/usr/bin/env node
// The makerd command. Runs the compiled dist/ when it is current, else, in a checkout, the
// TypeScript sources through tsx, so an edit or a `git pull` is never shadowed by an old build.
//
// Current: no build input (src/, strategies/, the tsconfig files; folders too, whose mtime moves
// when a file is added, removed or renamed) has a newer mtime than dist/.built, which
// `npm run build` (also `prepare`, so `npm ci`) stamps with the time its compile began; git gives
// the files it writes the time of the checkout or pull. About 250 stats, ~5 ms (2% of
// `makerd --help`). Not checked, as not a checkout: without src/ (the image), or installed under
// node_modules/ (npm dates each file as it unpacks it, src/ after dist/).
//
// Plain JS importing only node's own modules, so `makerd --help` costs node, this and commander.
import { readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// Paths joined by hand: node:path's join cost ~10 ms and 5 MB here, more than the stats.
const root = fileURLToPath(new URL('..', import.meta.url)); // ends in '/'
const INPUTS = ['src', 'strategies', 'tsconfig.json', 'tsconfig.build.json'];
const dist = new URL('../dist/src/cli/main.js', import.meta.url);
const sources = new URL('../src/cli/main.ts', import.meta.url);

const mtime = (path) => statSync(path, { throwIfNoEntry: false })?.mtimeMs;
const say = (line) => process.stderr.write(`makerd: ${line}\n`);

/** The newest mtime under `path`, the folder's own included (0 when absent). */
function newest(path) {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (stat === undefined) return 0;
  let latest = stat.mtimeMs;
  if (stat.isDirectory()) {
    for (const name of readdirSync(path)) latest = Math.max(latest, newest(`${path}/${name}`));
  }
  return latest;
}

async function registerTsx() {
  try {
    (await import('tsx/esm/api')).register();
    return true;
  } catch {
    return false;
  }
}

/** The main module to run, or undefined (said why, exit code set). */
async function chooseMain() {
  const built = mtime(dist) !== undefined;
  const installed = import.meta.url.includes('/node_modules/');
  if (installed || mtime(sources) === undefined) {
    if (built) return dist;
  } else {
    const builtAt = built ? mtime(`${root}dist/.built`) : undefined;
    // The console's page is served from its bundle in dist/console whatever runs the daemon.
    if (builtAt !== undefined && newest(`${root}console`) > builtAt) {
      say('dist/console (the operator console) is out of date: `npm run build` refreshes it');
    }
    if (builtAt !== undefined && INPUTS.every((input) => newest(`${root}${input}`) <= builtAt)) {
      return dist;
    }
    // On stderr (stdout carries the JSON log), for every command: it says why this start is slow.
    const state = built ? 'is out of date' : 'is not built';
    if (await registerTsx()) {
      say(`dist/ ${state}: running the sources through tsx; \`npm run build\` refreshes it`);
      return sources;
    }
    // Without tsx (npm ci --omit=dev) the build is what there is to run, as before this check.
    if (built) {
      say(`dist/ ${state} and tsx is not installed: running it; \`npm run build\` refreshes it`);
      return dist;
    }
  }
  say('dist/ is not built: `npm ci` (with dev dependencies) or `npm run build` builds it');
  process.exitCode = 1;
  return undefined;
}

const main = await chooseMain();
if (main !== undefined) await import(main.href);
