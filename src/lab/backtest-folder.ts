import { open, writeFile, type FileHandle } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { errorMessage, InvalidInputError, MakerdError, type Clock } from '../core/index.js';
import type { BotSettings } from '../daemon/bot-config.js';
import type { Logger } from '../obs/index.js';
import { RecordingReader, readImportSummary, type ImportSummary } from '../recording/index.js';
import { dataProblems, fillLine } from './backtest-report.js';
import {
  LATENCY_FROM,
  recordedName,
  runBacktest,
  type BacktestResult,
  type StoreKind,
} from './backtest-run.js';
import { makeOutFolder } from './make-out-folder.js';
import type { DriverProgress, ReplayFees } from './replay/index.js';
import {
  quoteTotals,
  writeReport,
  type BacktestReport,
  type DataProblem,
  type Fidelity,
} from './report/index.js';

/** A replay from `fromMs` reads from the start of its hour, for the pair rules asked then. */
const HOUR_MS = 3_600_000;

/** One backtest into a folder: the run's settings (overrides applied) and where it goes. */
export interface FolderRun {
  readonly settings: BotSettings;
  /** The config file the settings came from (the report names it) and its folder. */
  readonly configFile: string;
  readonly configDir: string;
  readonly strategiesDir: string;
  /** The recording's folder. */
  readonly data: string;
  readonly outDir: string;
  readonly fromMs?: number;
  readonly toMs?: number;
  readonly latencyMs?: number;
  readonly fees?: ReplayFees;
  readonly stores?: StoreKind;
  readonly signal?: AbortSignal;
  readonly fidelity?: (replay: BacktestResult) => Fidelity;
  readonly log: Logger;
  readonly onProgress: (progress: DriverProgress) => void;
  /** Told the replay's clock once it exists (log lines take their time from it). */
  readonly onClock: (clock: Clock) => void;
  /** Each problem of the data as it is found, as one line. */
  readonly onProblem: (text: string) => void;
}

export interface FolderResult extends BacktestResult {
  readonly report: BacktestReport;
  readonly files: { readonly html: string; readonly json: string };
  /** What `makerd import` changed to fit the pair, when the recording was imported. */
  readonly imported: ImportSummary | undefined;
}

/**
 * Runs one backtest and writes report.html, report.json, fills.jsonl (as fills settle) and
 * replay.json (the engine's side, for whoever tunes the replay) into `outDir`.
 */
export async function runToFolder(r: FolderRun): Promise<FolderResult> {
  const data = resolve(r.data);
  const outDir = resolve(r.outDir);
  const reader = new RecordingReader(data);
  const present = reader.pairs();
  if (present.length === 0) {
    throw new InvalidInputError(
      '--data',
      `${data} holds no recording (no pair folder of .jsonl.gz files)`,
    );
  }
  const pairs = r.settings.pairs.map((p, i) => recordedName(p.pair, i, present));
  reader.onProblem((p) => r.onProblem(p.message));
  const { fromMs, toMs } = r;
  const fillsFile = await openFillsFile(outDir);
  const result = await runBacktest({
    ...(r.stores === undefined ? {} : { stores: r.stores }),
    settings: r.settings,
    configDir: r.configDir,
    rows: () =>
      reader.rows({
        pairs,
        ...(fromMs === undefined ? {} : { fromMs: Math.floor(fromMs / HOUR_MS) * HOUR_MS }),
        ...(toMs === undefined ? {} : { toMs }),
      }),
    ...(fromMs === undefined ? {} : { fromMs }),
    ...(toMs === undefined ? {} : { toMs }),
    ...(r.latencyMs === undefined ? {} : { latencyMs: r.latencyMs }),
    ...(r.fees === undefined ? {} : { fees: r.fees }),
    ...(r.signal === undefined ? {} : { signal: r.signal }),
    log: r.log,
    strategiesDir: r.strategiesDir,
    onProgress: r.onProgress,
    onFill: (pair, fill) => fillsFile.write(fillLine(pair, fill)),
    onClock: r.onClock,
    onDataProblem: (p) => r.onProblem(p.text),
  }).finally(() => fillsFile.close());
  const problems: DataProblem[] = [...dataProblems(reader.problems), ...result.watched.problems];
  const imported = readImportSummary(data);
  const report: BacktestReport = {
    makerd_report: 1,
    strategy: result.strategy,
    run: {
      dataDir: data,
      fromMs: result.startMs,
      toMs: result.endMs,
      simulatedMs: result.endMs - result.startMs,
      wallMs: result.wallMs,
      problems,
      strategyErrors: result.reports.reduce((n, p) => n + p.summary.strategy.errors, 0),
      ...(imported === undefined ? {} : { imported }),
    },
    pairs: result.reports,
    totals: quoteTotals(result.reports),
    halts: result.watched.halts,
    settings: {
      config: r.configFile,
      latencyMs: result.latencyMs,
      latencyFrom: LATENCY_FROM[result.latencyFrom],
      queueRule: result.queueRule,
      fees: result.fees,
    },
    ...(r.fidelity === undefined ? {} : { fidelity: r.fidelity(result) }),
  };
  const files = await writeReport(outDir, report);
  // The engine's side of the run, for whoever tunes the replay: not part of the report.
  const { reports: _reports, ...engine } = result;
  await writeFile(join(outDir, 'replay.json'), `${JSON.stringify(engine, null, 2)}\n`);
  return { ...result, report, files, imported };
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
  await makeOutFolder('--out', outDir);
  try {
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
