/**
 * The package entry: the exchange client, the strategy plugin API and what a library user needs
 * around them. The daemon's own parts (runner, executor, supervisor) are composed in src/daemon,
 * not exported here.
 */
export * from './exchange/index.js';
export {
  MakerdError,
  InvalidInputError,
  toWire,
  systemClock,
  ManualClock,
  type Clock,
} from './core/index.js';
// The whole strategy API, helpers included (BPS, DecimalOption, QUOTE_HANDLING_OPTIONS, ...): an
// operator's plugin package imports from `makerd` what the built-ins import from strategy-api.
export * from './runner/strategy-api.js';
export type { OrderIntent } from './core/index.js';
