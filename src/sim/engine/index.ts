export { MatchingEngine } from './matching-engine.js';
export { ERR as ENGINE_ERRORS, REASON as CLOSE_REASONS } from './messages.js';
export { maxFeeRate, feeInBase, restingHold, type Hold } from './holds.js';
export type * from './types.js';
