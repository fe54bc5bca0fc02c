import { NO_ROUND_TRIP, type RoundTrip } from '../core/index.js';
import type { MatchingEngineLimits } from '../exchange/limits/index.js';
import { FIT_EPSILON, msUntilFits } from '../exchange/limits/index.js';
import { RatecountOps, type RatecountOp, type RatecountReading } from './ratecount-store.js';

/** Six decimals, as the Redis script stores and answers levels (string.format('%.6f')). */
const six = (v: number): number => Number(v.toFixed(6));

/**
 * The ratecount model of one process (the replay): the Redis script's arithmetic in JS, step for
 * step (decay applied when read, levels kept to six decimals), so both stores reach the same
 * levels from the same calls (test/stores).
 */
export class MemoryRatecountStore extends RatecountOps {
  readonly limits: MatchingEngineLimits;
  readonly #state = new Map<string, { count: number; at: number }>();
  readonly #trip: RoundTrip;

  /** Each call answers after one round trip (`roundTrip`), as the Redis script's. */
  constructor(limits: MatchingEngineLimits, roundTrip: RoundTrip = NO_ROUND_TRIP) {
    super();
    this.limits = limits;
    this.#trip = roundTrip;
  }

  protected async run(
    pair: string,
    nowMs: number,
    points: number,
    limit: number,
    op: RatecountOp,
  ): Promise<RatecountReading> {
    await this.#trip(1);
    const now = Math.floor(nowMs);
    const decay = this.limits.decayPerSec;
    const stored = this.#state.get(pair);
    const count = stored?.count ?? 0;
    const at = stored?.at ?? now;
    const level = now > at ? Math.max(0, count - (decay * (now - at)) / 1000) : count;
    const store = (v: number): number => {
      this.#state.set(pair, { count: six(v), at: Math.max(at, now) });
      return v;
    };
    let ok = true;
    let after = level;
    if (op === 'reserve') {
      ok = level + points <= limit + FIT_EPSILON;
      if (ok) after = store(level + points);
    } else if (op === 'add') {
      // A refund (negative points) of points that decayed meanwhile stops at zero, as the exchange's.
      after = store(Math.max(0, level + points));
    } else if (op === 'fill') {
      after = store(Math.max(level, limit));
    }
    const answered = six(after);
    return { ok, level: answered, waitMs: ok ? 0 : msUntilFits(answered, decay, points, limit) };
  }
}
