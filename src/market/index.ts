/** src/market: budgeted pollers and the immutable MarketSnapshot they build (DESIGN.md §1). */
export {
  MarketConfig,
  DEFAULT_INTERVAL_MS,
  GROUPED_BOOK_DEPTHS,
  GROUPED_BOOK_GROUPINGS,
  LEVEL3_DEPTHS,
} from './config.js';
export {
  DEFAULT_HEARTBEAT,
  planBudget,
  planFromConfig,
  wishesFor,
  executorSyncPerSec,
  type BudgetInput,
  type BudgetPlan,
  type PlannedPoll,
  type PollScope,
  type PollSource,
  type PollWish,
  type PrivateBudget,
  type PublicBudget,
} from './budget-planner.js';
export { loadPairs, resolvePairs, pairInfoOf } from './pairs.js';
export {
  buildSnapshot,
  bookView,
  microprice,
  groupedView,
  level3View,
  publicTrades,
  ownOrders,
  orderInPair,
  assetBalance,
  inventory,
  sourceStatus,
  sourceStatuses,
  restingInBook,
  type OwnResting,
  type SnapshotInput,
  type SourceInput,
  type GroupedBookResult,
  type TradeRow,
  type BalanceExEntry,
} from './snapshot-builder.js';
export {
  decideMode,
  UNKNOWN_STATUS_REASON,
  type HaltState,
  type ModeDecision,
  type ModeInput,
} from './mode.js';
export { withoutOurs, type RestingVolume } from './market-book.js';
export {
  DEFAULT_QUEUE_RULE,
  parseQueueRule,
  queueRuleName,
  fromAhead,
  type QueueRule,
} from './queue-rule.js';
export {
  QueueEstimator,
  type QueueEstimatorOptions,
  type QueueEstimatorStats,
} from './queue-estimator.js';
export type { QueueOrder } from './queue-book.js';
export { QueueFeed, TRADES_MARGIN_MS } from './queue-feed.js';
export { FillMoves, type BalanceFill, type BalanceMove } from './fill-moves.js';
export { feeLadderOf, ladderPercent, ladderFees, tradeVolumeFees } from './fees.js';
export {
  MarketFeed,
  NO_ADVERSE_SELECTION,
  mergeTrades,
  type MarketFeedOptions,
  type ModeListener,
  type TradesGapListener,
  type UpdateListener,
  type OrdersView,
  type OrdersViewListener,
} from './market-feed.js';
export {
  PollLoop,
  BACKOFF_CAP_MS,
  outcomeOf,
  type PollOutcome,
  type PollStatus,
  type PollRun,
} from './poll-loop.js';
export {
  MarketMetrics,
  ENDPOINT_OF,
  ALL_PAIRS,
  type MarketMetricsSource,
  type PairLabeler,
  type QueueFront,
} from './metrics.js';
export { BudgetUsage } from './budget-usage.js';
export { TradesCursor, type TradesGap } from './trades-cursor.js';
export { CatchUpBudget, catchUpPerSec } from './catch-up-budget.js';
export { withDeadline, PollTimeoutError } from './deadline.js';
export { deepFreeze } from './freeze.js';
