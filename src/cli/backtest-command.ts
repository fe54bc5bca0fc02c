import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { InvalidInputError, MakerdError } from '../core/index.js';
import type { ImportSummary } from '../recording/index.js';
import type { DriverProgress, ReplayFees } from '../lab/replay/index.js';
import type { Fidelity } from '../lab/report/index.js';
import type { RunOverrides } from '../lab/sweep/index.js';
import { parseQueueRule } from '../market/index.js';
import type { BacktestResult, StoreKind } from '../lab/backtest-run.js';
import { formatDuration, summaryTable } from './backtest-summary.js';
import { LiveTerminal } from './live-terminal.js';
import { makeOutFolder } from '../lab/make-out-folder.js';
import type { FolderResult } from '../lab/backtest-folder.js';
import { backtestToFolder, type BacktestRequest } from '../lab/backtest-request.js';
import { backtestVerdict } from '../lab/backtest-verdict.js';
import { findRedis } from '../daemon/redis-finder.js';
import { loadSettings } from '../daemon/settings-file.js';

export interface BacktestCommandOptions {
  readonly data?: string;
  readonly config?: string;
  readonly from?: string;
  readonly to?: string;
  readonly out?: string;
  readonly latencyMs?: string;
  readonly makerFee?: string;
  readonly takerFee?: string;
  readonly feeVolume?: string;
  readonly queueRule?: string;
  readonly maxDataProblems?: string;
  readonly stores?: string;
  readonly force?: boolean;
  readonly logLevel?: string;
  /** Live figures of the session the recording was made in (the fidelity test gives them). */
  readonly fidelity?: (replay: BacktestResult) => Fidelity;
}

export type BacktestCommandResult = FolderResult;

/** Without a terminal, a progress line this often (wall time). */
const PROGRESS_LINE_MS = 5_000;

export interface CommandIo {
  readonly out: NodeJS.WriteStream;
  readonly err: NodeJS.WriteStream;
}

/**
 * `makerd backtest`: replays a recording through the bot of a config file (see backtest-run.ts),
 * with a progress bar and the recording's problems on stderr, a summary table on stdout, and
 * report.html, report.json, fills.jsonl and replay.json in --out.
 */
export async function runBacktestCommand(
  opts: BacktestCommandOptions,
  io: CommandIo = { out: process.stdout, err: process.stderr },
  signal?: AbortSignal,
): Promise<BacktestCommandResult> {
  if (opts.data === undefined) {
    throw new InvalidInputError('--data', 'give the recording folder to replay (or --sweep FILE)');
  }
  const data = resolve(opts.data);
  if (!existsSync(data) || !statSync(data).isDirectory()) {
    throw new InvalidInputError('--data', `${data}: no such folder`);
  }
  const fromMs = timeOption('--from', opts.from);
  const toMs = timeOption('--to', opts.to);
  const latencyMs = latencyOption(opts.latencyMs);
  const fees = feeOptions(opts);
  const maxProblems =
    numberOption('--max-data-problems', opts.maxDataProblems, Infinity, 'a count >= 0') ?? 0;
  const overrides: RunOverrides = {
    ...(latencyMs === undefined ? {} : { latencyMs }),
    ...(fees === undefined ? {} : { fees }),
    ...(opts.queueRule === undefined ? {} : { queueRule: queueRuleOption(opts.queueRule) }),
  };
  const outDir = resolve(opts.out ?? `backtest-${stamp(new Date())}`);
  await makeOutFolder('--out', outDir, { guarded: REPORT_FILES, force: opts.force === true });
  const stores = storesOption(opts.stores);
  const { settings } = loadSettings(opts.config);
  // As the demo: without a Redis at the config's URL, one of our own for a Redis-store run.
  const redis =
    stores === 'redis'
      ? await findRedis(settings.redis.url, process.env.MAKERD_REDIS_SERVER || undefined)
      : undefined;
  if (redis?.started !== undefined) {
    io.err.write(
      `backtest: no Redis answered at ${settings.redis.url}; started redis-server at ${redis.url} for this run\n`,
    );
  }
  let done: BacktestCommandResult;
  try {
    done = await backtestAndPrint(
      {
        data,
        ...(opts.config === undefined ? {} : { config: opts.config }),
        ...(fromMs === undefined ? {} : { fromMs }),
        ...(toMs === undefined ? {} : { toMs }),
        outDir,
        overrides,
        ...(redis === undefined ? {} : { redisUrl: redis.url }),
        stores,
        ...(opts.logLevel === undefined ? {} : { logLevel: opts.logLevel }),
        ...(opts.fidelity === undefined ? {} : { fidelity: opts.fidelity }),
        ...(signal === undefined ? {} : { signal }),
      },
      io,
    );
  } catch (err) {
    if (signal?.aborted !== true) throw err;
    throw new MakerdError(
      'INTERRUPTED',
      stores === 'redis'
        ? "backtest: interrupted; no report written, the run's Redis keys deleted"
        : 'backtest: interrupted; no report written',
    );
  } finally {
    await redis?.close();
  }
  backtestVerdict(done.report, maxProblems);
  return done;
}

function storesOption(value: string | undefined): StoreKind {
  if (value === undefined || value === 'memory' || value === 'redis') return value ?? 'memory';
  throw new InvalidInputError('--stores', `must be memory or redis, got ${JSON.stringify(value)}`);
}

/** The files of a report: an --out holding them is refused without --force. */
const REPORT_FILES = ['report.json', 'report.html'];

/**
 * Runs one backtest into `req.outDir` (src/lab/backtest-request.ts): its log and the data's
 * problems above the progress on stderr, then the summary on stdout.
 */
async function backtestAndPrint(
  req: BacktestRequest,
  io: CommandIo,
): Promise<BacktestCommandResult> {
  const terminal = new LiveTerminal(io.err);
  const progress = new Progress(terminal, io.err);
  let done: FolderResult;
  try {
    done = await backtestToFolder(req, {
      log: terminal.logStream,
      onProgress: (p) => progress.show(p),
      onProblem: (text) => terminal.logStream.write(`backtest: ${text}\n`),
    });
  } finally {
    terminal.clear();
  }
  const { report, imported } = done;
  io.out.write(summaryTable(done, report));
  if (report.run.strategyErrors > 0) {
    io.out.write(`${report.run.strategyErrors} strategy error(s): ticks whose quote() threw\n`);
  }
  if (report.run.problems.length > 0) {
    io.out.write(
      `${report.run.problems.length} problem(s) in the recording, listed in the report\n`,
    );
  }
  if (imported !== undefined) io.out.write(importedLine(imported));
  io.out.write(`report: ${done.files.html}\n`);
  return done;
}

/** Progress on stderr: a bar on a terminal, a line every few seconds otherwise. */
class Progress {
  readonly #terminal: LiveTerminal;
  readonly #err: NodeJS.WriteStream;
  readonly #startWall = performance.now();
  #lastWall = -Infinity;

  constructor(terminal: LiveTerminal, err: NodeJS.WriteStream) {
    this.#terminal = terminal;
    this.#err = err;
  }

  show(p: DriverProgress): void {
    const wall = performance.now();
    const every = this.#terminal.live ? 200 : PROGRESS_LINE_MS;
    if (wall - this.#lastWall < every) return;
    this.#lastWall = wall;
    const span = Math.max(1, p.endMs - p.startMs);
    const done = Math.min(1, (p.nowMs - p.startMs) / span);
    const elapsed = wall - this.#startWall;
    const speed = elapsed > 0 ? (p.nowMs - p.startMs) / elapsed : 0;
    const eta = speed > 0 ? (p.endMs - p.nowMs) / speed : 0;
    const text =
      `${(done * 100).toFixed(1).padStart(5)}% ${new Date(p.nowMs).toISOString().slice(0, 19)}Z ` +
      `${speed.toFixed(0)}x real time, ETA ${formatDuration(eta)}`;
    if (this.#terminal.live) {
      const width = 24;
      const filled = Math.round(done * width);
      this.#terminal.setStatus(`[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${text}`);
    } else {
      this.#err.write(`backtest: ${text}\n`);
    }
  }
}

/** One line on what the import of the recording changed to fit the pair (DIR/import.json). */
function importedLine(i: ImportSummary): string {
  const f = i.fit;
  return (
    `imported from ${i.source} (${i.exchange} ${i.symbol} as ${i.pair}): ${i.bookUpdates} book ` +
    `changes, ${i.tradesWritten} trades; fitted to the pair: ${f.offTick} prices off the tick, ` +
    `${f.crossed} crossed levels, ${f.lotRounded} volumes rounded to the lot; left out: ` +
    `${f.beforeBook} rows before the first snapshot, ${f.tradesSideUnknown + f.tradesBelowLot} ` +
    `trades\n`
  );
}

function stamp(d: Date): string {
  return d.toISOString().slice(0, 19).replace(/[-:]/g, '').replace('T', '-');
}

function timeOption(flag: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const ms = Date.parse(text);
  if (!Number.isFinite(ms)) {
    throw new InvalidInputError(
      flag,
      `must be an ISO time such as 2026-11-27T05:00:00Z, got ${text}`,
    );
  }
  return ms;
}

/** --maker-fee, --taker-fee (percent, one rung each) and --fee-volume (USD), when given. */
function feeOptions(opts: BacktestCommandOptions): ReplayFees | undefined {
  const makerPct = numberOption('--maker-fee', opts.makerFee, 100, 'a percent from 0 to 100');
  const takerPct = numberOption('--taker-fee', opts.takerFee, 100, 'a percent from 0 to 100');
  const volumeUsd = numberOption('--fee-volume', opts.feeVolume, Infinity, 'a USD volume >= 0');
  if (makerPct === undefined && takerPct === undefined && volumeUsd === undefined) return undefined;
  return {
    ...(makerPct === undefined ? {} : { makerPct }),
    ...(takerPct === undefined ? {} : { takerPct }),
    ...(volumeUsd === undefined ? {} : { volumeUsd }),
  };
}

function numberOption(
  flag: string,
  text: string | undefined,
  max: number,
  what: string,
): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (text.trim() === '' || !Number.isFinite(n) || n < 0 || n > max) {
    throw new InvalidInputError(flag, `must be ${what}, got ${text}`);
  }
  return n;
}

/** The rule's own spelling, once parseQueueRule accepts it. */
function queueRuleOption(text: string): string {
  parseQueueRule(text, '--queue-rule');
  return text;
}

function latencyOption(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (text.trim() === '' || !Number.isFinite(n) || n < 0) {
    throw new InvalidInputError('--latency-ms', `must be a number of ms >= 0, got ${text}`);
  }
  return n;
}
