import { Type, type Static } from '@sinclair/typebox';
import { InvalidInputError } from '../core/index.js';

/** `executor:` in the daemon's YAML: how intents become order-entry calls. */
export const ExecutorConfig = Type.Object(
  {
    /**
     * Ratecount points kept free under the tier's max. Our level is a model of the exchange's; the
     * headroom absorbs what the model cannot see (the supervisor's CancelAll, another process on
     * the key) so a drift never becomes `EOrder:Rate limit exceeded`.
     */
    headroom_points: Type.Number({ minimum: 0, default: 2 }),
    /**
     * The shortest `deadline` sent with an order-entry call, from the moment it is sent. Short, so
     * an unanswered call is known not to execute soon after (the spec's minimum is 2 s at the
     * engine; the extra second covers clock differences). On a slower link the deadline grows
     * with the measured round trip (round-trips.ts), up to `deadline_max_ms`.
     */
    deadline_ms: Type.Integer({ minimum: 2_500, maximum: 60_000, default: 3_000 }),
    /**
     * The longest `deadline` sent. A call that reaches the engine later than this after it was
     * priced is stale for a market maker: past it order entry is failing (a warning, /readyz,
     * the supervisor's halt) rather than quoting ever older prices. The spec allows 60 s.
     */
    deadline_max_ms: Type.Integer({ minimum: 2_500, maximum: 60_000, default: 10_000 }),
    /**
     * What the deadline keeps over the recent p99 order-entry round trip plus the spec's 2 s
     * minimum: clock differences and jitter. The round trip stands for the one-way delay, which
     * is not measurable and can be all of it.
     */
    deadline_margin_ms: Type.Integer({ minimum: 0, maximum: 30_000, default: 1_000 }),
    /**
     * The shortest wait for an order-entry answer; past it the outcome is unknown. On a slower
     * link it grows to twice the recent p99 round trip, up to `deadline_max_ms`.
     */
    request_timeout_ms: Type.Integer({ minimum: 100, maximum: 60_000, default: 2_000 }),
    /** Order-entry round trips older than this no longer count for the p99. */
    round_trip_window_ms: Type.Integer({ minimum: 1_000, maximum: 3_600_000, default: 60_000 }),
    /** Unknown outcomes are queried this long after the call's deadline. */
    resolve_grace_ms: Type.Integer({ minimum: 0, maximum: 60_000, default: 500 }),
    /**
     * Full reconciliation against OpenOrders and ClosedOrders (REST budget: 2 calls each time,
     * shared by the pairs of the process, which sync together).
     */
    reconcile_interval_ms: Type.Integer({ minimum: 5_000, default: 30_000 }),
    /** Orders of the key that are not this instance's: `leave` them (default) or `cancel` them. */
    foreign_orders: Type.Union([Type.Literal('leave'), Type.Literal('cancel')], {
      default: 'leave',
    }),
    /**
     * AddOrderBatch is used from this many orders up. The spec names no minimum, the exchange
     * family documents 2; a one-order batch would halve AddOrder's price but may be refused.
     */
    add_batch_min_orders: Type.Integer({ minimum: 1, maximum: 15, default: 2 }),
    /**
     * Order-entry calls of one drain in flight at once. Above 1, calls on different slots go out
     * together instead of each waiting for the previous answer; they overlap only on a key with a
     * nonce window (exchange.nonce_window: without one the client sends the key's calls one at a
     * time). Replacement adds always wait for their cancel.
     */
    max_calls_in_flight: Type.Integer({ minimum: 1, maximum: 16, default: 1 }),
    /**
     * An order we saw open this long before the runner's Depth call that showed no level at its
     * price (or its OpenOrders call that did not list it) has left the book, filled or cancelled:
     * its slot is placed again at once instead of amended into "Unknown order". The margin covers
     * clock differences between the runner's machine and this one; 0 turns the rule off.
     */
    vanished_margin_ms: Type.Integer({ minimum: 0, maximum: 60_000, default: 1_000 }),
    /** Pairs this process may work (exchange ids or altnames); empty = every configured pair. */
    pairs: Type.Array(Type.String({ minLength: 1 }), { default: [] }),
    /**
     * A pair's lease: one executor works a pair at a time; a standby takes over when the owner
     * stops renewing for this long.
     */
    lease_ttl_ms: Type.Integer({ minimum: 1_000, maximum: 120_000, default: 10_000 }),
    /**
     * A drain or sync of one pair running longer than this is taken for a hang: the executor
     * stops its liveness beats, so the supervisor stops the dead-man heartbeats.
     */
    hung_after_ms: Type.Integer({ minimum: 1_000, maximum: 600_000, default: 30_000 }),
    /** How often a standby tries to take a pair whose owner is gone. */
    lease_retry_ms: Type.Integer({ minimum: 100, maximum: 60_000, default: 2_000 }),
  },
  // A misspelt option must stop start-up, not be ignored.
  { additionalProperties: false },
);
export type ExecutorConfig = Static<typeof ExecutorConfig>;

/** What the schema cannot say: a deadline range that is a range. */
export function checkExecutorConfig(config: ExecutorConfig): void {
  if (config.deadline_max_ms < config.deadline_ms) {
    throw new InvalidInputError(
      'executor.deadline_max_ms',
      `must be at least deadline_ms (${config.deadline_ms}), got ${config.deadline_max_ms}`,
    );
  }
}
