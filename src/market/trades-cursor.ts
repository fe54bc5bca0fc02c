import type { TradeRow } from './snapshot-builder.js';

/**
 * Trades the feed knows it skipped: between the last trade it kept and the first of the answer
 * that followed. Trade ids are sequential per pair (the exchange's `trade_id`), so the ids on
 * either side say how many.
 */
export interface TradesGap {
  readonly afterId: number;
  /** The exchange's time of that trade (ms since the epoch). */
  readonly afterMs: number;
  readonly resumeId: number;
  readonly resumeMs: number;
  readonly missed: number;
  /** The Trades calls of `count` rows fetching them would have taken. */
  readonly callsShort: number;
}

/** What one answer tells the poll. */
export interface CursorStep {
  /** The answer was capped (as many rows as asked) after a `since`: more trades are waiting. */
  readonly more: boolean;
  readonly gap: TradesGap | undefined;
}

/**
 * Where one pair's Trades poll stands on the exchange's tape (DESIGN.md §3.16). The first call
 * asks for the newest `count` trades; every later one asks `since` the `last` of the answer
 * before, so no trade falls between two answers however busy the pair. While answers come back
 * capped the feed is behind: it catches up as the budget allows, and the trades wait on the
 * exchange meanwhile. Once the newest trade it holds is older than `lagLimitMs`, waiting would
 * only feed stale trades to the strategy, so the next call asks for the newest trades again and
 * what lies between is a gap, counted and reported, never a silent sample.
 */
export class TradesCursor {
  readonly #count: number;
  readonly #lagLimitMs: number;
  /** The `last` of the latest answer that held rows: a string, as the exchange sends it. */
  #last: string | undefined;
  #newest: { readonly id: number; readonly timeMs: number } | undefined;
  #behind = false;

  constructor(count: number, lagLimitMs: number) {
    this.#count = count;
    this.#lagLimitMs = lagLimitMs;
  }

  /** The `since` for a poll's first call at `nowMs`: undefined asks for the newest trades. */
  since(nowMs: number): string | undefined {
    const newest = this.#newest;
    if (this.#behind && newest !== undefined && nowMs - newest.timeMs > this.#lagLimitMs) {
      return undefined;
    }
    return this.#last;
  }

  /** The `since` of a catch-up call: where the last answer ended. */
  get last(): string | undefined {
    return this.#last;
  }

  /**
   * Takes the answer to a call made with `since` (rows oldest first). An empty answer after a
   * `since` keeps the cursor; an empty newest answer (a pair that has not traded yet) gives the
   * cursor to follow, so its first trades are not sampled either.
   */
  take(since: string | undefined, rows: readonly TradeRow[], last: string): CursorStep {
    const first = rows[0];
    const newest = rows[rows.length - 1];
    if (first === undefined || newest === undefined) {
      if (since === undefined) this.#last = last;
      this.#behind = false;
      return { more: false, gap: undefined };
    }
    const gap = this.#gapBefore(first);
    this.#last = last;
    if (this.#newest === undefined || newest[6] > this.#newest.id) {
      this.#newest = { id: newest[6], timeMs: timeMs(newest) };
    }
    this.#behind = since !== undefined && rows.length >= this.#count;
    return { more: this.#behind, gap };
  }

  #gapBefore(first: TradeRow): TradesGap | undefined {
    const kept = this.#newest;
    if (kept === undefined) return undefined;
    const missed = first[6] - kept.id - 1;
    if (missed <= 0) return undefined;
    return {
      afterId: kept.id,
      afterMs: kept.timeMs,
      resumeId: first[6],
      resumeMs: timeMs(first),
      missed,
      callsShort: Math.ceil(missed / this.#count),
    };
  }
}

/** A row's time is fractional seconds. */
function timeMs(row: TradeRow): number {
  return Math.round(row[2] * 1000);
}
