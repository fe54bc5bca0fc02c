/** src/lab/import: market data from elsewhere as a makerd recording (docs/backtest.md). */
export {
  importTardis,
  type ImportProgress,
  type TardisImportOptions,
  type TardisImportResult,
} from './tardis-import.js';
