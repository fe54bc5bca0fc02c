import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { after, before, describe, it } from 'node:test';
import { freePort } from '../../src/core/free-port.js';
import { startPaperRun, type PaperRun } from '../support/paper-run.js';
import { redisServer } from '../support/redis-server.js';
import { until } from '../support/until.js';

interface Status {
  readonly mode: string;
  readonly stateSinceMs?: number;
}

/**
 * Issue #32 item 5: the Redis makerd keeps its state in dies and comes back empty while makerd
 * runs halted. The halt must survive (a lost flag must not resume trading), the loss must be said
 * plainly, and after the operator's resume makerd quotes again with no rate-limit refusal.
 */
void describe('makerd run: Redis restarted empty', () => {
  let run: PaperRun;
  let port: number;
  let redis: ChildProcess;

  before(async () => {
    port = await freePort();
    redis = await redisServer(port);
    run = await startPaperRun(31);
  });
  after(async () => {
    await run.close();
    redis.kill('SIGKILL');
  });

  void it('keeps the halt, says what was lost, and quotes after the resume without refusals', async () => {
    const { bot, http } = await run.start({ REDIS_URL: `redis://127.0.0.1:${port}` });
    const status = async (): Promise<Status> =>
      (await (await fetch(`${http}/status`)).json()) as Status;
    const quotingBoth = async (): Promise<true | undefined> =>
      new Set((await run.orders()).map((o) => o.pair)).size === 2 ? true : undefined;
    await until('both pairs quoted', quotingBoth);
    const halt = await fetch(`${http}/halt`, {
      method: 'POST',
      body: JSON.stringify({ reason: 'operator test' }),
    });
    assert.equal(halt.status, 200, await halt.text());
    await until('halted with no order left', async () =>
      (await status()).mode === 'halted' && (await run.orders()).length === 0 ? true : undefined,
    );

    redis.kill('SIGKILL');
    await once(redis, 'exit');
    const restartedAt = Date.now();
    redis = await redisServer(port);

    const said = await until(
      'the loss logged',
      () => bot.lines.find((l) => String(l.msg).startsWith('Redis lost makerd state')),
      30_000,
    );
    assert.equal(said.haltRestored, true);
    const after = await status();
    assert.equal(after.mode, 'halted', 'still halted after the loss');
    assert.ok((after.stateSinceMs ?? 0) >= restartedAt, 'figures counted from the new state');

    await until(
      'resumed',
      async () => {
        await fetch(`${http}/resume`, { method: 'POST', body: '{}' });
        return (await status()).mode === 'trading' ? true : undefined;
      },
      20_000,
      500,
    );
    await until('both pairs quoted again', quotingBoth, 30_000);
    const { rejections } = await run.state();
    assert.equal(rejections['EOrder:Rate limit exceeded'], undefined, JSON.stringify(rejections));
    assert.equal(bot.child.exitCode, null, 'still running');
  });
});
