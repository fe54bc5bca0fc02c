#!/usr/bin/env node
// Runs the compiled CLI when a build exists (containers), and the TypeScript sources through tsx
// otherwise, so that `npx makerd` works right after `npm ci` in a fresh clone.
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const built = fileURLToPath(new URL('../dist/src/cli/main.js', import.meta.url));
if (existsSync(built)) {
  await import(pathToFileURL(built).href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import(new URL('../src/cli/main.ts', import.meta.url).href);
}
