import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { SpotClient } from '../../src/index.js';

const BIN = fileURLToPath(new URL('../../bin/makerd.js', import.meta.url));

describe('npx makerd sim', () => {
  it('starts on --port 0, prints where it listens, serves the spec and stops on SIGTERM', async () => {
    const child = spawn(process.execPath, [BIN, 'sim', '--port', '0', '--no-background'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      const lines = createInterface({ input: child.stdout });
      const [first] = (await once(lines, 'line')) as [string];
      const banner = JSON.parse(first) as {
        url: string;
        port: number;
        keys: string[];
        pairs: string[];
      };
      assert.ok(banner.port > 0);
      assert.deepEqual(banner.keys, ['paper-key']);
      assert.deepEqual(banner.pairs, ['XBTUSD', 'ETHUSD', 'ETHXBT']);

      const client = new SpotClient({
        baseUrl: banner.url,
        credentials: {
          apiKey: 'paper-key',
          apiSecret: 'bWFrZXJkLXBhcGVyLXRyYWRpbmctc2VjcmV0LW5vdC1mb3ItcmVhbC1tb25leQ==',
        },
      });
      try {
        const pairs = await client.assetPairs({});
        assert.equal(pairs.result.XXBTZUSD?.tick_size, '0.1');
        const balance = await client.balance();
        assert.equal(Number(balance.result.ZUSD), 100000);
      } finally {
        await client.close();
      }
    } finally {
      child.kill('SIGTERM');
      const [code] = (await once(child, 'exit')) as [number | null];
      assert.equal(code, 0);
    }
  });
});
