/**
 * The daemon runs compiled (dist/), where Node 20 cannot import a `.ts` file by itself: an
 * operator's TypeScript plugin is loaded through tsx, which a checkout has. Runs the compiled
 * loader in a Node without tsx; needs dist/ built from the current loader (CI builds it at
 * `npm ci`), and skips otherwise unless MAKERD_REQUIRE_TOOLS=1.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const loader = `${repo}dist/src/runner/strategy-loader.js`;
const mtime = (path: string): number => statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? 0;
const current = mtime(`${repo}dist/.built`) >= mtime(`${repo}src/runner/strategy-loader.ts`);

describe('a TypeScript strategy plugin under the compiled daemon', () => {
  it('loads through tsx', (t) => {
    if (!current || mtime(loader) === 0) {
      const why = 'dist/ is not built from the current sources (npm run build)';
      if (process.env.MAKERD_REQUIRE_TOOLS === '1') assert.fail(`${why}; required here`);
      t.skip(why);
      return;
    }
    const plugin = `${repo}test/runner/fixtures/fill-recorder.ts`;
    const script =
      `import { loadStrategy } from ${JSON.stringify(pathToFileURL(loader).href)};\n` +
      `const p = await loadStrategy(${JSON.stringify(plugin)}, { strategiesDir: ${JSON.stringify(`${repo}dist/strategies`)} });\n` +
      `process.stdout.write(p.name + ' ' + p.version);\n`;
    const out = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: repo,
      encoding: 'utf8',
      env: { ...process.env, NODE_OPTIONS: '' },
    });
    assert.equal(out.status, 0, out.stderr);
    assert.equal(out.stdout, 'fill-recorder 1.0.0');
  });
});
