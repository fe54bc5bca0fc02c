import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { ManualClock } from '../../src/core/index.js';
import { parseJsonBigInts } from '../../src/exchange/parse/json.js';
import { RecordingReader, RecordingWriter, type RecordedRow } from '../../src/recording/index.js';
import { collect, depthRow, filesIn, freeMb, tempDir } from './helpers.js';

const HOUR = 3_600_000;
/** 2026-11-27T05:00:00Z */
const T0 = Date.UTC(2026, 10, 27, 5);
const INTERVALS = { Depth: 1500, SystemStatus: 5000 };

const cleanup: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanup.splice(0)) c();
});

function folder(): string {
  const t = tempDir();
  cleanup.push(t.remove);
  return t.dir;
}

function open(dir: string, clock: ManualClock, extra: object = {}) {
  return RecordingWriter.open({
    dir,
    clock,
    intervalsMs: INTERVALS,
    tier: 'starter',
    statfs: freeMb(10_000),
    ...extra,
  });
}

void describe('recording writer and reader', () => {
  void it('round-trips a Level3 body with 19-digit ns timestamps and decimal strings exactly', async () => {
    const dir = folder();
    const clock = new ManualClock(T0);
    const writer = await open(dir, clock);
    const body =
      '{"error":[],"result":{"pair":"XBTUSD","bids":[{"price":"50000.10000","qty":"0.12345678","order_id":"OABC",' +
      '"timestamp":1764219600123456789}],\n"asks":[]}}';
    writer.write({ askedMs: T0, receivedMs: T0 + 7, endpoint: 'Level3', pair: 'XBTUSD', body });
    await writer.close();

    const [row] = await collect(new RecordingReader(dir).rows());
    assert.equal(row?.body, body.replace('\n', ' '));
    const parsed = parseJsonBigInts(row?.body ?? '') as {
      result: { bids: { timestamp: bigint; price: string; qty: string }[] };
    };
    const bid = parsed.result.bids[0];
    assert.equal(bid?.timestamp, 1764219600123456789n);
    assert.equal(bid?.price, '50000.10000');
    assert.equal(bid?.qty, '0.12345678');
    assert.deepEqual(writer.stats(), { files: 1, rows: 1, bytes: writer.stats().bytes, gaps: 0 });
    assert.ok(writer.stats().bytes > 0);
  });

  void it('rotates at the hour and tells its owner the new hour came', async () => {
    const dir = folder();
    const clock = new ManualClock(T0 + HOUR - 2_000);
    const hours: number[] = [];
    const writer = await open(dir, clock, { onNewHour: (h: number) => hours.push(h) });
    writer.write(depthRow('XBTUSD', T0 + HOUR - 1_000));
    writer.write(depthRow('XBTUSD', T0 + HOUR + 200));
    await writer.close();
    const s = writer.sessionStartMs;
    assert.deepEqual(filesIn(dir, 'XBTUSD'), [
      `2026-11-27T05.${s}.jsonl.gz`,
      `2026-11-27T06.${s}.jsonl.gz`,
    ]);
    assert.deepEqual(hours, [T0 + HOUR]);
    const rows = await collect(new RecordingReader(dir).rows());
    assert.deepEqual(
      rows.map((r) => r.receivedMs),
      [T0 + HOUR - 1_000, T0 + HOUR + 200],
    );
  });

  void it('a restart writes new files; both sessions read back in time order, across pairs', async () => {
    const dir = folder();
    const clock = new ManualClock(T0);
    const first = await open(dir, clock);
    for (let i = 0; i < 3; i++) {
      first.write(depthRow('XBTUSD', T0 + i * 1000));
      first.write(depthRow('ETHUSD', T0 + i * 1000 + 500));
    }
    await first.close();
    await clock.advance(10_000);
    const second = await open(dir, clock);
    for (let i = 0; i < 3; i++) second.write(depthRow('XBTUSD', T0 + 10_000 + i * 1000));
    second.write({
      askedMs: T0 + 10_100,
      receivedMs: T0 + 10_200,
      endpoint: 'SystemStatus',
      pair: undefined,
      body: '{"error":[],"result":{"status":"online"}}',
    });
    await second.close();

    assert.equal(filesIn(dir, 'XBTUSD').length, 2);
    const reader = new RecordingReader(dir);
    assert.deepEqual(reader.pairs(), ['ETHUSD', 'XBTUSD']);
    const all = await collect(reader.rows());
    const times = all.map((r) => r.receivedMs);
    assert.deepEqual(
      times,
      [...times].sort((a, b) => a - b),
    );
    assert.equal(all.length, 10);
    assert.deepEqual(
      all.filter((r) => r.pair === 'XBTUSD').map((r) => r.receivedMs - T0),
      [0, 1000, 2000, 10_000, 11_000, 12_000],
    );
    assert.equal(all.find((r) => r.endpoint === 'SystemStatus')?.pair, undefined);
    const windowed = await collect(
      reader.pairRows('xbtusd', { fromMs: T0 + 1000, toMs: T0 + 11_000 }),
    );
    assert.deepEqual(
      windowed.map((r) => r.receivedMs - T0),
      [1000, 2000, 10_000],
    );
    // The 8 s the recorder was down is a gap of XBTUSD, reported once however often it is read.
    assert.deepEqual(
      reader.problems.map((p) => [p.kind, p.pair, (p.fromMs ?? 0) - T0, (p.toMs ?? 0) - T0]),
      [['gap', 'XBTUSD', 2000, 10_000]],
    );
  });

  void it('reads a file cut in the middle of the gzip stream up to the cut, and says so', async () => {
    const dir = folder();
    const clock = new ManualClock(T0);
    const writer = await open(dir, clock);
    for (let i = 0; i < 400; i++) {
      writer.write(depthRow('XBTUSD', T0 + i * 1500, `5000${i}.5`));
      if (i % 50 === 49) await writer.flush();
    }
    await writer.flush();
    // The writer is still open: the file has no trailer, as when its process was killed.
    const [name] = filesIn(dir, 'XBTUSD');
    const path = join(dir, 'XBTUSD', name ?? '');
    const bytes = readFileSync(path);
    await writer.close();
    writeFileSync(path, bytes.subarray(0, Math.floor(bytes.length * 0.55)));

    const reader = new RecordingReader(dir);
    const rows = await collect(reader.rows());
    assert.ok(rows.length > 150 && rows.length < 400, `read ${rows.length} rows`);
    rows.forEach((r, i) => assert.equal(r.receivedMs, T0 + i * 1500));
    assert.equal(reader.problems.length, 1);
    assert.equal(
      reader.problems[0]?.message,
      `XBTUSD/${name}: cut short after ${rows.length} rows (the recorder stopped while writing)`,
    );
  });

  void it('reports a corrupt line with its line number and reads on', async () => {
    const dir = folder();
    const header = JSON.stringify({
      makerd_recording: 1,
      pair: 'XBTUSD',
      sessionStartMs: T0,
      intervalsMs: INTERVALS,
      tier: 'starter',
    });
    const good = (ms: number): string => JSON.stringify({ a: ms, t: ms, e: 'Depth', p: 'XBTUSD' });
    const lines = [header, good(T0), '{"a":1,"t":"soon","e":"Depth"}', good(T0 + 1000), '{"a":2,'];
    const { mkdirSync } = await import('node:fs');
    mkdirSync(join(dir, 'XBTUSD'));
    writeFileSync(
      join(dir, 'XBTUSD', `2026-11-27T05.${T0}.jsonl.gz`),
      gzipSync(`${lines.join('\n')}\n`),
    );

    const reader = new RecordingReader(dir);
    const seen: string[] = [];
    reader.onProblem((p) => seen.push(p.message));
    const rows = await collect(reader.rows());
    assert.deepEqual(
      rows.map((r) => r.receivedMs),
      [T0, T0 + 1000],
    );
    assert.deepEqual(seen, [
      `XBTUSD/2026-11-27T05.${T0}.jsonl.gz line 3: "t" (received at, ms) must be a number`,
      `XBTUSD/2026-11-27T05.${T0}.jsonl.gz line 5: not a JSON object`,
    ]);
    assert.deepEqual(
      reader.problems.map((p) => p.line),
      [3, 5],
    );
  });

  void it('names an unknown endpoint once per file and reads the rows it knows', async () => {
    const dir = folder();
    const header = JSON.stringify({
      makerd_recording: 2,
      pair: 'XBTUSD',
      sessionStartMs: T0,
      intervalsMs: {},
      tier: 'imported',
    });
    const row = (ms: number, e: string): string => JSON.stringify({ a: ms, t: ms, e, p: 'XBTUSD' });
    const lines = [header, row(T0, 'Depth'), row(T0 + 1, 'Ticker'), row(T0 + 2, 'Ticker')];
    const { mkdirSync } = await import('node:fs');
    mkdirSync(join(dir, 'XBTUSD'));
    writeFileSync(
      join(dir, 'XBTUSD', `2026-11-27T05.${T0}.jsonl.gz`),
      gzipSync(`${[...lines, row(T0 + 3, 'BookUpdate')].join('\n')}\n`),
    );
    const reader = new RecordingReader(dir);
    const rows = await collect(reader.rows());
    assert.deepEqual(
      rows.map((r) => r.endpoint),
      ['Depth', 'BookUpdate'],
    );
    assert.equal(reader.problems.length, 1);
    assert.match(
      reader.problems[0]?.message ?? '',
      /^XBTUSD\/2026-11-27T05\.\d+\.jsonl\.gz line 3: unknown endpoint "Ticker" \(this makerd reads Depth, .*BookUpdate\); its rows are skipped$/,
    );
  });

  void it('skips a file of another version, saying so', async () => {
    const dir = folder();
    const { mkdirSync } = await import('node:fs');
    mkdirSync(join(dir, 'XBTUSD'));
    writeFileSync(
      join(dir, 'XBTUSD', `2026-11-27T05.${T0}.jsonl.gz`),
      gzipSync('{"makerd_recording":3}\n{"a":1,"t":1,"e":"Depth"}\n'),
    );
    const reader = new RecordingReader(dir);
    assert.deepEqual(await collect(reader.rows()), []);
    assert.equal(
      reader.problems[0]?.message,
      `XBTUSD/2026-11-27T05.${T0}.jsonl.gz: a recording of version 3; this makerd reads versions 1 and 2`,
    );
  });

  void it('reports a gap in a pair’s Depth answers and counts it while writing', async () => {
    const dir = folder();
    const clock = new ManualClock(T0);
    const writer = await open(dir, clock);
    for (const s of [0, 1.5, 3, 20, 21.5]) writer.write(depthRow('XBTUSD', T0 + s * 1000));
    writer.write({
      askedMs: T0 + 22_000,
      receivedMs: T0 + 27_000,
      endpoint: 'Depth',
      pair: 'XBTUSD',
      error: 'TRANSPORT_TIMEOUT: headers timeout (Depth, trace none)',
    });
    await writer.close();
    assert.equal(writer.stats().gaps, 2, 'the silence and the error row');

    const reader = new RecordingReader(dir);
    const rows = await collect(reader.rows());
    assert.equal(rows.length, 6);
    assert.equal(rows[5]?.error, 'TRANSPORT_TIMEOUT: headers timeout (Depth, trace none)');
    assert.deepEqual(
      reader.problems.map(({ kind, pair, fromMs, toMs }) => ({ kind, pair, fromMs, toMs })),
      [{ kind: 'gap', pair: 'XBTUSD', fromMs: T0 + 3000, toMs: T0 + 20_000 }],
    );
    assert.equal(
      reader.problems[0]?.message,
      'XBTUSD: no Depth answer from 2026-11-27T05:00:03.000Z to 2026-11-27T05:00:20.000Z (17.0 s, more than 3x its 1500 ms interval)',
    );
  });

  void it('counts a source that stops answering as a gap once, on the flush timer', async () => {
    const dir = folder();
    const clock = new ManualClock(T0);
    const writer = await open(dir, clock);
    writer.write(depthRow('XBTUSD', T0));
    await clock.advance(4_000);
    assert.equal(writer.stats().gaps, 0);
    await clock.advance(2_000);
    assert.equal(writer.stats().gaps, 1);
    await clock.advance(10_000);
    assert.equal(writer.stats().gaps, 1);
    await writer.close();
  });

  void it('names a pair the recording lacks and lists those present', async () => {
    const dir = folder();
    const writer = await open(dir, new ManualClock(T0));
    writer.write(depthRow('XBTUSD', T0));
    await writer.close();
    await assert.rejects(collect(new RecordingReader(dir).rows({ pairs: ['XBTUSD', 'DOGEUSD'] })), {
      message: `recording ${dir} has no pair DOGEUSD; pairs present: XBTUSD`,
    });
  });

  void it('refuses a nearly full disk at start, and stops when the disk fills up', async () => {
    const dir = folder();
    const clock = new ManualClock(T0);
    await assert.rejects(open(dir, clock, { statfs: freeMb(12) }), {
      message: `record: ${dir} has 12 MB free, needs at least 100 MB`,
    });

    let free = 500;
    let stopped: (message: string) => void = () => undefined;
    const stop = new Promise<string>((resolve) => (stopped = resolve));
    const writer = await open(dir, clock, {
      statfs: () => Promise.resolve({ bavail: free * 256, bsize: 4096 }),
      diskCheckEveryMs: 10_000,
      onStop: (err: Error) => stopped(err.message),
    });
    writer.write(depthRow('XBTUSD', T0));
    free = 40;
    await clock.advance(10_000);
    assert.equal(await stop, `record: ${dir} has 40 MB free, needs at least 100 MB`);
    writer.write(depthRow('XBTUSD', T0 + 11_000));
    await writer.close();
    assert.equal(writer.stats().rows, 1);
    const rows: RecordedRow[] = await collect(new RecordingReader(dir).rows());
    assert.equal(rows.length, 1, 'the file written before the stop is whole');
  });
});
