#!/usr/bin/env node
// In a checkout (sources present, tsx installed) run the TypeScript sources, so an edit is never
// shadowed by a stale build; in an image or installed package run the compiled dist/.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';

// Every function of the modules loaded from here on is compiled as its module loads, not on its
// first call: a process's first orders otherwise paid for compiling the whole path to the wire
// (first AddOrderBatch 5.8-9.4 ms from its snapshot in the executor benchmark, 3.0 ms with this).
// Costs ~15 MB of memory and ~0.2 s at start. Set before main is imported, so its whole module
// graph is compiled so; `npm run bench:executor` passes the same flag to node.
setFlagsFromString('--no-lazy');

const source = new URL('../src/cli/main.ts', import.meta.url);
const built = new URL('../dist/src/cli/main.js', import.meta.url);

async function tsxAvailable() {
  try {
    const { register } = await import('tsx/esm/api');
    register();
    return true;
  } catch {
    return false;
  }
}

if (existsSync(fileURLToPath(source)) && (await tsxAvailable())) {
  await import(source.href);
} else {
  await import(built.href);
}
