import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { constants, createGzip, type Gzip } from 'node:zlib';
import type { Clock } from '../core/index.js';
import {
  DEFAULT_MIN_FREE_BYTES,
  prepareDir,
  RecordingStoppedError,
  requireFreeSpace,
  type StatFs,
} from './disk-space.js';
import {
  encodeRow,
  KEY_FOLDER,
  RECORDING_VERSION,
  segmentPath,
  type RecordedEndpoint,
  type RecordedRow,
  type RecordingHeader,
} from './format.js';
import { GapWatch } from './gap-watch.js';

export interface RecordingWriterOptions {
  readonly dir: string;
  readonly clock: Clock;
  /** The polls' intervals, for the headers and the gap count. */
  readonly intervalsMs: Readonly<Partial<Record<RecordedEndpoint, number>>>;
  readonly tier: string;
  /** Names this process's files; default: the clock's now at open. */
  readonly sessionStartMs?: number;
  /** How often written rows are flushed to the file (what a crash may lose). */
  readonly flushEveryMs?: number;
  readonly minFreeBytes?: number;
  readonly diskCheckEveryMs?: number;
  /** fs.statfs unless given (tests simulate a full disk). */
  readonly statfs?: StatFs;
  /** Told once if recording stops by itself (a full disk, a file that cannot be written). */
  readonly onStop?: (err: RecordingStoppedError) => void;
  /** Told when the first row of a new hour arrives (the recorder asks for the pair rules again). */
  readonly onNewHour?: (hourMs: number) => void;
}

export interface RecordingStats {
  readonly files: number;
  readonly rows: number;
  /** Compressed bytes written to disk. */
  readonly bytes: number;
  readonly gaps: number;
}

const HOUR_MS = 3_600_000;
const SAFE_FOLDER = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** One open file: a gzip stream whose output is written to the file as it comes. */
interface Segment {
  readonly path: string;
  readonly hourMs: number;
  readonly gzip: Gzip;
  readonly fd: number;
  readonly ended: Promise<void>;
  dirty: boolean;
}

/**
 * Writes rows to one gzip JSON-lines file per folder (pair altname, or KEY_FOLDER) and hour,
 * named by this process's session so that a restart never touches a file another process left
 * (perhaps cut short). Files are created exclusively and only appended to; every `flushEveryMs`
 * the written rows are flushed (Z_SYNC_FLUSH), so a crash loses at most that much and the rest
 * stays readable. A nearly full disk or a failed write stops recording, with one line saying why.
 */
export class RecordingWriter {
  readonly #o: RecordingWriterOptions;
  readonly #sessionStartMs: number;
  readonly #segments = new Map<string, Segment>();
  /** Files rotated out whose trailer may not be on disk yet. */
  readonly #ending = new Set<Promise<void>>();
  readonly #gaps: GapWatch;
  readonly #loop = new AbortController();
  #loopDone: Promise<void> = Promise.resolve();
  #files = 0;
  #rows = 0;
  #bytes = 0;
  #lastHourMs = -Infinity;
  #stopped: RecordingStoppedError | undefined;
  #closed = false;

  private constructor(options: RecordingWriterOptions) {
    this.#o = options;
    this.#sessionStartMs = options.sessionStartMs ?? options.clock.now();
    this.#gaps = new GapWatch(options.intervalsMs);
  }

  /** Checks the disk (RecordingStoppedError when nearly full), then starts the flush timer. */
  static async open(options: RecordingWriterOptions): Promise<RecordingWriter> {
    await prepareDir(options.dir, minFree(options), options.statfs);
    const writer = new RecordingWriter(options);
    writer.#loopDone = writer.#tick();
    return writer;
  }

  get sessionStartMs(): number {
    return this.#sessionStartMs;
  }

  /** Why recording stopped by itself, if it did. */
  get stopped(): RecordingStoppedError | undefined {
    return this.#stopped;
  }

  stats(): RecordingStats {
    return { files: this.#files, rows: this.#rows, bytes: this.#bytes, gaps: this.#gaps.gaps };
  }

  /** Appends one row (a RowSink); dropped once recording has stopped. */
  readonly write = (row: RecordedRow): void => {
    if (this.#stopped !== undefined || this.#closed) return;
    try {
      const hourMs = Math.floor(row.receivedMs / HOUR_MS) * HOUR_MS;
      const segment = this.#segmentFor(row.pair ?? KEY_FOLDER, hourMs);
      segment.gzip.write(encodeRow(row));
      segment.dirty = true;
      this.#rows++;
      this.#gaps.see(row);
      if (hourMs > this.#lastHourMs) {
        const first = this.#lastHourMs === -Infinity;
        this.#lastHourMs = hourMs;
        if (!first) this.#o.onNewHour?.(hourMs);
      }
    } catch (err) {
      this.#stop(asStopped(err));
    }
  };

  /** Flushes every file written to since the last flush; resolves once it is on disk. */
  async flush(): Promise<void> {
    const dirty = [...this.#segments.values()].filter((s) => s.dirty);
    await Promise.all(
      dirty.map(
        (s) =>
          new Promise<void>((done) => {
            s.dirty = false;
            s.gzip.flush(constants.Z_SYNC_FLUSH, () => done());
          }),
      ),
    );
  }

  /** Stops the timer and ends every file (each gets its gzip trailer). */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#loop.abort();
    await this.#loopDone;
    await this.#endAll();
  }

  #segmentFor(folder: string, hourMs: number): Segment {
    const current = this.#segments.get(folder);
    // Forward only: a row a moment late for the hour before goes into the file of the new hour.
    if (current !== undefined && hourMs <= current.hourMs) return current;
    // Its trailer is written in the background; close() and a stop wait for every file.
    if (current !== undefined) void this.#end(folder, current);
    if (folder !== KEY_FOLDER && !SAFE_FOLDER.test(folder)) {
      throw new RecordingStoppedError(
        `record: pair ${JSON.stringify(folder)} cannot name a folder`,
      );
    }
    const path = join(this.#o.dir, segmentPath(folder, hourMs, this.#sessionStartMs));
    mkdirSync(join(this.#o.dir, folder), { recursive: true });
    // 'wx': a file that exists belongs to another process; never rewrite or append to it.
    const fd = openSync(path, 'wx');
    const gzip = createGzip();
    // A stop (a nearly full disk) still writes what is buffered, so each file ends whole; only a
    // failed write gives up on its file.
    let broken = false;
    gzip.on('data', (chunk: Buffer) => {
      if (broken) return;
      try {
        this.#bytes += writeSync(fd, chunk);
      } catch (err) {
        broken = true;
        this.#stop(asStopped(err, path));
      }
    });
    const ended = new Promise<void>((done) => {
      gzip.once('end', done);
      gzip.once('error', (err) => {
        this.#stop(asStopped(err, path));
        done();
      });
    }).finally(() => closeSync(fd));
    const segment: Segment = { path, hourMs, gzip, fd, ended, dirty: false };
    this.#segments.set(folder, segment);
    this.#files++;
    const header: RecordingHeader = {
      makerd_recording: RECORDING_VERSION,
      pair: folder,
      sessionStartMs: this.#sessionStartMs,
      intervalsMs: this.#o.intervalsMs,
      tier: this.#o.tier,
    };
    gzip.write(`${JSON.stringify(header)}\n`);
    return segment;
  }

  #end(folder: string, segment: Segment): Promise<void> {
    this.#segments.delete(folder);
    segment.gzip.end();
    const ended = segment.ended.finally(() => this.#ending.delete(ended));
    this.#ending.add(ended);
    return ended;
  }

  async #endAll(): Promise<void> {
    for (const [folder, segment] of [...this.#segments]) void this.#end(folder, segment);
    await Promise.all([...this.#ending]);
  }

  async #tick(): Promise<void> {
    const { clock } = this.#o;
    const every = this.#o.flushEveryMs ?? 1_000;
    const diskEvery = this.#o.diskCheckEveryMs ?? 60_000;
    let diskCheckedAt = clock.now();
    while (!this.#loop.signal.aborted && this.#stopped === undefined) {
      try {
        await clock.sleep(every, this.#loop.signal);
      } catch {
        return;
      }
      this.#gaps.check(clock.now());
      if (clock.now() - diskCheckedAt >= diskEvery) {
        diskCheckedAt = clock.now();
        try {
          await requireFreeSpace(this.#o.dir, minFree(this.#o), this.#o.statfs);
        } catch (err) {
          this.#stop(asStopped(err));
          return;
        }
      }
      // Not awaited: the timer keeps its beat however slow the disk is.
      void this.flush();
    }
  }

  #stop(err: RecordingStoppedError): void {
    if (this.#stopped !== undefined || this.#closed) return;
    this.#stopped = err;
    this.#loop.abort();
    void this.#endAll().finally(() => this.#o.onStop?.(err));
  }
}

function minFree(o: RecordingWriterOptions): number {
  return o.minFreeBytes ?? DEFAULT_MIN_FREE_BYTES;
}

function asStopped(err: unknown, path?: string): RecordingStoppedError {
  if (err instanceof RecordingStoppedError) return err;
  const e = err as NodeJS.ErrnoException;
  const code = e.code ?? String(err);
  return new RecordingStoppedError(`record: cannot write ${path ?? e.path ?? 'a file'}: ${code}`, {
    cause: err,
  });
}
