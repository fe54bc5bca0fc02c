import type { AdverseSelection, Decimal, DecimalString, Side } from '../core/index.js';

export type { AdverseSelection };

/** Our best resting (or wanted) price on each side; a side left out has none. */
export interface QuoteSides {
  readonly bid?: Decimal | undefined;
  readonly ask?: Decimal | undefined;
}

/** One execution of our order. `fee` is in quote units (a base fee valued at the fill's price). */
export interface PnlFill {
  readonly atMs: number;
  readonly side: Side;
  readonly price: Decimal;
  readonly volume: Decimal;
  readonly fee: Decimal;
  readonly id: string;
}

/** What the mid did `horizonMs` after a fill; `value` and `bps` stay undefined while pending. */
export interface Markout {
  readonly horizonMs: number;
  /** sign × (mid(t + h) − price) × volume, in quote units; sign +1 for a buy, −1 for a sell. */
  readonly value: Decimal | undefined;
  /** sign × (mid(t + h) − price) / price, in basis points. */
  readonly bps: Decimal | undefined;
  /** The mid it was measured against: the first sample at or after t + h. */
  readonly mid: Decimal | undefined;
}

export interface FillRecord extends PnlFill {
  /** The mid the spread was measured against (see PairPnl.fill). */
  readonly mid: Decimal;
  /** Buy: (mid − price) × volume; sell: (price − mid) × volume. Positive is good for us. */
  readonly spread: Decimal;
  /** One per horizon, in the order of `horizonsMs`. */
  readonly markouts: readonly Markout[];
}

export interface PnlOptions {
  /** Markout horizons in ms (default 1 s, 10 s, 60 s). */
  readonly horizonsMs?: readonly number[];
  /** Base held when counting starts; it enters at the first mark (the first mid). */
  readonly openingBase?: Decimal;
  /** One chart point per this many ms at first (default 10 s); doubles each time the series fills. */
  readonly seriesEveryMs?: number;
  /** Most chart points kept (default 2000): when full, every other one goes. */
  readonly seriesMaxPoints?: number;
  /** Newest fills kept with their records (default 200); every one goes to onFillSettled. */
  readonly keepFills?: number;
  /** Mids kept to price fills that arrive late (default 120 s): lateness the figures tolerate. */
  readonly historyMs?: number;
  /** Told each fill once all its markouts are known (replay writes them to its report). */
  readonly onFillSettled?: (record: FillRecord) => void;
}

/** Mark-to-market PnL since counting started: total = spread + inventory − fees, exactly. */
export interface PnlSplit {
  readonly total: Decimal;
  readonly spread: Decimal;
  readonly inventory: Decimal;
  readonly fees: Decimal;
}

export interface MarkoutSummary {
  readonly horizonMs: number;
  /** Volume-weighted mean in bps over the fills whose markout is known; undefined before one. */
  readonly meanBps: Decimal | undefined;
  /** The same over our buys only, and over our sells only. */
  readonly buyMeanBps: Decimal | undefined;
  readonly sellMeanBps: Decimal | undefined;
  /** Sum of the known markouts, in quote units. */
  readonly value: Decimal;
  readonly fills: number;
  readonly pending: number;
}

/** A share of observed time per state, in [0, 1]. */
export interface TimeAtQuote {
  readonly bid: number;
  readonly ask: number;
  readonly both: number;
  /** At least one side. */
  readonly any: number;
  /** The time these shares are of: from the first quotes() to the latest event. */
  readonly observedMs: number;
}

export interface PnlSummary {
  /** Time of the first event fed; undefined before any. */
  readonly sinceMs: number | undefined;
  /** Time of the latest event fed. */
  readonly asOfMs: number | undefined;
  /** What the position is marked at: the latest mid (without one yet, the latest fill price). */
  readonly mark: Decimal | undefined;
  /** Base held: the opening base plus fills. */
  readonly position: Decimal;
  readonly pnl: PnlSplit;
  readonly fills: number;
  readonly volumeBase: Decimal;
  readonly volumeQuote: Decimal;
  /** Fills per hour with at least one side resting; undefined before any such time. */
  readonly fillRatePerHour: number | undefined;
  readonly timeAtQuote: TimeAtQuote;
  /** Time-weighted |resting − target| / target in bps, per side and both; undefined: never both. */
  readonly quoteDistanceBps: {
    readonly bid: number | undefined;
    readonly ask: number | undefined;
    readonly mean: number | undefined;
  };
  /** Ratecount level over its max: time-weighted mean and maximum seen; undefined before a sample. */
  readonly ratecountUse: { readonly mean: number | undefined; readonly max: number | undefined };
  readonly markouts: readonly MarkoutSummary[];
}

/** One chart point: the state just after the event that made it. Money as exact decimal text. */
export interface SeriesPoint {
  readonly atMs: number;
  readonly mid: DecimalString | undefined;
  readonly bid: DecimalString | undefined;
  readonly ask: DecimalString | undefined;
  readonly targetBid: DecimalString | undefined;
  readonly targetAsk: DecimalString | undefined;
  readonly position: DecimalString;
  readonly total: DecimalString;
  readonly spread: DecimalString;
  readonly inventory: DecimalString;
  readonly fees: DecimalString;
  /** Ratecount level over max at that moment. */
  readonly ratecount: number | undefined;
}
