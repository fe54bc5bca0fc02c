/**
 * A configuration the daemon cannot run with is refused in one line naming the field, before any
 * role connects to Redis or the exchange: nothing listens on the ports these configs name, so a
 * command that tried to connect would fail otherwise, and nothing is logged. A Redis that does
 * not answer is one line too, naming redis.url, with nothing started.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { stringify } from 'yaml';
import { closedPort } from '../support/client-for.js';
import { makerd } from '../support/spawn.js';

const ENV = {
  MAKERD_API_KEY: 'key-for-a-refused-start',
  MAKERD_API_SECRET: Buffer.alloc(64, 1).toString('base64'),
  MAKERD_HTTP_TOKEN: '',
  MAKERD_HTTP_TOKEN_FILE: '',
  MAKERD_HTTP_READ_TOKEN: '',
  MAKERD_HTTP_READ_TOKEN_FILE: '',
  // The test runner sets REDIS_URL, which would override the configs' redis.url.
  REDIS_URL: '',
  MAKERD_REDIS_URL: '',
  MAKERD_EXCHANGE_URL: '',
};

async function configWith(overrides: Record<string, unknown>): Promise<string> {
  const port = await closedPort();
  const file = join(mkdtempSync(join(tmpdir(), 'makerd-refusal-')), 'makerd.yaml');
  writeFileSync(
    file,
    stringify({
      exchange: { url: `http://127.0.0.1:${port}`, credentials: { from: 'env' } },
      redis: { url: `redis://127.0.0.1:${port}` },
      pairs: [{ pair: 'XBTUSD', strategy: { name: 'spread' } }],
      ...overrides,
    }),
  );
  return file;
}

async function refusal(
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number | null; stderr: string }> {
  const run = makerd(args, { ...ENV, ...env });
  const [code] = (await once(run.child, 'close')) as [number | null];
  assert.deepEqual(run.lines, [], 'nothing logged: no role was started');
  return { code, stderr: run.stderr() };
}

void describe('makerd refuses a configuration it cannot run with, first', () => {
  void it('runner|executor|supervisor: a key without a nonce window, exit 2, one line', async () => {
    // A role in a process of its own shares the key with the other roles' processes; without a
    // nonce window their requests would reach the exchange out of nonce order.
    const config = await configWith({ http: { port: 0 } });
    await Promise.all(
      ['runner', 'executor', 'supervisor'].map(async (role) => {
        const { code, stderr } = await refusal([role, '--config', config, '--status-every', '0']);
        assert.equal(
          stderr,
          'makerd: exchange.nonce_window: is 0, but requests from separate processes reach the ' +
            "exchange out of nonce order; set the key's nonce window at the exchange and the same " +
            "value here, or run 'makerd run'\n",
          role,
        );
        assert.equal(code, 2, role);
      }),
    );
  });

  void it('run: an HTTP endpoint off loopback without a token', async () => {
    const config = await configWith({ http: { host: '0.0.0.0', port: 0 } });
    const { code, stderr } = await refusal(['run', '--config', config, '--status-every', '0']);
    assert.equal(
      stderr,
      'makerd: http.token_env: a token is required when http.host is 0.0.0.0, not loopback ' +
        '(anyone reaching it could halt the bot): set MAKERD_HTTP_TOKEN or MAKERD_HTTP_TOKEN_FILE\n',
    );
    assert.equal(code, 2);
  });

  void it('run: a token shorter than 32 characters off loopback, naming the variable', async () => {
    const config = await configWith({ http: { host: '0.0.0.0', port: 0 } });
    const args = ['run', '--config', config, '--status-every', '0'];
    const short = await refusal(args, { MAKERD_HTTP_TOKEN: 'a' });
    assert.equal(
      short.stderr,
      'makerd: MAKERD_HTTP_TOKEN: the token is 1 characters long; off loopback a token needs at ' +
        'least 32 (openssl rand -hex 32 makes one)\n',
    );
    assert.equal(short.code, 2);
    const file = join(mkdtempSync(join(tmpdir(), 'makerd-read-token-')), 'read-token');
    writeFileSync(file, 'r'.repeat(31));
    const read = await refusal(args, {
      MAKERD_HTTP_TOKEN: 'c'.repeat(32),
      MAKERD_HTTP_READ_TOKEN_FILE: file,
    });
    assert.match(read.stderr, /^makerd: MAKERD_HTTP_READ_TOKEN_FILE: the token is 31 characters/);
  });

  void it('check-config: an exchange URL without its scheme', async () => {
    const config = await configWith({});
    writeFileSync(
      config,
      stringify({
        exchange: { url: '127.0.0.1:7878', credentials: { from: 'env' } },
        pairs: [{ pair: 'XBTUSD', strategy: { name: 'spread' } }],
      }),
    );
    const { code, stderr } = await refusal(['check-config', '--config', config]);
    assert.equal(
      stderr,
      'makerd: exchange.url: must be a URL starting with http:// or https://, got "127.0.0.1:7878"\n',
    );
    assert.equal(code, 2);
  });

  void it('run: a Redis that does not answer, in one line without the password', async () => {
    // Port 9 (discard), as the demo test's "no Redis": nothing listens there.
    const config = await configWith({
      redis: { url: 'redis://makerd:hunter2@127.0.0.1:9' },
      http: { port: 0 },
    });
    const { code, stderr } = await refusal(['run', '--config', config, '--status-every', '0']);
    assert.equal(
      stderr,
      'makerd: redis.url: cannot connect to redis://127.0.0.1:9: connect ECONNREFUSED 127.0.0.1:9\n',
    );
    assert.equal(code, 1);
  });

  void it('check-config: a file that is not YAML, in one line', async () => {
    const config = await configWith({});
    writeFileSync(config, 'exchange: [unclosed\n  pairs: {\n');
    const { code, stderr } = await refusal(['check-config', '--config', config]);
    assert.equal(
      stderr,
      `makerd: --config: ${config} is not valid YAML: Implicit keys of flow sequence pairs need ` +
        'to be on a single line at line 1, column 12\n',
    );
    assert.equal(code, 2);
  });

  void it('check-config: an unknown pair, a misspelt strategy, no sim.yaml beside the config', async () => {
    const simConfig = fileURLToPath(new URL('../../config/sim.yaml', import.meta.url));
    const simulator = (sim_config: string, pair: string, strategy: string) =>
      configWith({
        exchange: { url: 'http://127.0.0.1:7878', credentials: { from: 'simulator', sim_config } },
        pairs: [{ pair, strategy: { name: strategy } }],
      });
    // Exit 2 for bad input; a strategy that cannot be loaded is 1, as any plugin failure.
    const cases: [Promise<string>, string, number][] = [
      [
        simulator(simConfig, 'XBTUSDD', 'spread'),
        `makerd: pairs[0].pair: unknown pair "XBTUSDD" on the simulator (${simConfig}): did you ` +
          'mean XBTUSD? it lists ETHUSD, ETHXBT, XBTUSD\n',
        2,
      ],
      [
        simulator(simConfig, 'XBTUSD', 'spraed'),
        'makerd: pairs[0].strategy.name: strategy "spraed": not found: no strategy and no ' +
          'installed npm package of that name; did you mean spread? the strategies are ' +
          'avellaneda-stoikov, glft, spread, or name a plugin file by its path (./my-strategy.ts)\n',
        1,
      ],
      [
        simulator('sim.yaml', 'XBTUSD', 'spread'),
        'makerd: exchange.credentials.sim_config: no file <dir>/sim.yaml (a relative path is ' +
          `read from the config file's folder): name the simulator's YAML, such as ${simConfig}\n`,
        2,
      ],
    ];
    await Promise.all(
      cases.map(async ([file, expected, exitCode]) => {
        const config = await file;
        const { code, stderr } = await refusal(['check-config', '--config', config]);
        assert.equal(stderr, expected.replace('<dir>', dirname(config)));
        assert.equal(code, exitCode);
      }),
    );
  });

  void it('run and check-config: a bad strategy option, before Redis or the exchange', async () => {
    const config = await configWith({
      pairs: [{ pair: 'XBTUSD', strategy: { name: 'spread', options: { order_size: '-1' } } }],
      http: { port: 0 },
    });
    for (const args of [['run', '--status-every', '0'], ['check-config']]) {
      const { code, stderr } = await refusal([...args, '--config', config]);
      assert.match(stderr, /^makerd: pairs\[0\]\.strategy\.options\.order_size: [^\n]+\n$/);
      assert.equal(code, 2, args[0]);
    }
  });
});
