import { InvalidInputError } from '../../core/index.js';

/**
 * The spec's "Limits" tables as data (DESIGN.md §3.4). The simulator enforces these numbers and
 * the bot models them, so they live here once and nowhere else.
 */

export const TIERS = ['starter', 'intermediate', 'pro'] as const;
export type Tier = (typeof TIERS)[number];

/** A counter that grows by a call's cost and leaks `decayPerSec` points every second. */
export interface DecayLimits {
  readonly max: number;
  readonly decayPerSec: number;
}

/** REST call counter per API key. */
export const REST_COUNTER: Readonly<Record<Tier, DecayLimits>> = {
  starter: { max: 15, decayPerSec: 0.33 },
  intermediate: { max: 20, decayPerSec: 0.5 },
  pro: { max: 20, decayPerSec: 1 },
};

/**
 * Points a call adds to the REST counter. Order entry goes through the matching-engine limiter
 * instead; CancelAll and CancelAllOrdersAfter are not order entry and cost the standard 1.
 */
export const REST_CALL_COST = {
  standard: 1,
  ledgerOrTradeHistory: 2,
  orderEntry: 0,
} as const;

export interface MatchingEngineLimits extends DecayLimits {
  readonly maxOpenOrders: number;
}

/** Matching-engine limits per key and pair; `max` is the max ratecount. */
export const MATCHING_ENGINE: Readonly<Record<Tier, MatchingEngineLimits>> = {
  starter: { maxOpenOrders: 60, max: 60, decayPerSec: 1 },
  intermediate: { maxOpenOrders: 80, max: 125, decayPerSec: 2.34 },
  pro: { maxOpenOrders: 225, max: 180, decayPerSec: 3.75 },
};

/**
 * Exclusive upper bounds (ms) of the order-age columns <5s, <10s, <15s, <45s, <90s, <300s; an age
 * at or above the last bound falls in the seventh column (>=300s).
 */
export const AGE_BUCKET_BOUNDS_MS = [5_000, 10_000, 15_000, 45_000, 90_000, 300_000] as const;

/** One value per age column, in the order of AGE_BUCKET_BOUNDS_MS plus the >=300s column. */
export type AgeRow = readonly [number, number, number, number, number, number, number];

export type OrderEntryAction =
  'AddOrder' | 'AddOrderBatch' | 'EditOrder' | 'CancelOrder' | 'CancelOrderBatch';

/**
 * Ratecount points per order by order age. AddOrderBatch's "+n/2" is written as 0.5 per order and
 * CancelOrderBatch's row is per cancelled order (its sum is capped, see ratecount.ts).
 */
export const PENALTY_PER_ORDER: Readonly<Record<OrderEntryAction, AgeRow>> = {
  AddOrder: [1, 1, 1, 1, 1, 1, 1],
  AddOrderBatch: [0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5],
  EditOrder: [6, 5, 4, 2, 1, 0, 0],
  CancelOrder: [8, 6, 5, 4, 2, 1, 0],
  CancelOrderBatch: [8, 6, 5, 4, 2, 1, 0],
};

/** The spec's "Other constants". */
export const OTHER_LIMITS = {
  addOrderBatchMaxOrders: 15,
  cancelOrderBatchMaxIds: 50,
  deadlineMinMs: 2_000,
  deadlineMaxMs: 60_000,
  expiretmRelativeMinSec: 5,
  /** CancelAllOrdersAfter timeout must be under this many seconds. */
  cancelAllOrdersAfterTimeoutBelowSec: 86_400,
  ohlcMaxRows: 720,
  depthCount: { min: 1, max: 500, default: 100 },
  tradesCount: { min: 1, max: 1000, default: 1000 },
  spreadRowsApprox: 200,
  closedOrdersPageSize: 50,
  wsTokenUseWindowSec: 900,
} as const;

/** Accepts a tier name in any case (config files and env vars are written by hand). */
export function parseTier(value: string): Tier {
  const name = value.trim().toLowerCase();
  const tier = TIERS.find((t) => t === name);
  if (tier === undefined) {
    throw new InvalidInputError(
      'tier',
      `unknown tier ${JSON.stringify(value)}; expected one of ${TIERS.join(', ')}`,
    );
  }
  return tier;
}
