/**
 * `npx makerd` in a checkout: npm links the checkout into its npx cache and runs its `prepare`
 * first, output hidden. That must not build (a silent build of half a minute) nor fail (silence,
 * and a broken cache entry for every later `npx makerd`): the bin says what it does. A checkout
 * reduced to what npx and the bin read, before `npm ci`, with an npm cache of its own.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const temp = mkdtempSync(join(tmpdir(), 'makerd-npx-'));
after(() => rmSync(temp, { recursive: true, force: true }));

const checkout = join(temp, 'checkout');
for (const file of ['package.json', 'bin/makerd.js', 'scripts/build.js', 'src/cli/main.ts']) {
  mkdirSync(dirname(join(checkout, file)), { recursive: true });
  copyFileSync(join(repo, file), join(checkout, file));
}

function npx(): { status: number | null; stdout: string; stderr: string } {
  const run = spawnSync('npx', ['--yes', 'makerd', '--help'], {
    cwd: checkout,
    encoding: 'utf8',
    env: {
      ...process.env,
      npm_config_cache: join(temp, 'npm-cache'),
      npm_config_update_notifier: 'false',
      npm_config_audit: 'false',
      npm_config_fund: 'false',
    },
    timeout: 60_000,
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe('npx makerd in a fresh checkout', () => {
  it('says to run npm ci, the first time and the next', () => {
    const said =
      'makerd: dist/ is not built: `npm ci` (with dev dependencies) or `npm run build` builds it\n';
    for (const attempt of ['first', 'second']) {
      const { status, stdout, stderr } = npx();
      assert.deepEqual(
        { status, stdout, stderr },
        { status: 1, stdout: '', stderr: said },
        attempt,
      );
    }
  });
});
