/** src/lab/sweep: `makerd backtest --sweep` and `makerd backtest worker` (docs/backtest.md#sweeps). */
export { expandGrid, type Combination, type Dimension, type SweepValue } from './grid.js';
export {
  altnameOf,
  applyOverrides,
  type OverridableSettings,
  type RunOverrides,
  type StrategyOverride,
} from './overrides.js';
export {
  loadSweepFile,
  parseSweepFile,
  RANK_BY,
  type LoadedSweepFile,
  type RankBy,
} from './sweep-file.js';
export type { Backtester, SweepRunOutcome, SweepRunRequest } from './sweep-job.js';
export type { RunFigures, PairFigures } from './run-figures.js';
export type { SweepResults, SweepRow } from './results.js';
export {
  runSweep,
  type SweepOptions,
  type SweepOutcome,
  type SweepSettings,
} from './sweep-coordinator.js';
export { runSweepWorker, type SweepWorkerOptions } from './sweep-worker.js';
export { progressText, type SweepProgress } from './sweep-progress.js';
export { sweepSummary } from './sweep-output.js';
export type { WorkerCommand } from './local-workers.js';
