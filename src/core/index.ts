export {
  MakerdError,
  InvalidInputError,
  asError,
  errorMessage,
  type MakerdErrorOptions,
} from './errors.js';
export { type Clock, systemClock, ManualClock, every, sleepToNext, within } from './clock.js';
export { PacedLoop, type PacedLoopParts } from './paced-loop.js';
export { TimerQueue } from './timer-queue.js';
export {
  StallWatch,
  type Stall,
  type StallListener,
  type StallWatchOptions,
} from './stall-watch.js';
export { NO_ROUND_TRIP, type RoundTrip } from './round-trip.js';
export { promised } from './promised.js';
export { freePort } from './free-port.js';
export { parseWithSchema, schemaProblem, type SchemaProblem } from './validate.js';
export { closestName } from './did-you-mean.js';
export { printable, printableBeyondC0, printableJson } from './printable.js';
export {
  Decimal,
  type DecimalString,
  dec,
  isDecimalString,
  sameAmount,
  toWire,
} from './decimal.js';
export {
  SIDES,
  ORDER_TYPES,
  CLOSE_ORDER_TYPES,
  TRIGGERED_ORDER_TYPES,
  TIME_IN_FORCE,
  STP_TYPES,
  type Side,
  type OrderType,
  type CloseOrderType,
  type TimeInForce,
  type StpType,
} from './order-types.js';
export * from './market.js';
export * from './intent.js';
export { type Log, silentLog } from './log.js';
