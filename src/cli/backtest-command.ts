import { mkdir, open, writeFile, type FileHandle } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { errorMessage, InvalidInputError, MakerdError } from '../core/index.js';
import { dataProblems, fillLine } from '../lab/backtest-report.js';
import { RecordingReader } from '../lab/recording/index.js';
import type { DriverProgress, ReplayFees } from '../lab/replay/index.js';
import { writeReport, type BacktestReport, type Fidelity } from '../lab/report/index.js';
import { applyOverrides, type RunOverrides } from '../lab/sweep/index.js';
import { parseQueueRule } from '../market/index.js';
import { createLogger } from '../obs/index.js';
import {
  recordedName,
  runBacktest,
  type BacktestResult,
  type LatencySource,
} from '../lab/backtest-run.js';
import { LiveTerminal } from './live-terminal.js';
import { builtInStrategies, loadSettings } from './role-command.js';

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
  readonly logLevel?: string;
  /** Live figures of the session the recording was made in (the fidelity test gives them). */
  readonly fidelity?: (replay: BacktestResult) => Fidelity;
}

/** One backtest into a folder: the command's flags parsed, or a sweep's run. */
export interface BacktestRequest {
  readonly data: string;
  readonly config?: string;
  readonly fromMs?: number;
  readonly toMs?: number;
  readonly outDir: string;
  readonly overrides?: RunOverrides;
  /** The Redis the run keeps its state in, instead of the config's (a sweep worker's own). */
  readonly redisUrl?: string;
  readonly logLevel?: string;
  readonly fidelity?: (replay: BacktestResult) => Fidelity;
  /** Told the replay's progress instead of a bar drawn on stderr (a sweep worker reports it). */
  readonly onProgress?: (progress: DriverProgress) => void;
  readonly signal?: AbortSignal;
}

export interface BacktestCommandResult extends BacktestResult {
  readonly report: BacktestReport;
  readonly files: { readonly html: string; readonly json: string };
}

/**
 * fills.jsonl in the output folder, opened before the replay (an --out that cannot be written is
 * refused before the run, not after it) and written as fills settle, so memory stays flat.
 */
async function openFillsFile(
  outDir: string,
): Promise<{ write: (line: string) => void; close: () => Promise<void> }> {
  const path = join(outDir, 'fills.jsonl');
  let file: FileHandle;
  try {
    await mkdir(outDir, { recursive: true });
    file = await open(path, 'w');
  } catch (err) {
    throw new InvalidInputError(
      '--out',
      `${outDir}: ${(err as NodeJS.ErrnoException).code ?? errorMessage(err)}`,
    );
  }
  const stream = file.createWriteStream();
  let failed: NodeJS.ErrnoException | undefined;
  stream.on('error', (err) => (failed ??= err));
  return {
    write: (line) => {
      if (failed === undefined) stream.write(line);
    },
    close: async () => {
      await new Promise<void>((done) => stream.end(done));
      if (failed !== undefined) {
        throw new MakerdError(
          'BACKTEST_OUTPUT',
          `cannot write ${path}: ${failed.code ?? failed.message}`,
        );
      }
    },
  };
}

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
): Promise<BacktestCommandResult> {
  if (opts.data === undefined) {
    throw new InvalidInputError('--data', 'give the recording folder to replay (or --sweep FILE)');
  }
  const fromMs = timeOption('--from', opts.from);
  const toMs = timeOption('--to', opts.to);
  const latencyMs = latencyOption(opts.latencyMs);
  const fees = feeOptions(opts);
  const overrides: RunOverrides = {
    ...(latencyMs === undefined ? {} : { latencyMs }),
    ...(fees === undefined ? {} : { fees }),
    ...(opts.queueRule === undefined ? {} : { queueRule: queueRuleOption(opts.queueRule) }),
  };
  return backtestToFolder(
    {
      data: opts.data,
      ...(opts.config === undefined ? {} : { config: opts.config }),
      ...(fromMs === undefined ? {} : { fromMs }),
      ...(toMs === undefined ? {} : { toMs }),
      outDir: opts.out ?? `backtest-${stamp(new Date())}`,
      overrides,
      ...(opts.logLevel === undefined ? {} : { logLevel: opts.logLevel }),
      ...(opts.fidelity === undefined ? {} : { fidelity: opts.fidelity }),
    },
    io,
  );
}

/** A replay from `fromMs` reads from the start of its hour, for the pair rules asked then. */
const HOUR_MS = 3_600_000;

/** Runs one backtest and writes its report, fills and engine figures into `req.outDir`. */
export async function backtestToFolder(
  req: BacktestRequest,
  io: CommandIo,
): Promise<BacktestCommandResult> {
  const loaded = loadSettings(req.config);
  const dir = loaded.dir;
  const overridden = applyOverrides(loaded.settings, req.overrides ?? {});
  const settings =
    req.redisUrl === undefined
      ? overridden
      : { ...overridden, redis: { ...overridden.redis, url: req.redisUrl } };
  const { fromMs, toMs } = req;
  const latencyMs = req.overrides?.latencyMs;
  const fees = req.overrides?.fees;
  const data = resolve(req.data);
  const outDir = resolve(req.outDir);
  const reader = new RecordingReader(data);
  const present = reader.pairs();
  if (present.length === 0) {
    throw new InvalidInputError(
      '--data',
      `${data} holds no recording (no pair folder of .jsonl.gz files)`,
    );
  }
  const pairs = settings.pairs.map((p, i) => recordedName(p.pair, i, present));
  const terminal = new LiveTerminal(io.err);
  reader.onProblem((p) => terminal.logStream.write(`backtest: ${p.message}\n`));
  const log = createLogger({
    level: req.logLevel ?? 'warn',
    base: { role: 'backtest' },
    destination: terminal.logStream,
  });
  const progress = new Progress(terminal, io.err);
  const fillsFile = await openFillsFile(outDir);
  const result = await runBacktest({
    settings,
    configDir: dir,
    rows: () =>
      reader.rows({
        pairs,
        ...(fromMs === undefined ? {} : { fromMs: Math.floor(fromMs / HOUR_MS) * HOUR_MS }),
        ...(toMs === undefined ? {} : { toMs }),
      }),
    ...(fromMs === undefined ? {} : { fromMs }),
    ...(toMs === undefined ? {} : { toMs }),
    ...(latencyMs === undefined ? {} : { latencyMs }),
    ...(fees === undefined ? {} : { fees }),
    ...(req.signal === undefined ? {} : { signal: req.signal }),
    log,
    strategiesDir: builtInStrategies(),
    onProgress: req.onProgress ?? ((p) => progress.show(p)),
    onFill: (pair, fill) => fillsFile.write(fillLine(pair, fill)),
  }).finally(() => fillsFile.close());
  terminal.clear();
  io.out.write(summaryTable(result));
  const report: BacktestReport = {
    makerd_report: 1,
    strategy: result.strategy,
    run: {
      dataDir: data,
      fromMs: result.startMs,
      toMs: result.endMs,
      simulatedMs: result.endMs - result.startMs,
      wallMs: result.wallMs,
      problems: dataProblems(reader.problems),
    },
    pairs: result.reports,
    ...(req.fidelity === undefined ? {} : { fidelity: req.fidelity(result) }),
  };
  if (reader.problems.length > 0) {
    io.out.write(`${reader.problems.length} problem(s) in the recording, listed in the report\n`);
  }
  const files = await writeReport(outDir, report);
  // The engine's side of the run, for whoever tunes the replay: not part of the report.
  const { reports: _reports, ...engine } = result;
  await writeFile(join(outDir, 'replay.json'), `${JSON.stringify(engine, null, 2)}\n`);
  io.out.write(`report: ${files.html}\n`);
  return { ...result, report, files };
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

export function summaryTable(r: BacktestResult): string {
  const rows = [
    [
      'pair',
      'fills',
      'volume',
      'notional',
      'spread',
      'inventory',
      'fees',
      'pnl',
      'ratecount max',
      'refusals',
      'queue error',
    ],
    ...r.pairs.map((p) => [
      p.pair,
      String(p.fills),
      p.volume,
      round(p.notional),
      round(p.pnl.spread),
      round(p.pnl.inventory),
      round(p.pnl.fees),
      round(p.pnl.total),
      String(p.ratecountMax),
      String(Object.values(p.refusals).reduce((a, b) => a + b, 0)),
      queueError(r.reports.find((x) => x.pair === p.pair)?.queue?.meanPercent),
    ]),
  ];
  const widths =
    rows[0]?.map((_, i) => Math.max(...rows.map((row) => (row[i] ?? '').length))) ?? [];
  const lines = rows.map((row) => row.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join('  '));
  const span = r.endMs - r.startMs;
  return (
    `${lines.join('\n')}\n` +
    `pnl = spread + inventory - fees (quote currency, marked at the last mid); queue error: the ` +
    `estimator's |ahead - exact| over the level's volume, mean\n` +
    `replayed ${formatDuration(span)} (${new Date(r.startMs).toISOString()} .. ${new Date(r.endMs).toISOString()}) ` +
    `in ${formatDuration(r.wallMs)}: ${(span / Math.max(1, r.wallMs)).toFixed(0)}x real time, ` +
    `${r.events} events, latency ${r.latencyMs} ms a call (${LATENCY_FROM[r.latencyFrom]})\n` +
    `fees at the start: ${r.fees.map((f) => `${f.pair} maker ${f.makerPct} %, taker ${f.takerPct} %`).join('; ')} ` +
    `(30-day volume ${r.fees[0]?.volumeUsd ?? '0'} USD); queue rule ${r.queueRule}\n`
  );
}

const LATENCY_FROM: Readonly<Record<LatencySource, string>> = {
  option: '--latency-ms',
  recording: "the recording's median round trip",
  default: 'default: the recording timed no call',
};

function queueError(percent: number | null | undefined): string {
  return percent === null || percent === undefined ? '-' : `${percent.toFixed(1)} %`;
}

function round(text: string): string {
  return Number(text).toFixed(2);
}

function formatDuration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
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
