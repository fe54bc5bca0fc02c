/**
 * How long an in-memory store takes to answer, in store round trips: `trips` turns of the event
 * loop in the replay (as a Redis reply takes one: other work due at the same replay instant runs
 * meanwhile, in the same order it would on Redis), nothing elsewhere.
 */
export type RoundTrip = (trips: number) => Promise<void>;

/** Answers at once (tests, and anything not paced like Redis). */
export const NO_ROUND_TRIP: RoundTrip = () => Promise.resolve();
