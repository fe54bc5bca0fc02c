import { MakerdError } from '../core/index.js';
import type { BacktestReport } from './report/index.js';

/**
 * After the report is written: a run on faulty data (more problems than `maxProblems`, the
 * command's --max-data-problems) or with a strategy that threw on every tick fails, with one line
 * saying why.
 */
export function backtestVerdict(report: BacktestReport, maxProblems: number): void {
  const problems = report.run.problems.length;
  if (problems > maxProblems) {
    throw new MakerdError(
      'BACKTEST_DATA',
      `backtest: ${problems} data problem(s), more than --max-data-problems ${maxProblems}: ` +
        `the report is written and lists them, but its figures rest on that data`,
    );
  }
  const failing = report.pairs.filter(
    (p) => p.summary.strategy.ticks > 0 && p.summary.strategy.errors === p.summary.strategy.ticks,
  );
  if (failing.length > 0) {
    throw new MakerdError(
      'BACKTEST_STRATEGY',
      `backtest: the strategy threw on every tick of ${failing
        .map((p) => `${p.pair} (${p.summary.strategy.errors})`)
        .join(', ')}: the log says why`,
    );
  }
}
