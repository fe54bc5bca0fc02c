/**
 * `makerd status --config` reads Redis, not the exchange: with the exchange down it still shows
 * the state the roles left, and it always names the Redis and prefix it read, so a status of the
 * wrong one cannot pass for a bot at rest.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { stringify } from 'yaml';
import { systemClock } from '../../src/core/index.js';
import { redisStores, type RedisStores } from '../../src/daemon/stores.js';
import { recordTradedPairs } from '../../src/daemon/traded-pairs.js';
import { ratecountKeyFor } from '../../src/executor/index.js';
import { deleteKeys, freshPrefix, REDIS_URL } from '../support/redis.js';
import { BIN } from '../support/spawn.js';
import { trackedOrder } from '../support/tracked-order.js';

const KEY = { MAKERD_API_KEY: 'status-test-key', MAKERD_API_SECRET: 'c2VjcmV0' };
// Port 9 (discard): nothing listens there, as an exchange that is down.
const DOWN = 'http://127.0.0.1:9';

/** `makerd status` with this config and environment (REDIS_URL and MAKERD_* of ours removed). */
async function status(
  config: Record<string, unknown>,
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number | null; stdout: string; stderr: string; file: string }> {
  const file = join(mkdtempSync(join(tmpdir(), 'makerd-status-')), 'bot.yaml');
  writeFileSync(file, stringify(config));
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => k !== 'REDIS_URL' && !k.startsWith('MAKERD_')),
  );
  const child = spawn(process.execPath, [BIN, 'status', '--config', file], {
    env: { ...clean, ...KEY, ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, stdout, stderr, file };
}

const configFor = (prefix: string, redisUrl?: string) => ({
  exchange: { url: DOWN, credentials: { from: 'env' } },
  redis: { prefix, ...(redisUrl === undefined ? {} : { url: redisUrl }) },
  pairs: [{ pair: 'XBTUSD', strategy: { name: 'spread' } }],
});

describe('makerd status --config', () => {
  const redis = new Redis(REDIS_URL);
  const prefix = freshPrefix();
  let stores: RedisStores;

  before(async () => {
    // The state a bot leaves: a halt, a live runner, an order resting, a fill behind it.
    stores = redisStores({
      redis,
      prefix,
      ratecountKey: ratecountKeyFor(KEY.MAKERD_API_KEY),
      tier: 'starter',
      clock: systemClock,
    });
    await recordTradedPairs(redis, prefix, [{ id: 'XXBTZUSD', altname: 'XBTUSD' }]);
    const now = Date.now();
    await stores.flags.halt('exchange outage', 'operator:test', now);
    await stores.flags.beat('runner', now, 60_000);
    const order = trackedOrder({ price: '50000', volume: '0.1', openedAtMs: now });
    await stores.tracker.put(order);
    await stores.tracker.applyView(
      { ...order, volumeExecuted: '0.04', cost: '2000', fee: '0.5', state: 'partially-filled' },
      now,
    );
  });
  after(async () => {
    await stores?.close();
    await deleteKeys(redis, prefix);
    redis.disconnect();
  });

  it('with the exchange down, shows what Redis holds and says the exchange was not reached', async () => {
    const { code, stdout, stderr } = await status(configFor(prefix), { REDIS_URL });
    assert.equal(code, 0, stderr);
    const url = new URL(REDIS_URL);
    const lines = stdout.split('\n');
    assert.equal(lines[0], `Redis ${url.protocol}//${url.host}, prefix ${prefix} (from REDIS_URL)`);
    assert.match(
      lines[1] ?? '',
      /^exchange http:\/\/127\.0\.0\.1:9 could not be reached \(.*ECONNREFUSED/,
    );
    assert.match(stdout, /^HALTED: exchange outage \(by operator:test since /m);
    assert.match(stdout, /^runner: alive \(beat \d+ ms ago\)$/m);
    assert.match(
      stdout,
      /^XBTUSD: NO EXECUTOR, 1 open orders, base 0\.04, quote -2000\.5, .*\(fees 0\.5, 1 fills\)/m,
    );
  });

  it('names the Redis and prefix it read, and says when nothing of makerd is there', async () => {
    // The bot's Redis, a prefix it does not use, REDIS_URL unset; the password never shown.
    const url = new URL(REDIS_URL);
    const withPassword = `${url.protocol}//:hunter2@${url.host}`;
    const wrong = freshPrefix();
    const { code, stdout, file } = await status(configFor(wrong, withPassword));
    assert.equal(code, 1);
    assert.equal(
      stdout.split('\n')[0],
      `Redis ${url.protocol}//${url.host}, prefix ${wrong} ` +
        `(redis.url of ${file}; MAKERD_REDIS_URL and REDIS_URL unset)`,
    );
    assert.match(
      stdout,
      new RegExp(
        `^nothing of makerd's under prefix ${wrong} at ${url.protocol}//${url.host}: no role has run here\\. Is the bot on another Redis or prefix\\?`,
        'm',
      ),
    );
    assert.doesNotMatch(stdout, /hunter2|NOT ALIVE|trading \(not halted\)/);
    assert.equal(await redis.exists(`${wrong}:control:epoch`), 0, 'nothing written there');
  });
});
