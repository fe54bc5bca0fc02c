/**
 * The compose stack's `http-token` one-shot (config/compose/http-token.js), run as the stack runs
 * it but on paths of a temporary folder: it writes the given token, or makes one and keeps it,
 * and says in one line what to do when it cannot.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { parse } from 'yaml';

const SCRIPT = fileURLToPath(new URL('../../config/compose/http-token.js', import.meta.url));
const COMPOSE = fileURLToPath(new URL('../../docker-compose.yml', import.meta.url));

function run(secret: string, out: string): { status: number | null; stderr: string } {
  const r = spawnSync(process.execPath, [SCRIPT, secret, out], { encoding: 'utf8' });
  return { status: r.status, stderr: r.stderr };
}

void describe('the http-token one-shot', () => {
  const dir = mkdtempSync(join(tmpdir(), 'makerd-http-token-'));

  void it('is what the compose stack runs', () => {
    const compose = parse(readFileSync(COMPOSE, 'utf8')) as {
      services: Record<string, { command?: unknown }>;
    };
    assert.deepEqual(compose.services['http-token']?.command, [
      'node',
      'config/compose/http-token.js',
    ]);
  });

  void it('makes a random token when no secret is given, and keeps it on the next start', () => {
    const out = join(dir, 'made');
    assert.deepEqual(run(join(dir, 'no-such-secret'), out), { status: 0, stderr: '' });
    const token = readFileSync(out, 'utf8');
    assert.match(token, /^[0-9a-f]{64}\n$/);
    assert.deepEqual(run(join(dir, 'no-such-secret'), out), { status: 0, stderr: '' });
    assert.equal(readFileSync(out, 'utf8'), token);
  });

  void it('writes the given secret, trimmed', () => {
    const secret = join(dir, 'secret');
    writeFileSync(secret, '  s3cret-token \n');
    const out = join(dir, 'given');
    assert.deepEqual(run(secret, out), { status: 0, stderr: '' });
    assert.equal(readFileSync(out, 'utf8'), 's3cret-token\n');
  });

  void it('says in one line what to do with a secret it cannot read', () => {
    // Tests may run as root, whom file modes do not stop: a folder cannot be read as a file.
    const secret = join(dir, 'unreadable');
    mkdirSync(secret);
    const { status, stderr } = run(secret, join(dir, 'never'));
    assert.equal(status, 1);
    assert.equal(
      stderr,
      `http-token: cannot read the token secret ${secret}: make the file MAKERD_HTTP_TOKEN_FILE ` +
        'names readable by the container user (uid 1000), e.g. chmod 644, or unset it to ' +
        'generate one (EISDIR)\n',
    );
  });
});
