import type { TickReport } from '../../runner/runner.js';

/** One pair's strategy over a replay: ticks it was asked to quote, and those where it threw. */
export interface StrategyTickCount {
  /** Ticks the strategy's quote() ran (quoted, refused by the risk gate, or threw). */
  readonly ran: number;
  /** Ticks whose quote() threw (its quotes were pulled). */
  readonly errors: number;
}

/** Counts each pair's strategy ticks from the runner's tick reports. */
export class StrategyTicks {
  readonly #counts = new Map<string, { ran: number; errors: number }>();

  tick(report: Pick<TickReport, 'pair' | 'outcome'>): void {
    if (report.outcome !== 'quoted' && report.outcome !== 'refused' && report.outcome !== 'error')
      return;
    let count = this.#counts.get(report.pair);
    if (count === undefined) this.#counts.set(report.pair, (count = { ran: 0, errors: 0 }));
    count.ran += 1;
    if (report.outcome === 'error') count.errors += 1;
  }

  of(pairId: string): StrategyTickCount {
    return { ...(this.#counts.get(pairId) ?? { ran: 0, errors: 0 }) };
  }
}
