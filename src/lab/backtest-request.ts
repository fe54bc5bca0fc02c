import type { DestinationStream } from 'pino';
import { builtInStrategies } from '../daemon/package-file.js';
import { loadSettings } from '../daemon/settings-file.js';
import { createLogger } from '../obs/index.js';
import type { BacktestResult, StoreKind } from './backtest-run.js';
import { runToFolder, type FolderResult } from './backtest-folder.js';
import type { DriverProgress } from './replay/index.js';
import type { Fidelity } from './report/index.js';
import { applyOverrides, type Backtester, type RunOverrides } from './sweep/index.js';

/** One backtest into a folder, as `makerd backtest` and a sweep's worker ask for it. */
export interface BacktestRequest {
  readonly data: string;
  /** The bot's config file; undefined: the package's config/paper.yaml. */
  readonly config?: string;
  readonly fromMs?: number;
  readonly toMs?: number;
  readonly outDir: string;
  readonly overrides?: RunOverrides;
  /** The Redis the run keeps its state in, instead of the config's (a sweep worker's own). */
  readonly redisUrl?: string;
  /** Where the bot's state lives (default memory). */
  readonly stores?: StoreKind;
  readonly logLevel?: string;
  readonly fidelity?: (replay: BacktestResult) => Fidelity;
  readonly signal?: AbortSignal;
}

/** Where a backtest tells what happens as it runs. */
export interface BacktestOutput {
  /** The log's lines (level `logLevel`, default warn), each with the replay's time once it runs. */
  readonly log: DestinationStream;
  readonly onProgress: (progress: DriverProgress) => void;
  /** Each problem of the data as it is found, as one line. */
  readonly onProblem: (text: string) => void;
}

/**
 * Runs one backtest with the bot of the request's config (its overrides applied) and writes its
 * report, fills and engine figures into `req.outDir` (runToFolder).
 */
export function backtestToFolder(req: BacktestRequest, out: BacktestOutput): Promise<FolderResult> {
  const loaded = loadSettings(req.config);
  const overridden = applyOverrides(loaded.settings, req.overrides ?? {});
  const settings =
    req.redisUrl === undefined
      ? overridden
      : { ...overridden, redis: { ...overridden.redis, url: req.redisUrl } };
  // Log lines carry the replay's time once its clock exists (the wall's before: loading).
  let now = (): number => Date.now();
  const log = createLogger({
    level: req.logLevel ?? 'warn',
    base: { role: 'backtest' },
    destination: out.log,
    now: () => now(),
  });
  const latencyMs = req.overrides?.latencyMs;
  const fees = req.overrides?.fees;
  return runToFolder({
    settings,
    configFile: loaded.file,
    configDir: loaded.dir,
    strategiesDir: builtInStrategies(),
    data: req.data,
    outDir: req.outDir,
    ...(req.fromMs === undefined ? {} : { fromMs: req.fromMs }),
    ...(req.toMs === undefined ? {} : { toMs: req.toMs }),
    ...(latencyMs === undefined ? {} : { latencyMs }),
    ...(fees === undefined ? {} : { fees }),
    ...(req.stores === undefined ? {} : { stores: req.stores }),
    ...(req.signal === undefined ? {} : { signal: req.signal }),
    ...(req.fidelity === undefined ? {} : { fidelity: req.fidelity }),
    log,
    onProgress: out.onProgress,
    onClock: (clock) => (now = () => clock.now()),
    onProblem: out.onProblem,
  });
}

/**
 * A sweep worker's backtests: each run as `makerd backtest` runs it, its log and the data's
 * problems not shown (the run's report lists them).
 */
export function sweepBacktester(logLevel: string | undefined): Backtester {
  return async (req) => {
    const result = await backtestToFolder(
      {
        data: req.data,
        ...(req.config === undefined ? {} : { config: req.config }),
        ...(req.fromMs === undefined ? {} : { fromMs: req.fromMs }),
        ...(req.toMs === undefined ? {} : { toMs: req.toMs }),
        outDir: req.outDir,
        overrides: req.overrides,
        redisUrl: req.redisUrl,
        ...(logLevel === undefined ? {} : { logLevel }),
        signal: req.signal,
      },
      { log: { write: () => undefined }, onProgress: req.onProgress, onProblem: () => undefined },
    );
    return {
      report: result.report,
      refusals: Object.fromEntries(result.pairs.map((p) => [p.pair, p.refusals])),
    };
  };
}
