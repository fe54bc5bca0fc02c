/**
 * The public strategy plugin API: the only part of makerd a plugin in strategies/ (or an
 * operator's own package) may import. A plugin is pure: it reads a MarketSnapshot and its own
 * state and returns the quotes it wants; the runner does every I/O.
 */
import type { Static, TSchema } from '@sinclair/typebox';
import type { Decimal } from '../core/decimal.js';
import type { MarketSnapshot, PairInfo } from '../core/market.js';
import type { Side } from '../core/order-types.js';
import type { QuoteFloor } from './strategy-kit.js';

export { Type, type Static, type TSchema } from '@sinclair/typebox';
export { Decimal, dec } from '../core/decimal.js';
export type {
  MarketSnapshot,
  PairInfo,
  PriceLevel,
  BookView,
  GroupedBookView,
  Level3Order,
  Level3View,
  PublicTrade,
  OwnOrder,
  AssetBalance,
  Inventory,
  TradingMode,
  DataSource,
  SourceStatus,
  SlotRef,
  FeeRates,
  AdverseSelection,
  QueuePosition,
} from '../core/market.js';
export type { Side } from '../core/order-types.js';

/** How far a live order may drift from its desired quote before it is amended. */
export interface QuoteTolerance {
  /** Price difference, in basis points of the desired price, that is still "the same". */
  readonly priceBps?: number;
  /** Volume difference, as a fraction of the desired volume, that is still "the same". */
  readonly volumeFraction?: number;
}

/** One order a strategy wants resting; its slot is (side, level). */
export interface DesiredQuote {
  readonly side: Side;
  /** 0 is the level nearest the mid; at most one quote per (side, level). */
  readonly level: number;
  /** Any precision: the runner rounds to the pair's tick (away from the mid) and lot. */
  readonly price: Decimal;
  readonly volume: Decimal;
  /** Defaults to true: a market maker adds liquidity. */
  readonly postOnly?: boolean;
  /** Overrides the runner's default tolerance for this quote. */
  readonly tolerance?: QuoteTolerance;
  /** Replace the live order once it is older than this, even when it has not drifted. */
  readonly maxAgeMs?: number;
  /**
   * Queue-aware refresh: what the front of the queue is worth (bps of the price) and one
   * ratecount point (bps). A live order is then moved only when its drift from this quote
   * exceeds the tolerance plus the queue place it would lose plus the points the move costs.
   */
  readonly queue?: { readonly valueBps: number; readonly ratecountPointBps: number };
}

export interface QuoteResult<S> {
  /** Every slot the strategy wants filled; a live slot missing here is cancelled. */
  readonly quotes: readonly DesiredQuote[];
  /** The state passed to the next call; omit to keep the same state. */
  readonly state?: S;
  /** The half-spread floor the quotes were held to, and its parts (shown in /status). */
  readonly floor?: QuoteFloor;
  /**
   * The strategy's model figures worth watching (a fitted parameter, a sample size), by name:
   * shown in /status and the console, and as the makerd_strategy_model gauge when numeric.
   */
  readonly model?: Readonly<Record<string, number | string>>;
}

/**
 * A fill of one of our orders, as the executor's tracker recorded it: the same fills PnL and the
 * metrics count.
 */
export interface FillEvent {
  readonly pair: string;
  readonly txid: string;
  readonly side: Side;
  /** Average price of this execution. */
  readonly price: Decimal;
  readonly volume: Decimal;
  /** Quote value of this execution as the exchange counted it (price is cost / volume). */
  readonly cost: Decimal;
  /** Fee of this execution, in `feeIn`'s asset. */
  readonly fee: Decimal;
  readonly feeIn: 'base' | 'quote';
  /** When the executor learned of it. */
  readonly timeMs: number;
}

export interface StrategyContext<O> {
  readonly pair: PairInfo;
  /** Options after the schema's defaults were applied and validated. */
  readonly options: O;
  /** Structured log lines, tagged with the strategy and pair. */
  readonly log: StrategyLog;
}

export interface StrategyLog {
  info(fields: Record<string, unknown>, msg: string): void;
  warn(fields: Record<string, unknown>, msg: string): void;
}

export interface StrategyPlugin<Schema extends TSchema = TSchema, S = unknown> {
  /** Lower-case name used in config, e.g. `spread`. */
  readonly name: string;
  /** Semantic version, e.g. `1.0.0`. */
  readonly version: string;
  readonly description?: string;
  /** TypeBox schema of the options; defaults are applied and errors name the field. */
  readonly options: Schema;
  /** The state before the first quote. */
  init(ctx: StrategyContext<Static<Schema>>): S;
  /** Pure: no I/O, no clock (use snapshot.takenAtMs), no randomness that is not in state. */
  quote(snapshot: MarketSnapshot, state: S, ctx: StrategyContext<Static<Schema>>): QuoteResult<S>;
  start?(ctx: StrategyContext<Static<Schema>>): void;
  stop?(ctx: StrategyContext<Static<Schema>>): void;
  /** Returns the new state; omit to keep it. */
  fill?(fill: FillEvent, state: S, ctx: StrategyContext<Static<Schema>>): S | undefined;
}

/** Identity with types: `export default defineStrategy({...})` is a whole plugin. */
export function defineStrategy<Schema extends TSchema, S>(
  plugin: StrategyPlugin<Schema, S>,
): StrategyPlugin<Schema, S> {
  return plugin;
}

export {
  BPS,
  DecimalOption,
  QUOTE_HANDLING_OPTIONS,
  EDGE_OPTIONS,
  quoteHandling,
  quoteFloor,
  applyFloor,
  clampPostOnly,
  type QuoteHandlingValues,
  type EdgeValues,
  type QuoteFloor,
} from './strategy-kit.js';
