/**
 * `record: { dir }` in the daemon's config: `makerd run` records what its runner polls while it
 * trades, our own orders' OpenOrders answers included (replay takes them out of the book).
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { RecordingReader } from '../../src/recording/index.js';
import { stop } from '../support/spawn.js';
import { startPaperRun, type PaperRun } from '../support/paper-run.js';
import { until } from '../support/until.js';
import { collect, tempDir } from './helpers.js';

void describe('makerd run with record: { dir }', () => {
  let run: PaperRun;
  const { dir, remove } = tempDir();
  const out = join(dir, 'live');

  before(async () => {
    run = await startPaperRun(5, { record: { dir: out } });
  });
  after(async () => {
    await run.close();
    remove();
  });

  void it('records the market and its own open orders while it quotes', async () => {
    const { bot } = await run.start();
    await until('recording logged', () => bot.lines.find((l) => l.msg === 'recording the market'));
    await until('both pairs quoted', async () => {
      const pairs = new Set((await run.orders()).map((o) => o.pair));
      return pairs.size === 2 ? true : undefined;
    });
    // Files end whole when the process stops: read them then.
    assert.equal(await stop(bot.child), 0, bot.stderr());

    const reader = new RecordingReader(out);
    assert.deepEqual(reader.pairs(), ['ETHUSD', 'XBTUSD']);
    const rows = await collect(reader.rows());
    assert.deepEqual(reader.problems, []);
    for (const pair of ['XBTUSD', 'ETHUSD']) {
      assert.ok(
        rows.some((r) => r.pair === pair && r.endpoint === 'Depth'),
        `${pair} Depth`,
      );
    }
    const key = rows.filter((r) => r.pair === undefined).map((r) => r.endpoint);
    assert.ok(key.includes('OpenOrders'), key.join(','));
    assert.ok(key.includes('AssetPairs'), key.join(','));
    const text = rows.map((r) => r.body ?? '').join('\n');
    assert.ok(!text.includes(run.apiKey), 'no key in the recording');
  });
});
