export { PairPnl } from './pair-pnl.js';
export { summaryJson, type PnlSummaryJson } from './summary-json.js';
export type {
  FillRecord,
  Markout,
  MarkoutSummary,
  PnlFill,
  PnlOptions,
  PnlSplit,
  PnlSummary,
  QuoteSides,
  SeriesPoint,
  TimeAtQuote,
} from './types.js';
