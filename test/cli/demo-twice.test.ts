import assert from 'node:assert/strict';
import { once } from 'node:events';
import { after, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { PairLease } from '../../src/executor/index.js';
import { REDIS_URL, deleteKeys, freshPrefix } from '../support/redis.js';
import { makerd, stop } from '../support/spawn.js';
import { until } from '../support/until.js';

/**
 * Two `makerd demo` on one machine: the second refuses before it touches anything, in one line
 * naming what runs and how to run both; a demo whose predecessor died starts all the same.
 */
void describe('makerd demo, twice', () => {
  const redis = new Redis(REDIS_URL);
  const prefix = freshPrefix();
  const other = freshPrefix();
  const early = freshPrefix();
  const env = { MAKERD_REDIS_URL: REDIS_URL, MAKERD_REDIS_PREFIX: prefix, MAKERD_HTTP_PORT: '0' };
  const demos: ReturnType<typeof makerd>[] = [];
  const demo = (more: Record<string, string> = {}) => {
    const d = makerd(['demo', '--json', '--status-every', '0'], { ...env, ...more });
    demos.push(d);
    return d;
  };
  /** Its exit code, or the signal that ended it, once it exits of its own. */
  const exit = (d: ReturnType<typeof makerd>) =>
    until('the demo exited', () => d.child.exitCode ?? d.child.signalCode ?? undefined);
  after(async () => {
    for (const d of demos) await stop(d.child);
    await deleteKeys(redis, prefix);
    await deleteKeys(redis, other);
    await deleteKeys(redis, early);
    redis.disconnect();
  });

  void it('refuses a second demo on the prefix or the port, clearing nothing; starts after a crash or a stop', async () => {
    const first = demo();
    const running = await first.waitFor('makerd demo running', 60_000);
    const lease = PairLease.keyFor(prefix, 'XXBTZUSD');
    const held = await redis.get(lease);
    assert.ok(held !== null, "the first demo's lease");
    // Its simulator is new: its REST level and ratecount model are its own, under its prefix, not
    // the paper key's that every process using that key on this Redis writes.
    await until('its REST level and ratecount under its prefix', async () =>
      (await redis.exists(`${prefix}:rest-level`, `${prefix}:ratecount:XXBTZUSD`)) === 2
        ? true
        : undefined,
    );

    const second = demo();
    assert.equal(await exit(second), 1);
    const url = REDIS_URL.replace(/\/$/, '');
    assert.match(
      second.stderr(),
      new RegExp(
        `^makerd: another makerd is running on ${url} under prefix ${prefix} \\(alive \\d+\\.\\d s ago\\): ` +
          `stop it, or run this one under a prefix and a port of its own: ` +
          `MAKERD_REDIS_PREFIX=${prefix}-2 MAKERD_HTTP_PORT=0 npx makerd demo\\n$`,
      ),
    );
    assert.equal(await redis.get(lease), held, "the first demo's state untouched");

    // Another prefix, the first's port: refused on the port before its prefix is cleared.
    await redis.set(`${other}:left-by-an-earlier-demo`, '1');
    const port = new URL(String(running.http)).port;
    const third = demo({ MAKERD_REDIS_PREFIX: other, MAKERD_HTTP_PORT: port });
    assert.equal(await exit(third), 2);
    assert.equal(
      third.stderr(),
      `makerd: http.port: 127.0.0.1:${port} is in use (another makerd process?): give each process its own http.port or MAKERD_HTTP_PORT; 0 picks a free one\n`,
    );
    assert.equal(await redis.exists(`${other}:left-by-an-earlier-demo`), 1, 'nothing cleared');

    // Killed, the first leaves its beats and leases behind: the next demo starts all the same.
    first.child.kill('SIGKILL');
    await once(first.child, 'exit');
    const next = demo();
    await next.waitFor('makerd demo running', 60_000);
    assert.equal(next.stderr(), '');
    // Stopped with Ctrl-C, its beats still fresh: the next one starts at once too.
    next.child.kill('SIGINT');
    assert.equal(await exit(next), 0);
    const again = demo();
    await again.waitFor('makerd demo running', 60_000);
    assert.equal(again.stderr(), '');
  });

  void it('stops in order on a Ctrl-C during the start-up, not killed by it', async () => {
    const d = demo({ MAKERD_REDIS_PREFIX: early });
    // Logged before the roles start: their start-up is still ahead.
    await d.waitFor(
      'demo: paper trading against a fresh simulator; Ctrl-C cancels every order and stops',
    );
    d.child.kill('SIGINT');
    assert.equal(await exit(d), 0);
    const msgs = d.lines.map((l) => l.msg);
    assert.ok(msgs.includes('makerd stopping'), 'the orderly stop ran');
    const summary = d.lines.find((l) => String(l.msg).startsWith('demo summary: ran'));
    assert.equal(summary?.ordersLeft, 0, 'no order left on the simulator');
  });
});
