/** src/recording: what `makerd record` writes and `makerd backtest` reads (docs/backtest.md). */
export * from './format.js';
export { RecordingTransport, pairOf, type RowSink } from './recording-transport.js';
export {
  RecordingWriter,
  type RecordingStats,
  type RecordingWriterOptions,
} from './recording-writer.js';
export {
  DEFAULT_MIN_FREE_BYTES,
  RecordingStoppedError,
  prepareDir,
  requireFreeSpace,
  type StatFs,
} from './disk-space.js';
export { GAP_INTERVALS } from './gap-watch.js';
export { RecordingReader, type ReadOptions, type ProblemListener } from './recording-reader.js';
export type { RecordingProblem } from './problems.js';
export { intervalsOf } from './intervals.js';
export { Recorder, type RecorderOptions } from './recorder.js';
export { tradesGapRow } from './trades-gap.js';
export { IMPORT_SUMMARY_FILE, readImportSummary, type ImportSummary } from './import-summary.js';
