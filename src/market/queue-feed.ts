import type { BookView, PublicTrade, QueuePosition } from '../core/index.js';
import type { Level3Result } from '../exchange/index.js';
import type { QueueOrder } from './queue-book.js';
import { QueueEstimator } from './queue-estimator.js';
import type { QueueRule } from './queue-rule.js';
import { level3View } from './snapshot-builder.js';

/**
 * A Trades answer holds every print up to the moment the exchange answered, a little before it
 * arrived: the tape is taken as complete up to this long before the arrival.
 */
export const TRADES_MARGIN_MS = 1_000;

/**
 * One pair's queue estimator as the market feed feeds it: each answer with our resting orders as
 * they are at that moment, each trade once.
 */
export class QueueFeed {
  readonly estimator: QueueEstimator;
  readonly #ours: () => readonly QueueOrder[];
  /** The newest trade given: trades are kept oldest first by time, then id. */
  #lastTrade: { timeMs: number; tradeId: number } | undefined;

  /**
   * `tradesIntervalMs` is the pair's Trades poll's (0: not polled): an answer waits for its trades
   * as long as Trades may be late before it is stale.
   */
  constructor(
    rule: QueueRule,
    tradesIntervalMs: number,
    staleAfterIntervals: number,
    ours: () => readonly QueueOrder[],
  ) {
    this.estimator = new QueueEstimator({
      rule,
      tradesWaitMs: tradesIntervalMs * staleAfterIntervals,
    });
    this.#ours = ours;
  }

  depth(book: BookView, nowMs: number): void {
    this.#sync(nowMs);
    this.estimator.depth(book, nowMs);
  }

  level3(result: Level3Result, nowMs: number): void {
    const ours = this.#sync(nowMs);
    this.estimator.level3(level3View(result, new Set(ours.map((o) => o.txid))), nowMs);
  }

  /** The trades kept (oldest first), of which those not given before are new. */
  trades(kept: readonly PublicTrade[], receivedAtMs: number, nowMs: number): void {
    this.#sync(nowMs);
    const last = this.#lastTrade;
    const fresh =
      last === undefined
        ? kept
        : kept.filter(
            (t) => t.timeMs > last.timeMs || (t.timeMs === last.timeMs && t.tradeId > last.tradeId),
          );
    const newest = fresh[fresh.length - 1];
    if (newest !== undefined) this.#lastTrade = { timeMs: newest.timeMs, tradeId: newest.tradeId };
    this.estimator.trades(fresh, receivedAtMs - TRADES_MARGIN_MS);
  }

  positions(nowMs: number): readonly QueuePosition[] {
    this.#sync(nowMs);
    return this.estimator.positions();
  }

  #sync(nowMs: number): readonly QueueOrder[] {
    const ours = this.#ours();
    this.estimator.orders(ours, nowMs);
    return ours;
  }
}
