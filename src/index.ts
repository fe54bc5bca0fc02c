/**
 * The package entry: the exchange client, the strategy plugin API and what a library user needs
 * around them. The daemon's own parts (runner, executor, supervisor) are composed in src/cli, not
 * exported here.
 */
export * from './exchange/index.js';
export {
  MakerdError,
  InvalidInputError,
  Decimal,
  dec,
  toWire,
  systemClock,
  ManualClock,
  type Clock,
} from './core/index.js';
export {
  defineStrategy,
  Type,
  type Static,
  type TSchema,
  type StrategyPlugin,
  type StrategyContext,
  type StrategyLog,
  type DesiredQuote,
  type QuoteResult,
  type QuoteTolerance,
  type FillEvent,
} from './runner/strategy-api.js';
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
  OrderIntent,
} from './core/index.js';
