import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { loadBotConfig, parseBotConfig } from '../../src/daemon/bot-config.js';
import { resolveCredentials } from '../../src/daemon/credentials.js';
import { pollPlan } from '../../src/daemon/runner-role.js';
import { InvalidInputError } from '../../src/core/index.js';

const SIM_YAML = fileURLToPath(new URL('../../config/sim.yaml', import.meta.url));

const PAPER = fileURLToPath(new URL('../../config/paper.yaml', import.meta.url));
const minimal = { pairs: [{ pair: 'XBTUSD', strategy: { name: 'spread' } }] };

function fieldError(fn: () => unknown): InvalidInputError {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof InvalidInputError, `expected InvalidInputError, got ${String(err)}`);
    return err;
  }
  assert.fail('no error');
}

describe('daemon configuration', () => {
  it("takes the key's nonce window: none by default, any whole number of ms, the paper one", () => {
    assert.equal(parseBotConfig(minimal, {}).exchange.nonce_window, 0);
    assert.equal(
      parseBotConfig({ ...minimal, exchange: { nonce_window: 10 } }, {}).exchange.nonce_window,
      10,
    );
    for (const bad of [-1, 2.5]) {
      const err = fieldError(() =>
        parseBotConfig({ ...minimal, exchange: { nonce_window: bad } }, {}),
      );
      assert.equal(err.field, 'exchange.nonce_window', String(bad));
    }
    const paper = loadBotConfig(PAPER, {});
    const sim = readFileSync(SIM_YAML, 'utf8');
    assert.match(sim, new RegExp(`nonce_window: ${paper.exchange.nonce_window}\\b`));
    assert.ok(paper.exchange.nonce_window > 0);
  });

  it('fills safe defaults for everything but the pairs', () => {
    const c = parseBotConfig(minimal, {});
    assert.equal(c.instance, 1);
    assert.equal(c.exchange.tier, 'starter');
    assert.deepEqual(c.exchange.credentials, {
      from: 'env',
      key_env: 'MAKERD_API_KEY',
      secret_env: 'MAKERD_API_SECRET',
    });
    assert.equal(c.redis.prefix, 'makerd');
    assert.equal(c.supervisor.heartbeat.interval_s, 20);
    assert.equal(c.supervisor.heartbeat.timeout_s, 60);
    assert.equal(c.supervisor.resume, 'operator');
    assert.equal(c.runner.intent_ttl_ms, 5_000);
    assert.deepEqual(c.pairs[0]?.strategy.options, {});
  });

  it('reads config/paper.yaml', () => {
    const c = loadBotConfig(PAPER, {});
    assert.deepEqual(
      c.pairs.map((p) => `${p.pair}:${p.strategy.name}`),
      ['XBTUSD:spread', 'ETHUSD:glft'],
    );
    assert.equal(c.exchange.credentials.from, 'simulator');
  });

  it("plans config/paper.yaml's polls within its tier, so the demo warns of nothing", () => {
    const c = loadBotConfig(PAPER, {});
    const plan = pollPlan(c, c.exchange.tier, ['XXBTZUSD', 'XETHZUSD']);
    assert.deepEqual(plan.warnings, []);
    assert.equal(plan.polls.find((p) => p.id === 'openOrders')?.intervalMs, 30_000);
  });

  it('plans a minimal config (exchange and pairs) on starter without a warning: its defaults stretch', () => {
    // Starter: 0.33 points/s x 0.8, less heartbeats (0.05/s) and the executor's syncs (2 points
    // per pair every 30 s) leaves 0.15/s for one pair, 0.08/s for two; the default intervals wish
    // 0.70 and 0.90 (OpenOrders 2/5 s, BalanceEx 1/10 s, Level3 1/5 s a pair, TradeVolume).
    const c = parseBotConfig({ exchange: { url: 'http://127.0.0.1:7878' }, ...minimal }, {});
    const one = pollPlan(c, 'starter', ['XXBTZUSD']);
    assert.deepEqual(one.warnings, []);
    assert.match(one.notes.join('\n'), /wish 0\.70 .* allows 0\.15 .* stretched x4\.77 \(default/);
    assert.equal(one.polls.find((p) => p.id === 'openOrders')?.intervalMs, 23_869);
    const two = pollPlan(c, 'starter', ['XXBTZUSD', 'XETHZUSD']);
    assert.deepEqual(two.warnings, []);
    assert.equal(two.notes.length, 2, 'private and public stretched');
  });

  it('takes deployment overrides from the environment, MAKERD_REDIS_URL over REDIS_URL', () => {
    const c = parseBotConfig(minimal, {
      REDIS_URL: 'redis://generic:6379',
      MAKERD_REDIS_URL: 'redis://specific:6379',
      MAKERD_TIER: 'pro',
      MAKERD_EXCHANGE_URL: 'http://127.0.0.1:9999',
    });
    assert.equal(c.redis.url, 'redis://specific:6379');
    assert.equal(c.exchange.tier, 'pro');
    assert.equal(c.exchange.url, 'http://127.0.0.1:9999');
  });

  it('takes the HTTP address from MAKERD_HTTP_HOST and MAKERD_HTTP_PORT, naming a bad port', () => {
    const c = parseBotConfig(minimal, {
      MAKERD_HTTP_HOST: '0.0.0.0',
      MAKERD_HTTP_PORT: '9500',
      MAKERD_HTTP_TOKEN_FILE: '/run/secrets/token',
    });
    assert.equal(c.http.host, '0.0.0.0');
    assert.equal(c.http.port, 9500);
    assert.throws(
      () => parseBotConfig(minimal, { MAKERD_HTTP_PORT: 'ninety' }),
      (err: Error) => err.message.includes('http.port'),
    );
  });

  const bad: [string, unknown, string, RegExp][] = [
    ['no pairs', {}, 'pairs', /expected required property/],
    ['an instance out of range', { ...minimal, instance: 200 }, 'instance', /less or equal to 127/],
    ['an unknown tier', { ...minimal, exchange: { tier: 'gold' } }, 'exchange.tier', /./],
    [
      'a deadline outside the exchange window',
      { ...minimal, runner: { intent_ttl_ms: 100 } },
      'runner.intent_ttl_ms',
      /greater or equal to 2000/,
    ],
    [
      'a misspelt runner option',
      { ...minimal, runner: { price_tolerence_bps: 3 } },
      'runner.price_tolerence_bps',
      /: unknown option; did you mean price_tolerance_bps\?$/,
    ],
    [
      'a deadline the exchange would refuse',
      { ...minimal, executor: { deadline_ms: 1_000 } },
      'executor.deadline_ms',
      /greater or equal to 2500/,
    ],
    [
      'a longest deadline under the shortest',
      { ...minimal, executor: { deadline_ms: 5_000, deadline_max_ms: 4_000 } },
      'executor.deadline_max_ms',
      /must be at least deadline_ms \(5000\), got 4000/,
    ],
    [
      'an unknown foreign-orders policy',
      { ...minimal, executor: { foreign_orders: 'adopt' } },
      'executor.foreign_orders',
      /./,
    ],
    [
      'an exchange URL without its scheme',
      { ...minimal, exchange: { url: '127.0.0.1:7878' } },
      'exchange.url',
      /^exchange\.url: must be a URL starting with http:\/\/ or https:\/\/, got "127\.0\.0\.1:7878"$/,
    ],
    [
      'a Redis URL of another scheme',
      { ...minimal, redis: { url: 'http://127.0.0.1:6379' } },
      'redis.url',
      /must be a URL starting with redis:\/\/ or rediss:\/\//,
    ],
    [
      'an HTTP endpoint off loopback without a token',
      { ...minimal, http: { host: '0.0.0.0' } },
      'http.token_env',
      /a token is required when http\.host is 0\.0\.0\.0.*set MAKERD_HTTP_TOKEN or MAKERD_HTTP_TOKEN_FILE/,
    ],
    [
      'a public origin with a path',
      { ...minimal, http: { public_origin: 'https://makerd.example.com/console' } },
      'http.public_origin',
      /^http\.public_origin: must be the origin the browser shows .*such as https:\/\/makerd\.example\.com; got "https:\/\/makerd\.example\.com\/console"$/,
    ],
    [
      'a public origin without its scheme',
      { ...minimal, http: { public_origin: 'makerd.example.com' } },
      'http.public_origin',
      /got "makerd\.example\.com"$/,
    ],
    [
      'a trusted proxy that is no address',
      { ...minimal, http: { trusted_proxies: ['127.0.0.1', 'proxy.lan'] } },
      'http.trusted_proxies[1]',
      /^http\.trusted_proxies\[1\]: must be an IP address, .*got "proxy\.lan"$/,
    ],
    [
      'a public origin without a token',
      { ...minimal, http: { public_origin: 'https://makerd.example.com' } },
      'http.token_env',
      /a token is required when http\.public_origin is set .*set MAKERD_HTTP_TOKEN or MAKERD_HTTP_TOKEN_FILE/,
    ],
    [
      'a heartbeat period not under its timeout',
      { ...minimal, supervisor: { heartbeat: { timeout_s: 10, interval_s: 10 } } },
      'supervisor.heartbeat.interval_s',
      /must be under timeout_s \(10\), got 10/,
    ],
    [
      'a misspelt market poll',
      { ...minimal, market: { polls: { depht: {} } } },
      'market.polls.depht',
      /: unknown option; did you mean depth\?$/,
    ],
  ];
  for (const [what, raw, field, reason] of bad) {
    it(`names the field and the reason for ${what}`, () => {
      const err = fieldError(() => parseBotConfig(raw, {}));
      assert.equal(err.field, field);
      assert.match(err.message, reason);
    });
  }

  it('takes a public origin as browsers write it and trusts no proxy unless told', () => {
    assert.deepEqual(parseBotConfig(minimal, {}).http.trusted_proxies, []);
    assert.equal(parseBotConfig(minimal, {}).http.public_origin, undefined);
    const c = parseBotConfig(
      {
        ...minimal,
        http: {
          public_origin: 'HTTPS://Makerd.Example.com:443/',
          trusted_proxies: ['127.0.0.1', '::ffff:10.0.0.2'],
        },
      },
      { MAKERD_HTTP_TOKEN: 'c'.repeat(32) },
    );
    assert.equal(c.http.public_origin, 'https://makerd.example.com');
    assert.deepEqual(c.http.trusted_proxies, ['127.0.0.1', '10.0.0.2']);
  });

  it('refuses a read token without a control token, which would leave acting unguarded', () => {
    const err = fieldError(() =>
      parseBotConfig(minimal, { MAKERD_HTTP_READ_TOKEN_FILE: '/run/secrets/read' }),
    );
    assert.equal(err.field, 'http.read_token_env');
    assert.match(err.message, /MAKERD_HTTP_READ_TOKEN is set but the control token is not/);
    const both = { MAKERD_HTTP_READ_TOKEN: 'r', MAKERD_HTTP_TOKEN: 'c' };
    assert.equal(parseBotConfig(minimal, both).http.read_token_env, 'MAKERD_HTTP_READ_TOKEN');
  });

  it('says which variable to set when the key is missing, and reads *_FILE', () => {
    const c = parseBotConfig(minimal, {});
    const err = fieldError(() => resolveCredentials(c.exchange, {}));
    assert.equal(err.field, 'MAKERD_API_KEY');
    assert.match(err.message, /MAKERD_API_KEY_FILE/);
    const dir = mkdtempSync(join(tmpdir(), 'makerd-secret-'));
    writeFileSync(join(dir, 'secret'), 'c2VjcmV0LXZhbHVl\n');
    const creds = resolveCredentials(c.exchange, {
      MAKERD_API_KEY: 'key-1',
      MAKERD_API_SECRET_FILE: join(dir, 'secret'),
    });
    assert.deepEqual(creds, { apiKey: 'key-1', apiSecret: 'c2VjcmV0LXZhbHVl' });
  });

  it('refuses the simulator paper account for a non-loopback exchange', () => {
    const c = parseBotConfig(
      {
        ...minimal,
        exchange: { url: 'https://api.example.com', credentials: { from: 'simulator' } },
      },
      {},
    );
    const err = fieldError(() => resolveCredentials(c.exchange, {}));
    assert.equal(err.field, 'exchange.credentials.from');
    assert.match(err.message, /api\.example\.com/);
    for (const url of ['http://10.0.0.7:7878', 'http://[2001:db8::1]:7878']) {
      const byAddress = parseBotConfig(
        { ...minimal, exchange: { url, credentials: { from: 'simulator' } } },
        {},
      );
      assert.equal(
        fieldError(() => resolveCredentials(byAddress.exchange, {})).field,
        'exchange.credentials.from',
      );
    }
  });

  it('takes the simulator paper account for a container of the same network (http://sim:7878)', () => {
    const c = parseBotConfig(
      {
        ...minimal,
        exchange: {
          url: 'http://sim:7878',
          credentials: { from: 'simulator', sim_config: SIM_YAML },
        },
      },
      {},
    );
    assert.equal(resolveCredentials(c.exchange, {}).apiKey, 'paper-key');
  });
});
