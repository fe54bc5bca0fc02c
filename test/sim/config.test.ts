import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { InvalidInputError } from '../../src/core/index.js';
import { loadSimConfig, parseSimConfig } from '../../src/sim/index.js';

describe('simulator config', () => {
  it('fills defaults: loopback, port 7878, XBT/USD, ETH/USD and ETH/XBT markets', () => {
    const c = parseSimConfig({});
    assert.equal(c.host, '127.0.0.1');
    assert.equal(c.port, 7878);
    assert.deepEqual(
      c.pairs.map((p) => [p.id, p.altname, p.wsname]),
      [
        ['XXBTZUSD', 'XBTUSD', 'XBT/USD'],
        ['XETHZUSD', 'ETHUSD', 'ETH/USD'],
        ['XETHXXBT', 'ETHXBT', 'ETH/XBT'],
      ],
    );
    assert.equal(c.enforce_limits, true);
  });

  it('loads config/sim.yaml of the repository', () => {
    const c = loadSimConfig(new URL('../../config/sim.yaml', import.meta.url).pathname);
    assert.equal(c.accounts[0]?.key, 'paper-key');
    assert.equal(c.accounts[0]?.permissions.includes('funds-withdraw'), false);
    assert.equal(c.background.enabled, true);
  });

  it('names the bad field and the reason', () => {
    const bad = (value: unknown, field: RegExp, reason: RegExp): void => {
      assert.throws(
        () => parseSimConfig(value),
        (err: unknown) =>
          err instanceof InvalidInputError && field.test(err.field) && reason.test(err.message),
      );
    };
    bad({ port: 70000 }, /^sim\.port$/, /65535/);
    bad(
      { accounts: [{ key: 'k', secret: 'c2VjcmV0', tier: 'gold' }] },
      /^sim\.accounts\.0\.tier$/,
      /gold/,
    );
    bad(
      { accounts: [{ key: 'k', secret: 'c2VjcmV0', balances: { DOGE: '1' } }] },
      /^sim\.accounts\.0\.balances\.DOGE$/,
      /unknown asset/,
    );
    bad(
      {
        accounts: [
          { key: 'k', secret: 'c2VjcmV0' },
          { key: 'k', secret: 'c2VjcmV0' },
        ],
      },
      /^sim\.accounts\.1\.key$/,
      /duplicate/,
    );
    bad({ background: { step_ms: 1 } }, /^sim\.background\.step_ms$/, /10/);
  });

  it('reports an unreadable or malformed file by name', () => {
    const dir = mkdtempSync(join(tmpdir(), 'makerd-sim-'));
    const file = join(dir, 'bad.yaml');
    writeFileSync(file, 'port: [1, 2\n');
    assert.throws(() => loadSimConfig(file), /not valid YAML/);
    assert.throws(() => loadSimConfig(join(dir, 'missing.yaml')), /cannot read/);
  });
});
