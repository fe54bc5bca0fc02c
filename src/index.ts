/**
 * The package entry: the exchange client and what a library user needs around it. The daemon's
 * own parts (runner, executor, supervisor) are composed in src/main.ts, not exported here.
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
