import type { Decimal } from '../../core/index.js';
import type { SimPair } from '../markets.js';
import type { PublicTrade } from '../engine/types.js';

/** One OHLC frame as the spec's 8-element row: time, open, high, low, close, vwap, volume, count. */
export interface OhlcFrame {
  readonly timeSec: number;
  readonly open: Decimal;
  readonly high: Decimal;
  readonly low: Decimal;
  readonly close: Decimal;
  readonly vwap: Decimal;
  readonly volume: Decimal;
  readonly count: number;
}

/** A print with its position on the tape, the cursor that public Trades pages by. */
export interface TapePrint {
  readonly trade: PublicTrade;
  /**
   * Unique and increasing per pair: the print's time in ns since the epoch, bumped by 1 ns when
   * several prints share a millisecond. Trades sends it as `last` and takes it back as `since`.
   */
  readonly cursorNs: bigint;
}

/** Trades aggregated over a window (Ticker's today and last-24-hours columns). */
export interface WindowStats {
  readonly volume: Decimal;
  /** Price x volume summed; vwap = notional / volume. */
  readonly notional: Decimal;
  readonly count: number;
  /** Undefined when nothing traded in the window. */
  readonly open: Decimal | undefined;
  readonly high: Decimal | undefined;
  readonly low: Decimal | undefined;
  /** Last price before the window; undefined when nothing is known. */
  readonly closeBefore: Decimal | undefined;
}

export interface SpreadSample {
  readonly timeSec: number;
  readonly bid: Decimal;
  readonly ask: Decimal;
}

/**
 * What the public market-data endpoints read besides the live book: the tape, OHLC frames and
 * top-of-book spread samples, fed by the engine's listeners.
 */
export interface MarketHistory {
  /** Oldest first. */
  trades(pair: SimPair): readonly PublicTrade[];
  /** Frames of `intervalMin`, oldest first, the current (uncommitted) frame last. */
  ohlc(pair: SimPair, intervalMin: number, nowMs: number): readonly OhlcFrame[];
  /** About the last 200 top-of-book changes, oldest first. */
  spreads(pair: SimPair): readonly SpreadSample[];
  /** The tape with cursors, oldest first (the same prints as `trades`). */
  prints(pair: SimPair): readonly TapePrint[];
  /** Trades from `fromMs` (floored to the minute) until now. */
  stats(pair: SimPair, fromMs: number): WindowStats;
  /** Engine listener: a print. */
  onTrade(trade: PublicTrade): void;
  /** Engine listener: the book changed; sample the top. */
  onBook(pair: SimPair): void;
}
