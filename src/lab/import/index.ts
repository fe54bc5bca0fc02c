/** src/lab/import: market data from elsewhere as a makerd recording (docs/backtest.md). */
export {
  DEFAULT_DEPTH,
  MAX_DEPTH,
  importTardis,
  type ImportProgress,
  type TardisImportOptions,
  type TardisImportResult,
} from './tardis-import.js';
