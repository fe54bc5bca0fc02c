#!/usr/bin/env node
// In a checkout (sources present, tsx installed) run the TypeScript sources, so an edit is never
// shadowed by a stale build; in an image or installed package run the compiled dist/.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

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
