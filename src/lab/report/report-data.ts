import type { DecimalString } from '../../core/index.js';
import type { ImportSummary } from '../../recording/index.js';

/**
 * What a backtest hands to writeReport: plain JSON, written as report.json unchanged. Money in the
 * tables is exact decimal text (quote currency); chart series are numbers, since a chart plots
 * doubles anyway and number arrays keep the file small.
 */
export interface BacktestReport {
  readonly makerd_report: 1;
  /** The strategy plugin's name (and version, if it has one), for the title. */
  readonly strategy: string;
  readonly run: RunSummary;
  readonly pairs: readonly PairReport[];
  /**
   * Totals across pairs, one per quote currency: PnL only adds up within one (pairs quoted in
   * USD and EUR give two totals, never one).
   */
  readonly totals: readonly QuoteTotal[];
  /** Halts of the run (the risk gate's, an operator's), oldest first. */
  readonly halts: readonly Halt[];
  /** What the run was told: config, fees, latency, queue rule. */
  readonly settings: RunSettings;
  /** Live vs replay of the same session, when the backtest replayed a recorded live run. */
  readonly fidelity?: Fidelity;
}

export interface RunSummary {
  /** The recording replayed. */
  readonly dataDir: string;
  /** The replayed span (ms since the epoch). */
  readonly fromMs: number;
  readonly toMs: number;
  /** Simulated time covered (ms): toMs − fromMs, less any gap skipped. */
  readonly simulatedMs: number;
  /** Wall-clock time the replay took (ms); the speed is simulatedMs / wallMs. */
  readonly wallMs: number;
  /**
   * What was wrong with the data: gaps, corrupt or cut-short files, recorded orders the engine
   * refused, a pair whose data ends early. Empty when nothing was.
   */
  readonly problems: readonly DataProblem[];
  /** Ticks whose strategy quote() threw, all pairs (each pair's in its summary). */
  readonly strategyErrors: number;
  /** When the recording was imported (`makerd import`): what was read and changed to fit. */
  readonly imported?: ImportSummary;
}

export interface QuoteTotal {
  /** The quote currency (USD). */
  readonly quote: string;
  /** Pair altnames summed. */
  readonly pairs: readonly string[];
  readonly pnl: PnlSplit;
  readonly volumeQuote: DecimalString;
  /** Total PnL per quote volume traded, bps; null without volume. */
  readonly pnlPerVolumeBps: number | null;
  /** The largest fall of the equity curve from a high before it (quote currency, >= 0). */
  readonly maxDrawdown: number;
  /** The pairs' PnL total summed over time (each pair's last point held): the equity curve. */
  readonly equity: { readonly tMs: readonly number[]; readonly total: readonly number[] };
}

export interface Halt {
  readonly startMs: number;
  /** Null: still halted at the end. */
  readonly endMs: number | null;
  readonly reason: string;
  readonly by: string;
  /** Orders the halt's CancelAll took off, or why it failed. */
  readonly cancelled: number | string;
}

export interface RunSettings {
  /** The daemon config file the bot ran with. */
  readonly config: string;
  /** Each call's round trip on the replay clock (ms), and where it came from. */
  readonly latencyMs: number;
  readonly latencyFrom: string;
  /** market.queue.rule: the fill model's (and the live estimator's) queue rule. */
  readonly queueRule: string;
  /** What the replayed exchange charged each pair at the start (percent). */
  readonly fees: readonly {
    readonly pair: string;
    readonly makerPct: string;
    readonly takerPct: string;
    /** The key's 30-day volume the fee ladders were read at (USD). */
    readonly volumeUsd: string;
  }[];
}

export interface DataProblem {
  /** 'gap', 'corrupt', 'truncated', …: a short word the table shows as is. */
  readonly kind: string;
  /** Pair altname; undefined for key-wide data. */
  readonly pair?: string;
  /** The span it affects, when it has one. */
  readonly fromMs?: number;
  readonly toMs?: number;
  /** One line for a person: what and where (a file name, a row). */
  readonly text: string;
}

export interface PairReport {
  /** Pair altname (XBTUSD). */
  readonly pair: string;
  /** Asset names, for axis labels and units (XBT, USD). */
  readonly base: string;
  readonly quote: string;
  readonly summary: PairSummary;
  readonly series: PairSeries;
  /**
   * The run's fills oldest first, at most 4,000: beyond that evenly thinned (summary.fills counts
   * them all; fills.jsonl beside the report lists every one).
   */
  readonly fills: readonly FillPoint[];
  readonly markouts: MarkoutCurves;
  /**
   * The live queue estimator against the replayed exchange's exact queue, at every tick, for
   * every resting order of ours it placed (src/lab/replay/queue-check.ts); absent in reports
   * written before it was measured.
   */
  readonly queue?: {
    readonly samples: number;
    /** Samples where others rested at the order's price (the rest: ours alone there). */
    readonly shared: number;
    /** Mean |estimated − exact| ahead over the level's market volume, percent. */
    readonly meanPercent: number | null;
    readonly meanAbsAhead: number | null;
  };
}

export interface PairSummary {
  readonly fills: number;
  readonly buys: number;
  readonly sells: number;
  readonly volumeBase: DecimalString;
  readonly volumeQuote: DecimalString;
  /** Realized and marked PnL since the start, quote currency: total = spread + inventory − fees. */
  readonly pnl: PnlSplit;
  /** Fills per hour of time with at least one side quoted; null when never quoted. */
  readonly fillRatePerHour: number | null;
  /** Share of the run (0..1) with both sides quoted. */
  readonly timeAtQuote: number;
  /** Share of the run (0..1) with at least one side quoted. */
  readonly timeAtQuoteAny: number;
  /** Time-weighted mean |resting − target| / target, bps; null when never quoted. */
  readonly quoteDistanceBps: number | null;
  /** The matching engine's ratecount for this pair: time-weighted mean and peak level. */
  readonly ratecount: { readonly mean: number; readonly max: number };
  /** Total PnL per quote volume traded, bps; null without volume. */
  readonly pnlPerVolumeBps: number | null;
  /** The largest fall of the PnL total from a high before it (quote currency, >= 0). */
  readonly maxDrawdown: number;
  /** The position over the run (base), from the chart's series. */
  readonly inventory: InventoryStats;
  /** Order entry the replayed exchange received for this pair (refusals included). */
  readonly orderEntry: {
    readonly orders: number;
    readonly edits: number;
    readonly cancels: number;
  };
  /** Ticks the strategy quoted in, and those where its quote() threw. */
  readonly strategy: { readonly ticks: number; readonly errors: number };
}

export interface InventoryStats {
  readonly min: number;
  readonly max: number;
  /** Time-weighted means of the position and of its absolute value. */
  readonly mean: number;
  readonly meanAbs: number;
}

export interface PnlSplit {
  readonly spread: DecimalString;
  readonly inventory: DecimalString;
  readonly fees: DecimalString;
  readonly total: DecimalString;
}

/**
 * Columns sharing one time axis, oldest first. A quote column holds null while that side has no
 * order resting; the target columns (where the strategy wanted the quote) are optional.
 */
export interface PairSeries {
  readonly tMs: readonly number[];
  readonly mid: readonly (number | null)[];
  readonly bid: readonly (number | null)[];
  readonly ask: readonly (number | null)[];
  readonly targetBid?: readonly (number | null)[];
  readonly targetAsk?: readonly (number | null)[];
  /** Base held. */
  readonly position: readonly number[];
  /** Cumulative PnL by component, quote currency; fees as a cost (positive = paid). */
  readonly pnlSpread: readonly number[];
  readonly pnlInventory: readonly number[];
  readonly pnlFees: readonly number[];
  readonly pnlTotal: readonly number[];
  /** The ratecount level, against ratecountMax (the tier's maximum). */
  readonly ratecount: readonly number[];
  readonly ratecountMax: number;
}

export interface FillPoint {
  readonly tMs: number;
  readonly side: 'buy' | 'sell';
  readonly price: DecimalString;
  readonly volume: DecimalString;
  /** Quote currency. */
  readonly fee: DecimalString;
}

/** Volume-weighted mean markout in bps at each horizon; null where no fill has one. */
export interface MarkoutCurves {
  readonly horizonsMs: readonly number[];
  readonly buy: readonly (number | null)[];
  readonly sell: readonly (number | null)[];
  readonly all: readonly (number | null)[];
}

export interface Fidelity {
  /** Where the live session came from (its recording, or a label). */
  readonly live: string;
  /** The agreement aimed for, in % of the live figure. */
  readonly tolerancePct: number;
  readonly rows: readonly FidelityRow[];
  /** Why live and replay differ (the fill model's assumptions, latency, what the data lacked). */
  readonly note: string;
}

export interface FidelityRow {
  /** Pair altname, or 'all'. */
  readonly pair: string;
  readonly live: FidelityFigures;
  readonly replay: FidelityFigures;
}

export interface FidelityFigures {
  readonly fills: number;
  /** Quote currency. */
  readonly volume: DecimalString;
  readonly realizedPnl: DecimalString;
}
