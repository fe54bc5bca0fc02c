/**
 * The compose stack's `http-token` one-shot (config/compose/http-token.js), run as the stack runs
 * it but on paths of a temporary folder: it writes the given control and read tokens, or makes
 * them and keeps them, refuses a short one, and says in one line what to do when it cannot.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { parse } from 'yaml';

const SCRIPT = fileURLToPath(new URL('../../config/compose/http-token.js', import.meta.url));
const COMPOSE = fileURLToPath(new URL('../../docker-compose.yml', import.meta.url));

function run(...args: string[]): { status: number | null; stderr: string } {
  const r = spawnSync(process.execPath, [SCRIPT, ...args], { encoding: 'utf8' });
  return { status: r.status, stderr: r.stderr };
}

const LONG = 'a-given-token-of-more-than-32-characters';

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

  void it('writes the given secret, trimmed, and a new one over it (rotation)', () => {
    const secret = join(dir, 'secret');
    writeFileSync(secret, `  ${LONG} \n`);
    const out = join(dir, 'given');
    assert.deepEqual(run(secret, out), { status: 0, stderr: '' });
    assert.equal(readFileSync(out, 'utf8'), `${LONG}\n`);
    assert.equal(statSync(out).mode & 0o777, 0o600, 'the control token is for makerd only');
    writeFileSync(secret, `${LONG}-rotated`);
    assert.deepEqual(run(secret, out), { status: 0, stderr: '' });
    assert.equal(readFileSync(out, 'utf8'), `${LONG}-rotated\n`);
    assert.equal(existsSync(`${out}.new`), false, 'renamed over the old one');
  });

  void it('writes the read token apart, readable by Prometheus', () => {
    const readSecret = join(dir, 'read-secret');
    writeFileSync(readSecret, `${LONG}-read`);
    const [control, read] = [join(dir, 'control-out'), join(dir, 'read-out')];
    assert.deepEqual(run(join(dir, 'no-such-secret'), control, readSecret, read), {
      status: 0,
      stderr: '',
    });
    assert.match(readFileSync(control, 'utf8'), /^[0-9a-f]{64}\n$/);
    assert.equal(readFileSync(read, 'utf8'), `${LONG}-read\n`);
    assert.equal(statSync(read).mode & 0o777, 0o644);
  });

  void it('refuses a token shorter than makerd accepts off loopback, naming the variable', () => {
    const readSecret = join(dir, 'short-read');
    writeFileSync(readSecret, 'short');
    const { status, stderr } = run(
      join(dir, 'no-such-secret'),
      join(dir, 'c2'),
      readSecret,
      join(dir, 'r2'),
    );
    assert.equal(status, 1);
    assert.equal(
      stderr,
      'http-token: the token in MAKERD_HTTP_READ_TOKEN_FILE has 5 characters; makerd needs at ' +
        'least 32 (openssl rand -hex 32 makes one)\n',
    );
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
