/**
 * `makerd record` as an operator runs it: against `makerd sim` in a process of its own, with the
 * paper key from the simulator's YAML, into a folder the reader reads back.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, afterEach, before, describe, it } from 'node:test';
import { stringify } from 'yaml';
import { RecordingReader, type RecordedRow } from '../../src/recording/index.js';
import { makerd, stop } from '../support/spawn.js';
import { until } from '../support/until.js';
import { collect, tempDir } from './helpers.js';

const SIM_YAML = fileURLToPath(new URL('../../config/sim.yaml', import.meta.url));

void describe('makerd record against makerd sim', () => {
  let sim: ReturnType<typeof makerd>;
  let simUrl: string;
  const cleanup: (() => void)[] = [];

  before(async () => {
    sim = makerd(['sim', '--port', '0', '--config', SIM_YAML, '--seed', '7']);
    simUrl = String((await sim.waitFor('makerd sim listening')).url);
  });
  after(async () => {
    await stop(sim.child);
  });
  afterEach(() => {
    for (const c of cleanup.splice(0)) c();
  });

  /** A config for the paper key and two pairs, with quick public polls. */
  function config(dir: string, extra: Record<string, unknown> = {}): string {
    const file = join(dir, 'makerd.yaml');
    writeFileSync(
      file,
      stringify({
        exchange: {
          url: simUrl,
          nonce_window: 5000,
          credentials: { from: 'simulator', account: 'paper-key', sim_config: SIM_YAML },
        },
        pairs: [
          { pair: 'XBTUSD', strategy: { name: 'spread' } },
          { pair: 'ETH/USD', strategy: { name: 'spread' } },
        ],
        market: {
          polls: {
            depth: { interval_ms: 500 },
            grouped_book: { interval_ms: 2000 },
            trades: { interval_ms: 2000 },
            level3: { enabled: true, interval_ms: 30_000 },
            open_orders: { interval_ms: 30_000 },
            balance: { interval_ms: 120_000 },
            system_status: { interval_ms: 2000 },
          },
        },
        ...extra,
      }),
    );
    return file;
  }

  void it('writes files the reader reads back with Depth rows for each pair; SIGINT prints the summary', async () => {
    const { dir, remove } = tempDir();
    cleanup.push(remove);
    const out = join(dir, 'rec');
    const rec = makerd(['record', '--config', config(dir), '--out', out]);
    await rec.waitFor('recording');
    await until('a progress line with rows', () =>
      rec.lines.find((l) => l.msg === 'record progress' && Number(l.rows) >= 10),
    );
    rec.child.kill('SIGINT');
    const [code] = (await once(rec.child, 'exit')) as [number | null];
    assert.equal(code, 0, rec.stderr());
    const summary = await rec.waitFor('record summary');
    assert.equal(summary.files, 3, 'XBTUSD, ETHUSD and _key');
    assert.equal(summary.gaps, 0);
    assert.ok(Number(summary.bytes) > 0);

    const reader = new RecordingReader(out);
    assert.deepEqual(reader.pairs(), ['ETHUSD', 'XBTUSD']);
    const rows: RecordedRow[] = await collect(reader.rows());
    assert.equal(rows.length, summary.rows);
    assert.deepEqual(reader.problems, [], 'files ended whole, nothing missing');
    for (const pair of ['XBTUSD', 'ETHUSD']) {
      const depth = rows.filter((r) => r.pair === pair && r.endpoint === 'Depth');
      assert.ok(depth.length >= 3, `${pair}: ${depth.length} Depth rows`);
      assert.match(depth[0]?.body ?? '', /"asks":\[\["\d+\.\d+","\d+\.\d+",\d+\]/);
      assert.ok(
        rows.some((r) => r.pair === pair && r.endpoint === 'Level3'),
        `${pair} Level3`,
      );
    }
    const endpoints = new Set(rows.filter((r) => r.pair === undefined).map((r) => r.endpoint));
    assert.deepEqual([...endpoints].sort(), ['AssetPairs', 'OpenOrders', 'SystemStatus']);
    assert.ok(!rows.some((r) => (r.body ?? '').includes('paper-key')), 'no key in the recording');
  });

  void it('refuses a disk without the free space asked for, in one line, exit 1', async () => {
    const { dir, remove } = tempDir();
    cleanup.push(remove);
    const out = join(dir, 'rec');
    const rec = makerd(['record', '--config', config(dir), '--out', out, '--min-free', '1e9']);
    const [code] = (await once(rec.child, 'exit')) as [number | null];
    assert.equal(code, 1);
    assert.match(
      rec.stderr(),
      new RegExp(`^makerd: record: ${out} has \\d+ MB free, needs at least 1000000000 MB\\n$`),
    );
  });

  void it('refuses a bad `record` setting of the daemon, naming the field', async () => {
    const { dir, remove } = tempDir();
    cleanup.push(remove);
    const check = makerd(['check-config', '--config', config(dir, { record: 'yes' })]);
    const [code] = (await once(check.child, 'exit')) as [number | null];
    assert.equal(code, 2);
    assert.equal(
      check.stderr(),
      'makerd: record: must be true, false or { dir: FOLDER }, got "yes"\n',
    );
  });
});
