import type { RoundTrip } from '../../core/index.js';
import type { InFlight } from './counting-redis.js';

/**
 * The replay's in-memory stores answer as Redis does: after a turn of the event loop per round
 * trip, counted in flight so the driver settles only once they have answered. Other work due at
 * the same replay instant (the other pair's step, the runner's tick) then interleaves with the
 * store calls as it does on Redis, so the two store kinds give the same run (test/lab/replay).
 */
export function storeTrips(inFlight: InFlight): RoundTrip {
  return async (trips) => {
    inFlight.count += 1;
    inFlight.sent += 1;
    try {
      for (let i = 0; i < trips; i++) await new Promise((resolve) => setImmediate(resolve));
    } finally {
      inFlight.count -= 1;
    }
  };
}
