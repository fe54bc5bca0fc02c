import type { Redis } from 'ioredis';
import {
  MemoryControlFlags,
  MemoryIntentBus,
  MemoryPullList,
  PulledPairs,
  RedisControlFlags,
  RedisIntentBus,
  type ControlFlags,
  type IntentBus,
  type PullList,
} from '../bus/index.js';
import { NO_ROUND_TRIP, type Clock, type Log, type RoundTrip } from '../core/index.js';
import { MATCHING_ENGINE, type Tier } from '../exchange/index.js';
import {
  MemoryLeases,
  MemoryRatecountStore,
  RedisLeases,
  RedisRatecountStore,
  type Leases,
  type RatecountStore,
} from '../executor/index.js';
import { MemoryOrderTracker, RedisOrderTracker, type OrderTracker } from '../orders/index.js';

/**
 * The state the roles share (DESIGN.md §3.6-3.7), opened once per process: the order tracker, the
 * key's ratecount model, the intent bus, the halt flag with the liveness beats, the pairs'
 * leases and the pulled pairs. `makerd run` and its roles keep them in Redis, shared with every
 * other process on the prefix; the replay keeps them in memory. Both sets keep one contract
 * (test/stores).
 */
export interface Stores {
  readonly tracker: OrderTracker;
  readonly ratecount: RatecountStore;
  readonly bus: IntentBus;
  readonly flags: ControlFlags;
  readonly leases: Leases;
  readonly pulled: PullList;
  close(): Promise<void>;
}

/** The live stores, by their Redis types (their pub/sub channels are Redis's). */
export interface RedisStores extends Stores {
  readonly tracker: RedisOrderTracker;
  readonly flags: RedisControlFlags;
  readonly pulled: PulledPairs;
}

export interface RedisStoresOptions {
  readonly redis: Redis;
  readonly prefix: string;
  /** The ratecount model's keys: ratecountKeyFor(apiKey), or a run's own. */
  readonly ratecountKey: string;
  readonly tier: Tier;
  readonly clock: Clock;
  readonly log?: Log;
  /** The bus to use instead of a RedisIntentBus on `redis` (the replay's direct wake-ups). */
  readonly bus?: IntentBus;
  /** Whether the halt flag follows its pub/sub messages (default) or only its poll (a replay). */
  readonly subscribe?: boolean;
}

export function redisStores(o: RedisStoresOptions): RedisStores {
  const tracker = new RedisOrderTracker({ redis: o.redis, prefix: o.prefix });
  const flags = new RedisControlFlags({
    connection: o.redis,
    prefix: o.prefix,
    clock: o.clock,
    ...(o.subscribe === undefined ? {} : { subscribe: o.subscribe }),
    onStateLost: ({ haltRestored }) =>
      o.log?.warn(
        { haltRestored, prefix: o.prefix },
        'Redis lost makerd state (restarted empty or flushed): fills, positions and PnL ' +
          'before now are gone; orders are adopted from the exchange, the ratecount model ' +
          'continues from this process; /status counts from stateSince',
      ),
  });
  const bus =
    o.bus ?? new RedisIntentBus({ connection: o.redis, prefix: o.prefix, clock: o.clock });
  return {
    tracker,
    ratecount: new RedisRatecountStore(
      o.redis,
      o.ratecountKey,
      MATCHING_ENGINE[o.tier],
      (pair, level) =>
        o.log?.warn(
          { pair, level: Math.round(level * 100) / 100 },
          'ratecount state missing from Redis: the model goes on from this process’s own level',
        ),
    ),
    bus,
    flags,
    leases: new RedisLeases(o.redis, o.prefix, o.clock),
    pulled: new PulledPairs(o.redis, o.prefix),
    close: async () => {
      await flags.close();
      await bus.close();
      await tracker.close();
    },
  };
}

/** The stores without their closing: what a role base hands its roles. */
export function sharedStores(stores: Stores): Omit<Stores, 'close'> {
  const { tracker, ratecount, bus, flags, leases, pulled } = stores;
  return { tracker, ratecount, bus, flags, leases, pulled };
}

/**
 * The stores of one process, in memory (the replay). `roundTrip` paces the tracker, ratecount
 * model and bus as Redis replies would be (see src/lab/replay/store-trips.ts).
 */
export function memoryStores(
  prefix: string,
  tier: Tier,
  clock: Clock,
  roundTrip: RoundTrip = NO_ROUND_TRIP,
): Stores {
  const leases = new MemoryLeases(prefix, clock, roundTrip);
  return {
    tracker: new MemoryOrderTracker({ fenceHolder: (key) => leases.holder(key), roundTrip }),
    ratecount: new MemoryRatecountStore(MATCHING_ENGINE[tier], roundTrip),
    bus: new MemoryIntentBus(prefix, roundTrip),
    flags: new MemoryControlFlags(clock),
    leases,
    pulled: new MemoryPullList(),
    close: () => Promise.resolve(),
  };
}
