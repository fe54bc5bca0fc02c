import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, it } from 'node:test';
import { parse, stringify } from 'yaml';
import { BIN } from '../support/spawn.js';

const run = promisify(execFile);

function configFile(body: object): { dir: string; file: string } {
  const dir = mkdtempSync(join(tmpdir(), 'makerd-check-'));
  const file = join(dir, 'makerd.yaml');
  writeFileSync(file, stringify(body));
  return { dir, file };
}

const BASE = {
  exchange: { url: 'https://api.example.invalid', credentials: { from: 'env' } },
  pairs: [{ pair: 'XBTUSD', strategy: { name: 'spread' } }],
};

describe('makerd check-config', () => {
  it('prints the effective configuration with defaults and overrides, and secrets only as set or not', async () => {
    const { dir, file } = configFile(BASE);
    const secretFile = join(dir, 'secret');
    writeFileSync(secretFile, 'c2VjcmV0LXZhbHVl');
    const { stdout } = await run(process.execPath, [BIN, 'check-config', '--config', file], {
      env: {
        ...process.env,
        MAKERD_TIER: 'pro',
        MAKERD_API_KEY: 'KEY-abc123',
        MAKERD_API_SECRET: '',
        MAKERD_API_SECRET_FILE: secretFile,
        MAKERD_HTTP_TOKEN: '',
        MAKERD_HTTP_READ_TOKEN: '',
      },
    });
    const out = parse(stdout) as {
      exchange: { tier: string };
      supervisor: { heartbeat: { timeout_s: number }; resume: string };
      executor: { max_calls_in_flight: number };
      secrets: Record<string, string>;
    };
    assert.equal(out.exchange.tier, 'pro', 'MAKERD_TIER applied');
    assert.equal(out.supervisor.heartbeat.timeout_s, 60);
    assert.equal(out.supervisor.resume, 'operator');
    assert.equal(out.executor.max_calls_in_flight, 1);
    assert.deepEqual(out.secrets, {
      MAKERD_API_KEY: 'set',
      MAKERD_API_SECRET: `set (file ${secretFile})`,
      MAKERD_HTTP_TOKEN: 'not set',
      MAKERD_HTTP_READ_TOKEN: 'not set',
    });
    assert.equal(stdout.includes('KEY-abc123'), false, 'no secret value printed');
    assert.equal(stdout.includes('c2VjcmV0'), false, 'no secret value printed');
  });

  it('refuses a token that makerd run would refuse: under 32 characters off loopback', async () => {
    const { file } = configFile(BASE);
    const env = { ...process.env, MAKERD_HTTP_HOST: '0.0.0.0', MAKERD_HTTP_TOKEN: 'a' };
    await assert.rejects(
      run(process.execPath, [BIN, 'check-config', '--config', file], { env }),
      (err) => {
        const e = err as { code: number; stderr: string };
        assert.equal(e.code, 2);
        assert.match(
          e.stderr,
          /^makerd: MAKERD_HTTP_TOKEN: the token is 1 characters long; off loopback a token needs at least 32/m,
        );
        return true;
      },
    );
  });

  it('refuses a bad value naming the field, with exit status 2', async () => {
    const { file } = configFile({ ...BASE, supervisor: { heartbeat: { timeout_s: 0 } } });
    await assert.rejects(run(process.execPath, [BIN, 'check-config', '--config', file]), (err) => {
      const e = err as { code: number; stderr: string };
      assert.equal(e.code, 2);
      assert.match(e.stderr, /supervisor\.heartbeat\.timeout_s/);
      return true;
    });
  });
});
