import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { ChartLibrary } from './html.js';

const require = createRequire(import.meta.url);

/**
 * uPlot (MIT, about 50 KB minified): fast on long time series and has no dependencies. Its
 * minified browser build and stylesheet are read from node_modules when a report is written, so
 * the page carries them and opens offline.
 */
export async function loadChartLibrary(): Promise<ChartLibrary> {
  const [script, style] = await Promise.all([
    readFile(require.resolve('uplot/dist/uPlot.iife.min.js'), 'utf8'),
    readFile(require.resolve('uplot/dist/uPlot.min.css'), 'utf8'),
  ]);
  return { name: 'uPlot', licence: 'MIT', script, style };
}
