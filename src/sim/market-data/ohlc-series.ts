import { Decimal } from '../../core/index.js';
import type { OhlcFrame, WindowStats } from './history.js';

/** The spec's OHLC intervals, in minutes. */
export const OHLC_INTERVALS = [1, 5, 15, 30, 60, 240, 1440, 10080, 21600] as const;
export type OhlcInterval = (typeof OHLC_INTERVALS)[number];

/** The spec's cap on OHLC rows. */
export const OHLC_MAX_ROWS = 720;

const ZERO = new Decimal(0);

interface Frame {
  readonly timeSec: number;
  readonly open: Decimal;
  high: Decimal;
  low: Decimal;
  close: Decimal;
  volume: Decimal;
  /** Sum of price x volume, so vwap stays exact. */
  notional: Decimal;
  count: number;
}

/**
 * One pair's frames of one interval. Only frames that saw a trade are stored; quiet frames are
 * produced on read as flat rows at the previous close, so a day without trades costs nothing and
 * the series a client reads is still continuous.
 */
export class OhlcSeries {
  readonly periodSec: number;
  readonly #capacity: number;
  readonly #frames: Frame[] = [];
  /** Close of the newest frame dropped for capacity: the price flat rows before the kept ones use. */
  #evictedClose: Decimal | undefined;

  /** `capacity` frames with trades are kept; it must be at least the rows ever read back. */
  constructor(intervalMin: number, capacity = OHLC_MAX_ROWS) {
    this.periodSec = intervalMin * 60;
    this.#capacity = capacity;
  }

  frameStart(timeMs: number): number {
    const sec = Math.floor(timeMs / 1000);
    return sec - (((sec % this.periodSec) + this.periodSec) % this.periodSec);
  }

  add(timeMs: number, price: Decimal, volume: Decimal): void {
    const t = this.frameStart(timeMs);
    const frame = this.#findOrInsert(t, price);
    if (price.gt(frame.high)) frame.high = price;
    if (price.lt(frame.low)) frame.low = price;
    // A late print (the clock never runs back, but be safe) must not move the close of a frame
    // that already has newer trades; within the current frame the newest print is the close.
    if (frame === this.#frames[this.#frames.length - 1] || frame.count === 0) frame.close = price;
    frame.volume = frame.volume.plus(volume);
    frame.notional = frame.notional.plus(price.times(volume));
    frame.count += 1;
  }

  /**
   * Up to `maxRows` rows ending with the frame that holds `nowMs` (always present, flat when
   * nothing traded in it). Rows start at the first trade ever seen when that is more recent.
   * `fallbackClose` prices the rows when there has never been a trade.
   */
  rows(nowMs: number, maxRows: number, fallbackClose: Decimal): OhlcFrame[] {
    const current = this.frameStart(nowMs);
    const windowStart = current - (maxRows - 1) * this.periodSec;
    let i = this.#firstIndexAtOrAfter(windowStart);
    let prevClose = i > 0 ? this.#frames[i - 1]?.close : this.#evictedClose;
    let t = windowStart;
    if (prevClose === undefined) {
      const first = this.#frames[i];
      if (first === undefined || first.timeSec > current) {
        return [flat(current, fallbackClose)];
      }
      t = first.timeSec;
    }
    const out: OhlcFrame[] = [];
    for (; t <= current; t += this.periodSec) {
      const f = this.#frames[i];
      if (f !== undefined && f.timeSec === t) {
        out.push(snapshot(f));
        prevClose = f.close;
        i += 1;
      } else {
        out.push(flat(t, prevClose ?? fallbackClose));
      }
    }
    return out;
  }

  /** Aggregates the frames starting at or after `fromSec` (whole frames only). */
  stats(fromSec: number): WindowStats {
    const i = this.#firstIndexAtOrAfter(fromSec);
    const closeBefore = i > 0 ? this.#frames[i - 1]?.close : this.#evictedClose;
    let volume = ZERO;
    let notional = ZERO;
    let count = 0;
    let open: Decimal | undefined;
    let high: Decimal | undefined;
    let low: Decimal | undefined;
    for (let j = i; j < this.#frames.length; j++) {
      const f = this.#frames[j] as Frame;
      open ??= f.open;
      high = high === undefined || f.high.gt(high) ? f.high : high;
      low = low === undefined || f.low.lt(low) ? f.low : low;
      volume = volume.plus(f.volume);
      notional = notional.plus(f.notional);
      count += f.count;
    }
    return { volume, notional, count, open, high, low, closeBefore };
  }

  #findOrInsert(t: number, price: Decimal): Frame {
    const last = this.#frames[this.#frames.length - 1];
    if (last !== undefined && last.timeSec === t) return last;
    const fresh: Frame = {
      timeSec: t,
      open: price,
      high: price,
      low: price,
      close: price,
      volume: ZERO,
      notional: ZERO,
      count: 0,
    };
    if (last === undefined || last.timeSec < t) {
      this.#frames.push(fresh);
      if (this.#frames.length > this.#capacity) this.#evictedClose = this.#frames.shift()?.close;
      return fresh;
    }
    const i = this.#firstIndexAtOrAfter(t);
    const existing = this.#frames[i];
    if (existing !== undefined && existing.timeSec === t) return existing;
    this.#frames.splice(i, 0, fresh);
    if (this.#frames.length > this.#capacity) this.#evictedClose = this.#frames.shift()?.close;
    return fresh;
  }

  #firstIndexAtOrAfter(t: number): number {
    let lo = 0;
    let hi = this.#frames.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.#frames[mid] as Frame).timeSec < t) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

function snapshot(f: Frame): OhlcFrame {
  return {
    timeSec: f.timeSec,
    open: f.open,
    high: f.high,
    low: f.low,
    close: f.close,
    vwap: f.volume.isZero() ? f.close : f.notional.div(f.volume),
    volume: f.volume,
    count: f.count,
  };
}

function flat(timeSec: number, close: Decimal): OhlcFrame {
  return {
    timeSec,
    open: close,
    high: close,
    low: close,
    close,
    vwap: close,
    volume: ZERO,
    count: 0,
  };
}
