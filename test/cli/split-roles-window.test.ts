/**
 * A role started in a process of its own shares the key with the other roles' processes; without
 * a nonce window their requests would reach the exchange out of nonce order, so the command
 * refuses to start, before it connects anywhere.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { it } from 'node:test';
import { stringify } from 'yaml';
import { closedPort } from '../support/client-for.js';
import { makerd } from '../support/spawn.js';

const REFUSAL =
  'makerd: exchange.nonce_window: is 0, but requests from separate processes reach the exchange ' +
  "out of nonce order; set the key's nonce window at the exchange and the same value here, or " +
  "run 'makerd run'\n";

void it('makerd runner|executor|supervisor refuse a key without a nonce window: exit 2, one line', async () => {
  // Nothing listens on this port: a command that tried to connect would fail otherwise.
  const port = await closedPort();
  const dir = mkdtempSync(join(tmpdir(), 'makerd-split-'));
  const config = join(dir, 'makerd.yaml');
  writeFileSync(
    config,
    stringify({
      exchange: { url: `http://127.0.0.1:${port}`, credentials: { from: 'env' } },
      redis: { url: `redis://127.0.0.1:${port}` },
      pairs: [{ pair: 'XBTUSD', strategy: { name: 'spread' } }],
      http: { port: 0 },
    }),
  );
  const env = {
    MAKERD_API_KEY: 'key-for-a-refused-start',
    MAKERD_API_SECRET: Buffer.alloc(64, 1).toString('base64'),
  };
  await Promise.all(
    ['runner', 'executor', 'supervisor'].map(async (role) => {
      const run = makerd([role, '--config', config, '--status-every', '0'], env);
      // 'close': the process exited and its output was read to the end.
      const [code] = (await once(run.child, 'close')) as [number | null];
      assert.equal(run.stderr(), REFUSAL, role);
      assert.equal(code, 2, role);
      assert.deepEqual(run.lines, [], `${role}: nothing logged, no role was started`);
    }),
  );
});
