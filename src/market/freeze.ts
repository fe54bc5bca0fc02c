import { Decimal } from '../core/index.js';

/**
 * Freezes plain objects and arrays all the way down, so a strategy cannot change what another
 * strategy or the runner sees. Decimal values are left as they are: their API never mutates, and
 * freezing their internals would tie us to decimal.js implementation details.
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  if (Decimal.isDecimal(value)) return value;
  for (const key of Object.keys(value)) {
    deepFreeze((value as Record<string, unknown>)[key]);
  }
  return Object.freeze(value);
}
