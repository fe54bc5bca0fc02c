import type { Clock, Log } from '../core/index.js';
import type { TickReport } from '../runner/runner.js';
import type { DataProblem } from './report/index.js';
import type { OrderEntryCounts } from './replay/index.js';
import {
  ReplayHalts,
  StrategyTicks,
  type OrderEntryCount,
  type RecordedMarketStats,
  type RecordingScan,
  type ReplayHalt,
  type ReplayHaltsOptions,
  type StrategyTickCount,
} from './replay/index.js';

/**
 * A pair whose rows stop this long before the run's last row is a data problem: the replay goes
 * on against its last book, frozen, and the strategy quotes into a market that no longer moves.
 */
export const ENDS_EARLY_MS = 60_000;

/** What a replay watched besides PnL, per pair (altname) and for the run. */
export interface WatchedRun {
  readonly halts: readonly ReplayHalt[];
  readonly orders: ReadonlyMap<string, OrderEntryCount>;
  /** CancelAll calls (key-wide: a halt's). */
  readonly cancelAlls: number;
  /** Each pair's strategy ticks, by altname. */
  readonly strategy: ReadonlyMap<string, StrategyTickCount>;
  /** Problems of the data the reader cannot see: refused levels, a pair's data ending early. */
  readonly problems: readonly DataProblem[];
}

export interface BacktestWatchOptions {
  readonly pairs: readonly { readonly id: string; readonly altname: string }[];
  readonly scan: RecordingScan;
  readonly market: { readonly stats: RecordedMarketStats };
  readonly halts: ReplayHaltsOptions;
  readonly orders: OrderEntryCounts;
  readonly clock: Clock;
  readonly log: Log;
  /** Told each data problem as it is known (the command prints it). */
  readonly onProblem?: (problem: DataProblem) => void;
}

/**
 * The replay's watch over what the report adds to PnL: halts (and the supervisor's CancelAll the
 * replay does for them), the exchange's order-entry counts, strategy errors, and the data
 * problems only the replay sees. step() runs after each replay step; tick() at each runner tick.
 */
export class BacktestWatch {
  readonly #o: BacktestWatchOptions;
  readonly #halts: ReplayHalts;
  readonly #ticks = new StrategyTicks();
  readonly #problems: DataProblem[] = [];
  /** Refused recorded orders by pair: how many, and when the first and the last were. */
  readonly #refused = new Map<string, { count: number; firstMs: number; lastMs: number }>();
  #refusedSeen = 0;

  constructor(options: BacktestWatchOptions) {
    this.#o = options;
    this.#halts = new ReplayHalts(options.halts);
    for (const p of options.pairs) {
      const lastMs = options.scan.pairLastMs.get(p.altname);
      if (lastMs === undefined || options.scan.lastMs - lastMs <= ENDS_EARLY_MS) continue;
      this.#problem({
        kind: 'ends-early',
        pair: p.altname,
        fromMs: lastMs,
        toMs: options.scan.lastMs,
        text:
          `${p.altname}: the data ends at ${iso(lastMs)}, ${minutes(options.scan.lastMs - lastMs)} ` +
          `before the run's end; the replay goes on with its last book, frozen`,
      });
    }
  }

  step(nowMs: number): void {
    this.#halts.check();
    const { refused, refusedByPair } = this.#o.market.stats;
    if (refused === this.#refusedSeen) return;
    this.#refusedSeen = refused;
    for (const [pair, count] of Object.entries(refusedByPair)) {
      const seen = this.#refused.get(pair);
      if (seen === undefined) this.#refused.set(pair, { count, firstMs: nowMs, lastMs: nowMs });
      else if (count > seen.count) this.#refused.set(pair, { ...seen, count, lastMs: nowMs });
    }
  }

  tick(report: Pick<TickReport, 'pair' | 'outcome'>): void {
    this.#ticks.tick(report);
  }

  /** Resolves once the halts' CancelAlls have answered. */
  settled(): Promise<void> {
    return this.#halts.settled();
  }

  result(): WatchedRun {
    for (const [pair, { count, firstMs, lastMs }] of this.#refused) {
      this.#problem({
        kind: 'refused-levels',
        pair,
        fromMs: firstMs,
        toMs: lastMs,
        text:
          `${pair}: ${count} recorded order(s) the engine refused (a price off the pair's tick, ` +
          `a volume below its minimum), ${iso(firstMs)} to ${iso(lastMs)}: the replayed book ` +
          `lacks them`,
      });
    }
    const { pairs } = this.#o;
    return {
      halts: this.#halts.halts(),
      orders: new Map(pairs.map((p) => [p.altname, this.#o.orders.of(p.altname)])),
      cancelAlls: this.#o.orders.cancelAlls,
      strategy: new Map(pairs.map((p) => [p.altname, this.#ticks.of(p.id)])),
      problems: [...this.#problems],
    };
  }

  #problem(problem: DataProblem): void {
    this.#problems.push(problem);
    this.#o.onProblem?.(problem);
  }
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

function minutes(ms: number): string {
  return ms < 120_000 ? `${Math.round(ms / 1000)} s` : `${(ms / 60_000).toFixed(1)} min`;
}
