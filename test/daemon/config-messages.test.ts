/**
 * The configuration errors a newcomer met (issue #41), each one line naming the field and a
 * reason that says what to write instead.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { parseWithSchema } from '../../src/core/index.js';
import { loadBotConfig, parseBotConfig } from '../../src/daemon/bot-config.js';
import { checkPairsOffline } from '../../src/daemon/config-pairs.js';
import spread from '../../strategies/spread.js';

const SIM_YAML = fileURLToPath(new URL('../../config/sim.yaml', import.meta.url));
const minimal = { pairs: [{ pair: 'XBTUSD', strategy: { name: 'spread' } }] };

function messageOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    return (err as Error).message;
  }
  assert.fail('no error');
}

/** A config file in a folder of its own (no sim.yaml beside it, as outside config/). */
function configFile(body: object): string {
  const file = join(mkdtempSync(join(tmpdir(), 'makerd-messages-')), 'makerd.yaml');
  writeFileSync(file, stringify(body));
  return file;
}

void describe('configuration errors say what to write', () => {
  it('a choice lists its values', () => {
    assert.equal(
      messageOf(() => parseBotConfig({ ...minimal, exchange: { tier: 'platinum' } }, {})),
      'exchange.tier: must be one of starter, intermediate, pro, got "platinum"',
    );
    assert.equal(
      messageOf(() => parseBotConfig({ ...minimal, log: { level: 'verbose' } }, {})),
      'log.level: must be one of trace, debug, info, warn, error, got "verbose"',
    );
  });

  it('a value from the environment names the variable as well as the option', () => {
    assert.equal(
      messageOf(() => parseBotConfig(minimal, { MAKERD_TIER: 'platinum' })),
      'exchange.tier (set by MAKERD_TIER): must be one of starter, intermediate, pro, got "platinum"',
    );
    assert.equal(
      messageOf(() => parseBotConfig(minimal, { MAKERD_HTTP_PORT: 'ninety' })),
      'http.port (set by MAKERD_HTTP_PORT): expected integer, got "ninety"',
    );
    assert.equal(
      messageOf(() => parseBotConfig(minimal, { REDIS_URL: '127.0.0.1:6379' })),
      'redis.url (set by REDIS_URL): must be a URL starting with redis:// or rediss://, got "127.0.0.1:6379"',
    );
    // The same mistake in the file names no variable.
    assert.match(
      messageOf(() => parseBotConfig({ ...minimal, exchange: { tier: 'gold' } }, {})),
      /^exchange\.tier: must be one of/,
    );
  });

  it('a number where a decimal string is expected says to quote it', () => {
    assert.equal(
      messageOf(() =>
        parseWithSchema(spread.options, { order_size: 0.01 }, 'pairs[0].strategy.options'),
      ),
      "pairs[0].strategy.options.order_size: expected a string, got the number 0.01: quote it ('0.01')",
    );
  });

  it('a misspelt key gets "did you mean", inside a choice of sections too', () => {
    const exchange = (e: object) => () => parseBotConfig({ ...minimal, exchange: e }, {});
    assert.equal(
      messageOf(exchange({ credentail: { from: 'env' } })),
      'exchange.credentail: unknown option; did you mean credentials?',
    );
    assert.equal(
      messageOf(exchange({ credentials: { from: 'env', key_evn: 'MY_KEY' } })),
      'exchange.credentials.key_evn: unknown option; did you mean key_env?',
    );
    assert.equal(
      messageOf(exchange({ credentials: { from: 'envv' } })),
      'exchange.credentials.from: must be one of env, simulator, got "envv"',
    );
    // A required key misspelt: the typo is named, not the key it left missing.
    const pair = (p: object) => () => parseBotConfig({ pairs: [p] }, {});
    assert.equal(
      messageOf(pair({ pair: 'XBTUSD', stratgy: { name: 'spread' } })),
      'pairs.0.stratgy: unknown option; did you mean strategy?',
    );
    assert.equal(
      messageOf(pair({ piar: 'XBTUSD', strategy: { name: 'spread' } })),
      'pairs.0.piar: unknown option; did you mean pair?',
    );
    assert.equal(
      messageOf(pair({ pair: 'XBTUSD', strategy: { nmae: 'spread' } })),
      'pairs.0.strategy.nmae: unknown option; did you mean name?',
    );
    assert.equal(
      messageOf(pair({ pair: 'XBTUSD' })),
      'pairs.0.strategy: expected required property, got nothing',
    );
    assert.equal(
      messageOf(() => parseBotConfig({ ...minimal, zzz: 1 }, {})),
      'zzz: unknown option; the options here are instance, exchange, redis, pairs, http, record, ' +
        'market, runner, executor, supervisor, log',
    );
  });

  it('a config outside config/ without sim.yaml beside it names exchange.credentials.sim_config', () => {
    const file = configFile({ ...minimal, exchange: { credentials: { from: 'simulator' } } });
    assert.equal(
      messageOf(() => loadBotConfig(file, {})),
      `exchange.credentials.sim_config: no file ${join(file, '..', 'sim.yaml')} (a relative path ` +
        `is read from the config file's folder): name the simulator's YAML, such as ${SIM_YAML}`,
    );
  });

  it("an unknown pair, against the simulator's YAML the config names (no exchange to ask)", () => {
    const settings = (pair: string) =>
      loadBotConfig(
        configFile({
          exchange: { credentials: { from: 'simulator', sim_config: SIM_YAML } },
          pairs: [minimal.pairs[0], { pair, strategy: { name: 'spread' } }],
        }),
        {},
      );
    assert.equal(
      messageOf(() => checkPairsOffline(settings('XBTUSDD'), '/')),
      `pairs[1].pair: unknown pair "XBTUSDD" on the simulator (${SIM_YAML}): did you mean ` +
        'XBTUSD? it lists ETHUSD, ETHXBT, XBTUSD',
    );
    assert.match(
      messageOf(() => checkPairsOffline(settings('SOLUSD'), '/')),
      /^pairs\[1\]\.pair: unknown pair "SOLUSD" on the simulator \(.*\): it lists ETHUSD, /,
    );
    // Id, altname or wsname, any case, as the exchange's AssetPairs takes them.
    for (const name of ['XETHZUSD', 'eth/usd', 'EthUsd']) {
      assert.equal(checkPairsOffline(settings(name), '/'), SIM_YAML, name);
    }
    // A real exchange's pairs are known from its AssetPairs only, at start.
    const real = parseBotConfig(
      { ...minimal, pairs: [{ pair: 'XBTUSDD', strategy: { name: 'spread' } }] },
      {},
    );
    assert.equal(checkPairsOffline(real, '/'), undefined);
  });
});
