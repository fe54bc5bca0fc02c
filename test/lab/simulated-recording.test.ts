import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { recordSimulated } from '../../src/cli/record-simulated.js';
import { RecordingReader, type RecordedRow } from '../../src/recording/index.js';
import { PAPER_INTERVALS_MS, simulateMarket } from '../../src/lab/simulated-recording.js';

const START_MS = Date.UTC(2026, 10, 1, 0, 58);

/** Every print the Trades answers hold, by the tape cursor each came with (no repeats). */
function prints(rows: readonly RecordedRow[]): string[] {
  const seen: string[] = [];
  for (const row of rows.filter((r) => r.endpoint === 'Trades')) {
    const result = (JSON.parse(row.body as string) as { result: Record<string, unknown> }).result;
    const list = Object.entries(result).find(([k]) => k !== 'last')?.[1] as unknown[][];
    for (const t of list) seen.push(JSON.stringify(t));
  }
  return seen;
}

async function simulate(tradesCount?: number): Promise<RecordedRow[]> {
  const rows: RecordedRow[] = [];
  await simulateMarket(
    {
      pairs: ['XBTUSD'],
      startMs: START_MS,
      durationMs: 4 * 60_000,
      takersPerSec: 4,
      ...(tradesCount === undefined ? {} : { tradesCount }),
    },
    (row) => rows.push(row),
  );
  return rows;
}

describe('simulated recording', () => {
  let dir: string;
  before(() => (dir = mkdtempSync(join(tmpdir(), 'makerd-simulated-'))));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('records every print: a full Trades answer is asked again at once', async () => {
    const all = await simulate();
    const capped = await simulate(3);
    const full = prints(all);
    assert.ok(full.length > 200, `${full.length} prints in 4 minutes`);
    assert.equal(new Set(full).size, full.length, 'the cursor never repeats a print');
    assert.deepEqual(prints(capped), full, 'the same prints, three at a time');
    const asked = (rows: RecordedRow[]): number =>
      rows.filter((r) => r.endpoint === 'Trades').length;
    assert.ok(asked(capped) > asked(all) * 3, `${asked(capped)} calls for ${asked(all)}`);
  });

  it("polls at the paper config's cadence and asks the pair rules each hour", async () => {
    const rows = await simulate();
    const depth = rows.filter((r) => r.endpoint === 'Depth').map((r) => r.askedMs);
    assert.deepEqual(
      depth.slice(1).map((t, i) => t - (depth[i] as number)),
      new Array(depth.length - 1).fill(PAPER_INTERVALS_MS.Depth),
    );
    // Starting at 00:58, the recording crosses 01:00: the rules are asked at start and at the hour.
    const rules = rows.filter((r) => r.endpoint === 'AssetPairs').map((r) => r.askedMs);
    assert.deepEqual(rules, [START_MS, Date.UTC(2026, 10, 1, 1, 0)]);
  });

  it('`makerd record --simulated` writes a recording the reader accepts', async () => {
    const out = new PassThrough();
    let text = '';
    out.on('data', (d: Buffer) => (text += d.toString()));
    const rec = join(dir, 'rec');
    await recordSimulated(
      { out: rec, minutes: '1.5', seed: '3' },
      out as unknown as NodeJS.WriteStream,
    );
    assert.match(text, /^recorded 1\.5 simulated minute\(s\) of XBTUSD, ETHUSD \(seed 3\)/);
    const reader = new RecordingReader(rec);
    assert.deepEqual(reader.pairs(), ['ETHUSD', 'XBTUSD']);
    const endpoints = new Set<string>();
    let last = -Infinity;
    for await (const row of reader.rows()) {
      endpoints.add(row.endpoint);
      assert.ok(row.receivedMs >= last, 'in receive order');
      last = row.receivedMs;
    }
    assert.deepEqual([...endpoints].sort(), ['AssetPairs', 'Depth', 'SystemStatus', 'Trades']);
    assert.deepEqual(reader.problems, []);
    await assert.rejects(recordSimulated({ out: rec, minutes: '0' }), {
      message: /^--minutes: with --simulated, give the recording's length in minutes/,
    });
  });
});
