import { asError } from './errors.js';

/**
 * `fn`'s result as a promise and its throw as a rejection. The in-memory stores answer through
 * it, so a refused call fails as their Redis twins' do (a rejected promise), never by throwing
 * at the caller before a promise exists: a `.catch()` on the call must see it either way.
 */
export function promised<T>(fn: () => T): Promise<T> {
  try {
    return Promise.resolve(fn());
  } catch (err) {
    return Promise.reject(asError(err));
  }
}
