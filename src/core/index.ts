export { MakerdError, InvalidInputError, type MakerdErrorOptions } from './errors.js';
export { type Clock, systemClock, ManualClock } from './clock.js';
export { parseWithSchema } from './validate.js';
export { Decimal, type DecimalString, dec, isDecimalString, toWire } from './decimal.js';
