/**
 * Markouts as issue #33 defines them: for a fill at time t, side s, price p,
 * markout_h = sign(s) * (mid(t+h) - p) / p in bps (buy +1, sell -1). Negative: the fill was
 * adverse. Plain means per fill; a fill whose t+h falls after the run is left out of that horizon.
 */
import type { Decimal } from '../../src/core/index.js';

export const HORIZONS_S = [1, 10, 60] as const;

export interface Fill {
  readonly pair: string;
  readonly timeMs: number;
  readonly side: 'buy' | 'sell';
  readonly price: Decimal;
}

export interface MidSample {
  readonly timeMs: number;
  readonly mid: Decimal;
  /** Best ask less best bid, in bps of the mid. */
  readonly spreadBps: number;
  readonly regime: string;
}

export interface Mean {
  readonly mean: number;
  readonly count: number;
}

/** Mid samples of one pair, oldest first. */
export class MidSeries {
  readonly samples: MidSample[] = [];

  add(sample: MidSample): void {
    this.samples.push(sample);
  }

  /** The last sample at or before `timeMs`. */
  at(timeMs: number): MidSample | undefined {
    let lo = 0;
    let hi = this.samples.length - 1;
    let found: MidSample | undefined;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const s = this.samples[mid] as MidSample;
      if (s.timeMs <= timeMs) {
        found = s;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return found;
  }

  get endMs(): number {
    return this.samples[this.samples.length - 1]?.timeMs ?? 0;
  }
}

export function markout(fill: Fill, series: MidSeries, horizonS: number): number | undefined {
  const t = fill.timeMs + horizonS * 1000;
  if (t > series.endMs) return undefined;
  const later = series.at(t);
  if (later === undefined) return undefined;
  const sign = fill.side === 'buy' ? 1 : -1;
  return sign * later.mid.minus(fill.price).div(fill.price).times(10_000).toNumber();
}

export function mean(values: readonly number[]): Mean {
  if (values.length === 0) return { mean: Number.NaN, count: 0 };
  return { mean: values.reduce((a, b) => a + b, 0) / values.length, count: values.length };
}

export interface MarkoutRow {
  readonly fills: number;
  readonly byHorizon: readonly Mean[];
}

/** Mean markout per horizon of `fills`, each against its pair's series. */
export function markoutRow(
  fills: readonly Fill[],
  series: ReadonlyMap<string, MidSeries>,
): MarkoutRow {
  const byHorizon = HORIZONS_S.map((h) =>
    mean(
      fills.flatMap((f) => {
        const s = series.get(f.pair);
        const m = s === undefined ? undefined : markout(f, s, h);
        return m === undefined ? [] : [m];
      }),
    ),
  );
  return { fills: fills.length, byHorizon };
}
