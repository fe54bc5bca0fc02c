import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { loadChartLibrary } from './chart-library.js';
import { checkReport } from './check-report.js';
import { renderPage } from './html.js';
import { pageData } from './page-data.js';
import type { BacktestReport } from './report-data.js';

/**
 * Writes DIR/report.json (the data as given) and DIR/report.html (a page that opens offline:
 * tables of the run's figures and each pair's charts). Returns both paths. Throws an
 * InvalidInputError naming the field when the data would draw a wrong chart.
 */
export async function writeReport(
  outDir: string,
  data: BacktestReport,
): Promise<{ html: string; json: string }> {
  checkReport(data);
  const page = renderPage(data, pageData(data), await loadChartLibrary());
  await mkdir(outDir, { recursive: true });
  const html = join(outDir, 'report.html');
  const json = join(outDir, 'report.json');
  await writeFile(json, `${JSON.stringify(data)}\n`);
  await writeFile(html, page);
  return { html, json };
}
