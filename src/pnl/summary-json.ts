import { toWire, type DecimalString } from '../core/index.js';
import type { PnlSummary } from './types.js';

/** A PnlSummary as JSON carries it: money as exact decimal text, ratios and bps rounded. */
export interface PnlSummaryJson {
  readonly sinceMs?: number;
  readonly asOfMs?: number;
  readonly mark?: DecimalString;
  readonly position: DecimalString;
  readonly total: DecimalString;
  readonly spread: DecimalString;
  readonly inventory: DecimalString;
  readonly fees: DecimalString;
  readonly fills: number;
  readonly volumeBase: DecimalString;
  readonly volumeQuote: DecimalString;
  readonly fillRatePerHour?: number;
  readonly timeAtQuote: {
    readonly bid: number;
    readonly ask: number;
    readonly both: number;
    readonly any: number;
    readonly observedMs: number;
  };
  readonly quoteDistanceBps: {
    readonly bid?: number;
    readonly ask?: number;
    readonly mean?: number;
  };
  readonly ratecountUse: { readonly mean?: number; readonly max?: number };
  readonly markouts: readonly {
    readonly horizonMs: number;
    readonly meanBps?: number;
    readonly buyMeanBps?: number;
    readonly sellMeanBps?: number;
    readonly value: DecimalString;
    readonly fills: number;
    readonly pending: number;
  }[];
}

export function summaryJson(s: PnlSummary): PnlSummaryJson {
  return {
    ...(s.sinceMs === undefined ? {} : { sinceMs: s.sinceMs }),
    ...(s.asOfMs === undefined ? {} : { asOfMs: s.asOfMs }),
    ...(s.mark === undefined ? {} : { mark: toWire(s.mark) }),
    position: toWire(s.position),
    total: toWire(s.pnl.total),
    spread: toWire(s.pnl.spread),
    inventory: toWire(s.pnl.inventory),
    fees: toWire(s.pnl.fees),
    fills: s.fills,
    volumeBase: toWire(s.volumeBase),
    volumeQuote: toWire(s.volumeQuote),
    ...optional('fillRatePerHour', s.fillRatePerHour, 2),
    timeAtQuote: {
      bid: round(s.timeAtQuote.bid, 4),
      ask: round(s.timeAtQuote.ask, 4),
      both: round(s.timeAtQuote.both, 4),
      any: round(s.timeAtQuote.any, 4),
      observedMs: s.timeAtQuote.observedMs,
    },
    quoteDistanceBps: {
      ...optional('bid', s.quoteDistanceBps.bid, 2),
      ...optional('ask', s.quoteDistanceBps.ask, 2),
      ...optional('mean', s.quoteDistanceBps.mean, 2),
    },
    ratecountUse: {
      ...optional('mean', s.ratecountUse.mean, 4),
      ...optional('max', s.ratecountUse.max, 4),
    },
    markouts: s.markouts.map((m) => ({
      horizonMs: m.horizonMs,
      ...optional('meanBps', m.meanBps?.toNumber(), 2),
      ...optional('buyMeanBps', m.buyMeanBps?.toNumber(), 2),
      ...optional('sellMeanBps', m.sellMeanBps?.toNumber(), 2),
      value: toWire(m.value),
      fills: m.fills,
      pending: m.pending,
    })),
  };
}

function round(value: number, places: number): number {
  const f = 10 ** places;
  return Math.round(value * f) / f;
}

function optional<K extends string>(
  key: K,
  value: number | undefined,
  places: number,
): Partial<Record<K, number>> {
  return (value === undefined ? {} : { [key]: round(value, places) }) as Partial<Record<K, number>>;
}
