export { OrderTracker, type Fence, type OrderTrackerOptions } from './order-tracker.js';
export { TrackerError, type TrackerErrorCode } from './errors.js';
export { applyFill, deriveFill, emptyPosition } from './position.js';
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
