/**
 * makerd's V8 settings (bin/v8-flags.js) are what the executor benchmark measures with: its npm
 * script passes the same flags to node, so a figure it prints is the daemon's.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';

const root = new URL('../../', import.meta.url);

describe('V8 flags', () => {
  it('bench:executor runs node with the flags bin/makerd.js sets, and no others', async () => {
    const { V8_FLAGS } = (await import(new URL('bin/v8-flags.js', root).href)) as {
      V8_FLAGS: readonly string[];
    };
    const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as {
      scripts: Record<string, string>;
    };
    const words = (pkg.scripts['bench:executor'] ?? '').split(/\s+/);
    assert.equal(words[0], 'node');
    const nodeFlags = words.slice(1, words.indexOf('--import'));
    assert.deepEqual(nodeFlags, [...V8_FLAGS]);
    assert.ok(V8_FLAGS.includes('--no-lazy'));
  });
});
