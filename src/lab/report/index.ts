export { writeReport } from './write-report.js';
export { checkReport } from './check-report.js';
export type * from './report-data.js';
