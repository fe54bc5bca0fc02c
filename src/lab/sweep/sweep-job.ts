import type { DriverProgress } from '../replay/index.js';
import type { BacktestReport } from '../report/index.js';
import type { SweepValue } from './grid.js';
import type { RunOverrides } from './overrides.js';

/** Which part of the recording a run replays: all of it, or one side of `--split`. */
export type SweepPhase = 'full' | 'in_sample' | 'out_of_sample';

/**
 * A BullMQ job of a sweep: one combination on one part of the recording. Paths, values and
 * overrides only; never a secret (the worker reads its key, if any, from its own environment).
 */
export interface SweepJobData {
  readonly sweepId: string;
  readonly runId: string;
  readonly phase: SweepPhase;
  readonly values: Readonly<Record<string, SweepValue>>;
  readonly overrides: RunOverrides;
  /** The bot's config file; undefined: the package's config/paper.yaml. */
  readonly config?: string;
  readonly data: string;
  /** The sweep's folder: the run's report goes to runs/<runId>[/<phase>] in it. */
  readonly sweepDir: string;
  readonly fromMs?: number;
  readonly toMs?: number;
}

/** What a running job reports (job.updateProgress): replay time done of its span. */
export interface SweepJobProgress {
  readonly replayedMs: number;
  readonly spanMs: number;
}

/** One backtest as a sweep worker asks for it. */
export interface SweepRunRequest {
  readonly config: string | undefined;
  readonly data: string;
  readonly outDir: string;
  readonly fromMs?: number;
  readonly toMs?: number;
  readonly overrides: RunOverrides;
  /** The Redis the worker found the sweep on: the run keeps its state there too. */
  readonly redisUrl: string;
  readonly onProgress: (progress: DriverProgress) => void;
  readonly signal: AbortSignal;
}

/** What a sweep needs of a finished backtest, its report written. */
export interface SweepRunOutcome {
  readonly report: BacktestReport;
  /** Order-entry refusals by pair altname and the exchange's error string. */
  readonly refusals: Readonly<Record<string, Readonly<Record<string, number>>>>;
}

/** Runs one backtest into request.outDir: `makerd backtest`'s own run (sweepBacktester). */
export type Backtester = (request: SweepRunRequest) => Promise<SweepRunOutcome>;

/** The job's id in its queue: one per combination and phase. */
export function jobId(phase: SweepPhase, runId: string): string {
  return `${phase}.${runId}`;
}

/** Where a run's report goes, relative to the sweep's folder. */
export function runFolder(phase: SweepPhase, runId: string): string {
  return phase === 'full' ? `runs/${runId}` : `runs/${runId}/${phase.replace(/_/g, '-')}`;
}
