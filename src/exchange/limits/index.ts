export {
  TIERS,
  type Tier,
  type DecayLimits,
  type MatchingEngineLimits,
  type OrderEntryAction,
  type AgeRow,
  REST_COUNTER,
  REST_CALL_COST,
  MATCHING_ENGINE,
  AGE_BUCKET_BOUNDS_MS,
  PENALTY_PER_ORDER,
  OTHER_LIMITS,
  parseTier,
} from './tiers.js';
export {
  FIT_EPSILON,
  decayedLevel,
  msUntilFits,
  RestCounter,
  type RestCounterState,
} from './rest-counter.js';
export {
  ageBucket,
  penalty,
  cancelPenalty,
  cancelBatchPenalty,
  cancelAllPenalty,
  ratecountLevel,
  ratecountAdd,
  EMPTY_RATECOUNT,
  RatecountMeter,
  type RatecountState,
} from './ratecount.js';
export {
  RestLimiter,
  BACKOFF_START_MS,
  BACKOFF_CAP_MS,
  type Priority,
  type RestLimiterOptions,
  type AcquireOptions,
  type RestLimiterSnapshot,
} from './rest-limiter.js';
