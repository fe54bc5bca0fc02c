import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { makeOutFolder } from '../../src/lab/make-out-folder.js';

describe('makeOutFolder', () => {
  const dir = mkdtempSync(join(tmpdir(), 'makerd-out-folder-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('makes sibling folders at once under a parent both find missing (two sweep workers)', async () => {
    const runs = join(dir, 'sweep', 'runs');
    await Promise.all([
      makeOutFolder('--out', join(runs, '001')),
      makeOutFolder('--out', join(runs, '002')),
    ]);
    assert.ok(statSync(join(runs, '001')).isDirectory());
    assert.ok(statSync(join(runs, '002')).isDirectory());
  });

  it('refuses a path under a file, naming the flag', async () => {
    const file = join(dir, 'file');
    writeFileSync(file, 'x');
    await assert.rejects(makeOutFolder('--out', join(file, 'out')), {
      message: `--out: ${join(file, 'out')}: ENOTDIR`,
    });
  });
});
