export { writeReport } from './write-report.js';
export { checkReport } from './check-report.js';
export type * from './report-data.js';
export { escapeHtml } from './html.js';
export { duration, percent, utcSpan } from './figures.js';
export { PAGE_STYLE } from './page-style.js';
export { inventoryStats, maxDrawdown, pnlPerVolumeBps, quoteTotals } from './run-figures.js';
