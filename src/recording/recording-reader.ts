import { readdirSync, statSync } from 'node:fs';
import { MakerdError } from '../core/index.js';
import { fileRows } from './file-rows.js';
import { KEY_FOLDER, type RecordedRow } from './format.js';
import { GAP_INTERVALS } from './gap-watch.js';
import type { RecordingProblem } from './problems.js';
import { tradesGapProblem } from './trades-gap.js';

export interface ReadOptions {
  /** Pair altnames (any case); default: every pair of the recording. */
  readonly pairs?: readonly string[];
  /** Rows received at or after this (ms since the epoch). */
  readonly fromMs?: number;
  /** Rows received before this. */
  readonly toMs?: number;
  /** The key-wide rows (SystemStatus, OpenOrders, AssetPairs) too; default true. */
  readonly keyWide?: boolean;
}

export type ProblemListener = (problem: RecordingProblem) => void;

const HOUR_MS = 3_600_000;
const FILE_NAME = /^(\d{4}-\d{2}-\d{2}T\d{2})\.(\d+)\.jsonl\.gz$/;

interface SegmentFile {
  /** DIR-relative. */
  readonly path: string;
  readonly hourMs: number;
  readonly sessionStartMs: number;
}

/**
 * Streams a recording (src/recording/format.ts) in receive-time order: per pair, or merged
 * across pairs and the key-wide folder (a k-way merge over one open file per folder and session,
 * so memory stays flat however long the recording). What is wrong with it is reported in
 * `problems` and to `onProblem` listeners as it is met, never skipped silently.
 */
export class RecordingReader {
  readonly dir: string;
  readonly problems: RecordingProblem[] = [];
  readonly #listeners = new Set<ProblemListener>();

  constructor(dir: string) {
    this.dir = dir;
  }

  onProblem(listener: ProblemListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** The pairs recorded (folder names, i.e. altnames), sorted. */
  pairs(): string[] {
    return this.#folders().filter((f) => f !== KEY_FOLDER);
  }

  /**
   * Every row of the pairs asked for (and the key-wide ones), merged by receive time. A pair the
   * recording lacks is an error naming it and the pairs present.
   */
  async *rows(options: ReadOptions = {}): AsyncGenerator<RecordedRow> {
    const present = this.pairs();
    const folders = (options.pairs ?? present).map((p) => this.#requirePair(p, present));
    // First, so that at equal times the pair rules and the exchange's status come first.
    if (options.keyWide !== false && this.#folders().includes(KEY_FOLDER)) {
      folders.unshift(KEY_FOLDER);
    }
    yield* merge(folders.map((f) => this.#folderRows(f, options)));
  }

  /** One pair's rows in receive-time order. */
  pairRows(pair: string, options: Omit<ReadOptions, 'pairs' | 'keyWide'> = {}) {
    return this.rows({ ...options, pairs: [pair], keyWide: false });
  }

  #folders(): string[] {
    let names: string[];
    try {
      if (!statSync(this.dir).isDirectory()) throw new Error('not a folder');
      names = readdirSync(this.dir, { withFileTypes: true })
        .filter((d) => d.isDirectory() && this.#files(d.name).length > 0)
        .map((d) => d.name);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
      throw new MakerdError('RECORDING_UNREADABLE', `recording ${this.dir}: ${code}`);
    }
    return names.sort();
  }

  #requirePair(pair: string, present: readonly string[]): string {
    const found = present.find((p) => p.toUpperCase() === pair.toUpperCase());
    if (found !== undefined) return found;
    throw new MakerdError(
      'RECORDING_MISSING_PAIR',
      `recording ${this.dir} has no pair ${pair}; pairs present: ${present.join(', ') || 'none'}`,
    );
  }

  /** A folder's files in time order: by hour, then by the session that wrote them. */
  #files(folder: string): SegmentFile[] {
    const out: SegmentFile[] = [];
    for (const name of readdirSync(`${this.dir}/${folder}`)) {
      const m = FILE_NAME.exec(name);
      if (m === null) continue;
      out.push({
        path: `${folder}/${name}`,
        hourMs: Date.parse(`${m[1] as string}:00:00Z`),
        sessionStartMs: Number(m[2]),
      });
    }
    return out.sort((a, b) => a.hourMs - b.hourMs || a.sessionStartMs - b.sessionStartMs);
  }

  /**
   * One folder's rows within [fromMs, toMs): hour by hour, the sessions of an hour merged (two
   * processes may have recorded at once), with the pair's Depth gaps and the trades its Trades
   * poll missed (TradesGap rows) reported on the way.
   */
  async *#folderRows(folder: string, options: ReadOptions): AsyncGenerator<RecordedRow> {
    const from = options.fromMs ?? -Infinity;
    const to = options.toMs ?? Infinity;
    const files = this.#files(folder).filter((f) => f.hourMs + HOUR_MS > from && f.hourMs < to);
    const gaps = folder === KEY_FOLDER ? undefined : new DepthGaps(folder);
    const events = {
      header: (h: { intervalsMs: { Depth?: number } }) => gaps?.interval(h.intervalsMs.Depth),
      problem: (p: RecordingProblem) => this.#report(p),
    };
    for (let i = 0; i < files.length;) {
      const hour = files[i]?.hourMs;
      const group: SegmentFile[] = [];
      for (; i < files.length && files[i]?.hourMs === hour; i++)
        group.push(files[i] as SegmentFile);
      for await (const row of merge(group.map((f) => fileRows(this.dir, f.path, events)))) {
        if (row.receivedMs < from) continue;
        if (row.receivedMs >= to) return;
        const gap = gaps?.see(row);
        if (gap !== undefined) this.#report(gap);
        if (row.endpoint === 'TradesGap') this.#report(tradesGapProblem(folder, row));
        yield row;
      }
    }
  }

  /** Each problem once, however often the recording is read. */
  #report(problem: RecordingProblem): void {
    if (this.problems.some((p) => p.message === problem.message)) return;
    this.problems.push(problem);
    for (const listener of [...this.#listeners]) listener(problem);
  }
}

/** A pair's Depth answers more than GAP_INTERVALS of the recorded interval apart. */
class DepthGaps {
  readonly #pair: string;
  #intervalMs: number | undefined;
  #lastMs: number | undefined;

  constructor(pair: string) {
    this.#pair = pair;
  }

  interval(ms: number | undefined): void {
    this.#intervalMs = ms;
  }

  see(row: RecordedRow): RecordingProblem | undefined {
    if (row.endpoint !== 'Depth' || row.body === undefined) return undefined;
    const last = this.#lastMs;
    this.#lastMs = row.receivedMs;
    const interval = this.#intervalMs;
    if (last === undefined || interval === undefined) return undefined;
    const silentMs = row.receivedMs - last;
    if (silentMs <= GAP_INTERVALS * interval) return undefined;
    const iso = (ms: number): string => new Date(ms).toISOString();
    return {
      kind: 'gap',
      pair: this.#pair,
      fromMs: last,
      toMs: row.receivedMs,
      message:
        `${this.#pair}: no Depth answer from ${iso(last)} to ${iso(row.receivedMs)} ` +
        `(${(silentMs / 1000).toFixed(1)} s, more than ${GAP_INTERVALS}x its ${interval} ms interval)`,
    };
  }
}

/** K-way merge of row streams each in receive-time order; ties go to the earlier stream. */
async function* merge(streams: AsyncIterator<RecordedRow>[]): AsyncGenerator<RecordedRow> {
  const heads: (RecordedRow | undefined)[] = await Promise.all(
    streams.map(async (s) => (await s.next()).value as RecordedRow | undefined),
  );
  try {
    for (;;) {
      let best = -1;
      for (let i = 0; i < heads.length; i++) {
        const h = heads[i];
        if (
          h !== undefined &&
          (best < 0 || h.receivedMs < (heads[best] as RecordedRow).receivedMs)
        ) {
          best = i;
        }
      }
      if (best < 0) return;
      yield heads[best] as RecordedRow;
      const next = await (streams[best] as AsyncIterator<RecordedRow>).next();
      heads[best] = next.done === true ? undefined : next.value;
    }
  } finally {
    // A consumer that stops early closes every file still open.
    await Promise.all(
      streams.map(async (s) => {
        await s.return?.();
      }),
    );
  }
}
