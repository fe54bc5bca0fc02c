import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { stringify } from 'yaml';
import { SIGNAL_BURST_MS } from '../../src/cli/signals.js';
import { deleteKeys, freshPrefix, REDIS_URL } from '../support/redis.js';
import { makerd, stop } from '../support/spawn.js';
import { until, type SimStateView } from '../support/until.js';

const SIM_YAML = fileURLToPath(new URL('../../config/sim.yaml', import.meta.url));
const KEY = 'paper-key';

describe('makerd run', () => {
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  const sim = makerd(['sim', '--port', '0', '--config', SIM_YAML, '--seed', '5']);
  let simUrl: string;
  const configFor = (prefix: string): string => {
    const dir = mkdtempSync(join(tmpdir(), 'makerd-run-'));
    const file = join(dir, 'makerd.yaml');
    writeFileSync(
      file,
      stringify({
        exchange: {
          url: simUrl,
          tier: 'starter',
          credentials: { from: 'simulator', account: KEY, sim_config: SIM_YAML },
        },
        redis: { url: REDIS_URL, prefix },
        pairs: [{ pair: 'XBTUSD', strategy: { name: 'spread', options: { levels: 1 } } }],
        http: { port: 0 },
        supervisor: {
          heartbeat: { timeout_s: 30, interval_s: 10 },
          status: { interval_ms: 500 },
        },
      }),
    );
    return file;
  };
  const state = async (): Promise<SimStateView> =>
    (await (await fetch(`${simUrl}/_sim/state`)).json()) as SimStateView;
  const ours = async () => (await state()).open_orders.filter((o) => o.key === KEY);

  before(async () => {
    simUrl = String((await sim.waitFor('makerd sim listening')).url);
  });
  after(async () => {
    await stop(sim.child);
    redis.disconnect();
  });

  it('quotes, keeps the dead-man timer armed, and on SIGTERM stops, cancels, disarms and exits 0', async (t) => {
    const prefix = freshPrefix();
    const bot = makerd(['run', '--config', configFor(prefix), '--status-every', '0']);
    try {
      const running = await bot.waitFor('makerd running', 30_000);
      assert.match(String(running.http), /^http:\/\/127\.0\.0\.1:\d+$/);
      await until('our quotes on the book', async () =>
        (await ours()).length === 2 ? true : undefined,
      );
      await until('the dead-man timer armed', async () => (await state()).dead_man[KEY], 30_000);
      const termAt = Date.now();
      assert.equal(await stop(bot.child), 0);
      t.diagnostic(`SIGTERM → stopped, cancelled, disarmed, exited: ${Date.now() - termAt} ms`);
      const done = bot.lines.find(
        (l) => l.msg === 'shutdown: orders cancelled, dead-man timer disarmed',
      );
      assert.equal(done?.disarmed, true);
      assert.deepEqual(await ours(), []);
      assert.equal((await state()).dead_man[KEY], undefined);
      const index = (msg: string) => bot.lines.findIndex((l) => l.msg === msg);
      const cancelAt = index('shutdown: orders cancelled, dead-man timer disarmed');
      assert.ok(index('makerd stopping') < cancelAt && cancelAt < index('makerd stopped'));
    } finally {
      await stop(bot.child);
      await deleteKeys(redis, prefix);
    }
  });

  it('serves readiness, status and the metric families; a halt over HTTP makes it not ready', async () => {
    const prefix = freshPrefix();
    const bot = makerd(['run', '--config', configFor(prefix), '--status-every', '0']);
    try {
      const http = String((await bot.waitFor('makerd running', 30_000)).http);
      const get = async (path: string) => {
        const res = await fetch(`${http}${path}`);
        return { status: res.status, text: await res.text() };
      };
      const ready = await until(
        'ready',
        async () => {
          const r = await get('/readyz');
          return r.status === 200 ? r : undefined;
        },
        30_000,
      );
      assert.deepEqual(JSON.parse(ready.text), { ready: true, reasons: [] });
      assert.deepEqual(JSON.parse((await get('/healthz')).text), { ok: true });
      const status = JSON.parse((await get('/status')).text) as {
        mode: string;
        process: { executor: unknown; supervisor: { exchange: string } };
        pairs: { altname: string; executor: boolean }[];
      };
      assert.equal(status.mode, 'trading');
      assert.equal(status.process.supervisor.exchange, 'online');
      assert.deepEqual(
        status.pairs.map((p) => [p.altname, p.executor]),
        [['XBTUSD', true]],
      );
      await until('our quotes on the book', async () =>
        (await ours()).length === 2 ? true : undefined,
      );
      const metrics = (await get('/metrics')).text;
      assert.match(metrics, /^makerd_rest_counter_max 15$/m);
      assert.match(metrics, /^makerd_rest_counter_level \d/m);
      assert.match(metrics, /^makerd_intent_queue_depth\{pair="XBTUSD"\} \d+$/m);
      assert.match(metrics, /^makerd_mid_price\{pair="XBTUSD"\} \d/m);
      assert.match(metrics, /^makerd_quote_price\{pair="XBTUSD",side="buy"\} \d/m);
      assert.match(metrics, /^makerd_quoted_spread_bps\{pair="XBTUSD"\} \d/m);
      assert.match(metrics, /^process_cpu_seconds_total \d/m);
      assert.match(metrics, /^nodejs_eventloop_lag_p99_seconds \d/m);

      const halt = await fetch(`${http}/halt`, {
        method: 'POST',
        body: JSON.stringify({ reason: 'drill' }),
      });
      assert.equal(halt.status, 200);
      const halted = await get('/readyz');
      assert.equal(halted.status, 503);
      assert.ok(
        (JSON.parse(halted.text) as { reasons: string[] }).reasons.includes('halted: drill'),
        halted.text,
      );
      await until('our orders cancelled', async () =>
        (await ours()).length === 0 ? true : undefined,
      );
    } finally {
      await stop(bot.child);
      await deleteKeys(redis, prefix);
    }
  });

  it('takes a rotated token file on SIGHUP without a restart; the read token only reads', async () => {
    const prefix = freshPrefix();
    const dir = mkdtempSync(join(tmpdir(), 'makerd-run-token-'));
    const file = join(dir, 'control');
    const [old, rotated, read] = ['old-control-token', 'new-control-token', 'read-only-token'];
    writeFileSync(file, old);
    // A time utimes sets exactly, so the in-place rewrite below leaves the file's stamp as it was.
    utimesSync(file, 1_700_000_000, 1_700_000_000);
    const bot = makerd(['run', '--config', configFor(prefix), '--status-every', '0'], {
      MAKERD_HTTP_TOKEN: '',
      MAKERD_HTTP_TOKEN_FILE: file,
      MAKERD_HTTP_READ_TOKEN: read,
      MAKERD_HTTP_READ_TOKEN_FILE: '',
    });
    const call = async (method: string, path: string, token: string) =>
      (
        await fetch(`${http}${path}`, {
          method,
          headers: { authorization: `Bearer ${token}` },
          ...(method === 'POST' ? { body: '{"reason":"token drill"}' } : {}),
        })
      ).status;
    let http = '';
    try {
      http = String((await bot.waitFor('makerd running', 30_000)).http);
      assert.equal(await call('GET', '/status', old), 200);
      assert.equal(await call('GET', '/status', read), 200);
      assert.equal(await call('POST', '/halt', read), 403, 'the read token cannot halt');
      // Rewritten in place, its size and time unchanged: SIGHUP is what makes it read again.
      writeFileSync(file, rotated);
      utimesSync(file, 1_700_000_000, 1_700_000_000);
      bot.child.kill('SIGHUP');
      await bot.waitFor('SIGHUP: token files read again');
      assert.equal(await call('GET', '/status', old), 401, 'the old token');
      assert.equal(await call('POST', '/halt', rotated), 200, 'the new token');
      assert.equal(bot.lines.filter((l) => l.msg === 'makerd running').length, 1, 'no restart');
      assert.ok(
        bot.lines.every((l) => ![old, rotated, read].some((t) => JSON.stringify(l).includes(t))),
        'no token in the log',
      );
    } finally {
      await stop(bot.child);
      await deleteKeys(redis, prefix);
    }
  });

  it('a second signal a second after the first exits at once, while the first is still cancelling', async () => {
    const prefix = freshPrefix();
    const bot = makerd(['run', '--config', configFor(prefix), '--status-every', '0']);
    const faults = (body: object) =>
      fetch(`${simUrl}/_sim/faults`, { method: 'POST', body: JSON.stringify(body) });
    try {
      await bot.waitFor('makerd running', 30_000);
      // The exchange takes its time over CancelAll: the shutdown waits for it.
      await faults({ paths: ['CancelAll'], latency_ms: 5_000 });
      bot.child.kill('SIGTERM');
      const firstAt = Date.now();
      await bot.waitFor('makerd stopping');
      // Sooner, it would be taken for the same request (a burst: test/e2e/stall.test.ts).
      const left = firstAt + SIGNAL_BURST_MS + 100 - Date.now();
      if (left > 0) await new Promise((r) => setTimeout(r, left));
      const secondAt = Date.now();
      bot.child.kill('SIGTERM');
      const [code] = (await once(bot.child, 'exit')) as [number | null];
      assert.equal(code, 143);
      assert.ok(Date.now() - secondAt < 2_000, `exited ${Date.now() - secondAt} ms after`);
    } finally {
      await faults({});
      await stop(bot.child);
      await deleteKeys(redis, prefix);
    }
  });
});
