import type { OrderEntryReport } from '../bus/index.js';

/** A pair's order-entry report, by the pair's altname. */
export interface PairOrderEntry extends OrderEntryReport {
  readonly pair: string;
}

/** The executors' order-entry reports, one per pair that has a live one (bus/order-entry-report.ts). */
export type OrderEntrySource = () => Promise<readonly PairOrderEntry[]>;

/**
 * When order entry has failed long enough to halt: `halt_after_s` of failing while not halted. A
 * failure is counted from when it began or from when the halt flag was last seen clear, whichever
 * is later: after an operator's resume the executor needs its own chance before the next halt.
 */
export class OrderEntryWatch {
  readonly #haltAfterMs: number;
  #clearSinceMs: number | undefined;

  constructor(haltAfterS: number) {
    this.#haltAfterMs = haltAfterS * 1000;
  }

  /** The failing pairs that call for a halt now; none while halted or with the rule off. */
  due(reports: readonly PairOrderEntry[], halted: boolean, nowMs: number): PairOrderEntry[] {
    if (halted) {
      this.#clearSinceMs = undefined;
      return [];
    }
    this.#clearSinceMs ??= nowMs;
    if (this.#haltAfterMs === 0) return [];
    const from = this.#clearSinceMs;
    const due = reports.filter(
      (r) => r.failing && nowMs - Math.max(r.sinceMs, from) >= this.#haltAfterMs,
    );
    // The halt these call for starts the count again, even if resumed before the next look.
    if (due.length > 0) this.#clearSinceMs = undefined;
    return due;
  }
}
