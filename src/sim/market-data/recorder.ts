import type { Clock, Decimal } from '../../core/index.js';
import { msToNs } from '../engine/matching-engine.js';
import type { Engine, PublicTrade } from '../engine/types.js';
import type { Markets, SimPair } from '../markets.js';
import { BoundedLog } from './bounded-log.js';
import type { MarketHistory, OhlcFrame, SpreadSample, TapePrint, WindowStats } from './history.js';
import { OHLC_INTERVALS, OHLC_MAX_ROWS, OhlcSeries } from './ohlc-series.js';

export interface MarketRecorderOptions {
  /** Prints kept per pair (default 10 000). */
  readonly tapeSize?: number;
  /** Top-of-book samples kept per pair (default 200, the spec's "about 200"). */
  readonly spreadSize?: number;
}

/** Ticker needs 24 hours of 1-minute frames; other intervals only the rows OHLC returns. */
const MINUTE_FRAMES_KEPT = 24 * 60 + 60;

interface PairRecord {
  readonly tape: BoundedLog<TapePrint>;
  readonly spreads: BoundedLog<SpreadSample>;
  readonly series: Map<number, OhlcSeries>;
  lastCursorNs: bigint;
}

/**
 * The market's memory besides the live book: the tape, OHLC frames of every interval and
 * top-of-book samples, per pair. It listens to the engine (`onTrade`, `onBook`); the public
 * endpoints read it.
 */
export class MarketRecorder implements MarketHistory {
  readonly #clock: Clock;
  readonly #engine: Pick<Engine, 'book' | 'top'>;
  readonly #tapeSize: number;
  readonly #spreadSize: number;
  readonly #pairs = new Map<string, PairRecord>();

  /**
   * `engine` is read only when the book changes (to sample its top), so the engine may be built
   * with this recorder's methods as its listeners before the recorder exists (late-bound).
   */
  constructor(
    markets: Markets,
    engine: Pick<Engine, 'book' | 'top'>,
    clock: Clock,
    options: MarketRecorderOptions = {},
  ) {
    this.#clock = clock;
    this.#engine = engine;
    this.#tapeSize = options.tapeSize ?? 10_000;
    this.#spreadSize = options.spreadSize ?? 200;
    for (const pair of markets.pairs) this.#record(pair);
  }

  trades(pair: SimPair): readonly PublicTrade[] {
    return this.prints(pair).map((p) => p.trade);
  }

  prints(pair: SimPair): readonly TapePrint[] {
    return this.#record(pair).tape.items();
  }

  ohlc(pair: SimPair, intervalMin: number, nowMs: number): readonly OhlcFrame[] {
    const series = this.#record(pair).series.get(intervalMin);
    if (series === undefined) throw new RangeError(`not an OHLC interval: ${intervalMin}`);
    const fallback = this.#record(pair).tape.last()?.trade.price ?? pair.initialPrice;
    return series.rows(nowMs, OHLC_MAX_ROWS, fallback);
  }

  stats(pair: SimPair, fromMs: number): WindowStats {
    const minutes = this.#record(pair).series.get(1) as OhlcSeries;
    return minutes.stats(minutes.frameStart(fromMs));
  }

  spreads(pair: SimPair): readonly SpreadSample[] {
    return this.#record(pair).spreads.items();
  }

  onTrade(trade: PublicTrade): void {
    const rec = this.#record(trade.pair);
    const atNs = msToNs(trade.timeMs);
    rec.lastCursorNs = atNs > rec.lastCursorNs ? atNs : rec.lastCursorNs + 1n;
    rec.tape.push({ trade, cursorNs: rec.lastCursorNs });
    for (const series of rec.series.values()) series.add(trade.timeMs, trade.price, trade.volume);
  }

  onBook(pair: SimPair): void {
    const { bid, ask } = this.#top(pair);
    // A one-sided book has no spread to report.
    if (bid === undefined || ask === undefined) return;
    const rec = this.#record(pair);
    const prev = rec.spreads.last();
    if (prev !== undefined && prev.bid.eq(bid) && prev.ask.eq(ask)) return;
    rec.spreads.push({ timeSec: Math.floor(this.#clock.now() / 1000), bid, ask });
  }

  #top(pair: SimPair): { bid: Decimal | undefined; ask: Decimal | undefined } {
    if (this.#engine.top !== undefined) return this.#engine.top(pair);
    const book = this.#engine.book(pair, 1);
    return { bid: book.bids[0]?.price, ask: book.asks[0]?.price };
  }

  #record(pair: SimPair): PairRecord {
    let rec = this.#pairs.get(pair.id);
    if (rec === undefined) {
      rec = {
        tape: new BoundedLog<TapePrint>(this.#tapeSize),
        spreads: new BoundedLog<SpreadSample>(this.#spreadSize),
        series: new Map(
          OHLC_INTERVALS.map((i) => [
            i,
            new OhlcSeries(
              i,
              i === 1 ? Math.max(MINUTE_FRAMES_KEPT, OHLC_MAX_ROWS) : OHLC_MAX_ROWS,
            ),
          ]),
        ),
        lastCursorNs: 0n,
      };
      this.#pairs.set(pair.id, rec);
    }
    return rec;
  }
}
