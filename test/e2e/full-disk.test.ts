import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import {
  closeSync,
  mkdtempSync,
  openSync,
  readdirSync,
  rmSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { RecordingReader } from '../../src/recording/index.js';
import { startPaperRun, type Bot, type PaperRun } from '../support/paper-run.js';
import { stop } from '../support/spawn.js';
import { until } from '../support/until.js';
import { collect } from '../recording/helpers.js';

const run = promisify(execFile);

/**
 * Above the recorder's 100 MB reserve (recording refuses to start below it), so the disk fills
 * while it records, as another process (or the recording itself) would fill it.
 */
const SIZE = '110m';

/** Mounts a tmpfs of its own at `dir`, or says why not (not root, no mount in this container). */
async function mountTmpfs(dir: string): Promise<string | undefined> {
  if (process.getuid?.() !== 0) return 'mounting a tmpfs needs root';
  try {
    await run('mount', ['-t', 'tmpfs', '-o', `size=${SIZE}`, 'tmpfs', dir]);
    return undefined;
  } catch (err) {
    return `mount -t tmpfs failed: ${(err as Error).message.split('\n')[0] ?? ''}`;
  }
}

/** Every file under `dir` with its size. */
function sizes(dir: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const f of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    const st = statSync(join(dir, f));
    if (st.isFile()) out[f] = st.size;
  }
  return out;
}

/** Writes `path` until the filesystem refuses with ENOSPC. */
function fill(path: string): void {
  const fd = openSync(path, 'w');
  const chunk = Buffer.alloc(1024 * 1024, 0x55);
  try {
    for (;;) writeSync(fd, chunk);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
  } finally {
    closeSync(fd);
  }
}

/**
 * Issue #42 item 6: a disk that fills up under a trading daemon's recording (`record:`). Trading
 * goes on, one error line names the file and the reason, and recording stops cleanly: no crash,
 * nothing buffered for a disk that takes nothing.
 */
void describe('makerd run: the recording disk fills up', () => {
  const mnt = mkdtempSync(join(tmpdir(), 'makerd-full-disk-'));
  const out = join(mnt, 'rec');
  let skip: string | undefined;
  let paper: PaperRun | undefined;
  let bot: Bot;

  before(async () => {
    skip = await mountTmpfs(mnt);
    if (skip !== undefined) return;
    paper = await startPaperRun(44, { record: { dir: out } });
    ({ bot } = await paper.start());
  });
  after(async () => {
    await paper?.close();
    if (skip === undefined) await run('umount', [mnt]);
    rmSync(mnt, { recursive: true, force: true });
  });

  void it('keeps trading, logs one error naming the file and ENOSPC, and stops recording', async (t) => {
    if (skip !== undefined || paper === undefined) {
      t.skip(skip);
      return;
    }
    const p = paper;
    await until('recording logged', () => bot.lines.find((l) => l.msg === 'recording the market'));
    await until('both pairs quoted', async () =>
      new Set((await p.orders()).map((o) => o.pair)).size === 2 ? true : undefined,
    );
    const filler = join(mnt, 'filler');
    fill(filler);
    const fullAtMs = Date.now();
    const stopped = await until(
      'the recording stopping',
      () => bot.lines.find((l) => l.component === 'record' && l.level === 'error'),
      30_000,
      50,
    ).catch((err: unknown) => {
      throw new Error(
        `${(err as Error).message}; last lines ${JSON.stringify(bot.lines.slice(-5))}`,
      );
    });
    const stoppedMs = Date.now() - fullAtMs;
    assert.match(
      String(stopped.msg),
      new RegExp(`^record: cannot write ${out}/(XBTUSD|ETHUSD|_key)/[^ ]+\\.jsonl\\.gz: ENOSPC$`),
    );
    assert.equal(stopped.dir, out);

    // Room again: a recorder still holding rows would write them now. Trading goes on
    // meanwhile: an order placed after this, the process up and not halted.
    const files = sizes(out);
    unlinkSync(filler);
    const roomAtS = Date.now() / 1000;
    await until(
      'an order placed after the recording stopped',
      async () => {
        const all = [...(await p.orders()), ...(await p.closedOrders())];
        return all.some((o) => (o as unknown as { opentm: number }).opentm >= roomAtS);
      },
      20_000,
      200,
    );
    assert.deepEqual(sizes(out), files, 'nothing written after the stop');
    assert.equal(bot.child.exitCode, null, 'still running');
    const errors = bot.lines.filter((l) => l.level === 'error' || l.level === 'fatal');
    assert.deepEqual(
      errors.map((l) => l.msg),
      [stopped.msg],
      'the one error line',
    );
    assert.equal(await stop(bot.child), 0, bot.stderr());

    // Clean: what was written before the disk filled reads back; the files cut short by the
    // full disk are reported as truncated, nothing worse.
    const reader = new RecordingReader(out);
    const rows = await collect(reader.rows());
    assert.ok(rows.length > 0, 'rows recorded before the disk filled');
    assert.deepEqual(
      reader.problems.filter((x) => x.kind !== 'truncated'),
      [],
    );
    t.diagnostic(
      `recording stopped ${stoppedMs} ms after the disk filled; ${rows.length} rows readable; ` +
        `problems: ${JSON.stringify(reader.problems.map((x) => x.kind))}`,
    );
  });
});
