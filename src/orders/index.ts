export type { Fence, OrderReader, OrderTracker } from './order-tracker.js';
export { RedisOrderTracker, type RedisOrderTrackerOptions } from './redis-order-tracker.js';
export { MemoryOrderTracker, type MemoryOrderTrackerOptions } from './memory-order-tracker.js';
export { TrackerError, type TrackerErrorCode } from './errors.js';
export { applyFill, deriveFill, emptyPosition } from './position.js';
export { bestQuotes, type PairQuotes } from './best-quotes.js';
export {
  FOREIGN_SLOT,
  checkOrder,
  decodeFill,
  decodeOrder,
  decodePosition,
  encodeFill,
  encodeOrder,
  encodePosition,
  type Location,
} from './codec.js';
export * from './types.js';
