import { Type, type Static, type TSchema } from '@sinclair/typebox';

/**
 * The `market:` section of the configuration: what to poll, how often the operator would like it,
 * and how much of the key's REST budget the pollers may plan. Callers validate it with
 * parseWithSchema(MarketConfig, raw, 'market'), which fills these defaults and names a bad field.
 */

const Section = <P extends Record<string, TSchema>>(props: P) =>
  Type.Object(props, { default: {}, additionalProperties: false });

/**
 * A poll's interval as the operator wishes it; unset, the default below. The planner stretches
 * both to fit the key's budget but warns only of intervals the operator set: the defaults are the
 * pace worth having, which no tier's budget pays in full once the executor's syncs are reserved,
 * so stretching them is the plan working, not something to act on.
 */
const IntervalMs = Type.Optional(Type.Integer({ minimum: 100, maximum: 3_600_000 }));

/** Each poll's interval (ms) when market.polls does not set one. */
export const DEFAULT_INTERVAL_MS = {
  depth: 1000,
  grouped_book: 5000,
  trades: 5000,
  level3: 5000,
  open_orders: 5000,
  balance: 10_000,
  system_status: 5000,
  trade_volume: 300_000,
} as const;

const Enabled = Type.Boolean({ default: true });

const literals = <T extends number>(values: readonly T[], defaultValue: T) =>
  Type.Union(
    values.map((v) => Type.Literal(v)),
    { default: defaultValue },
  );

export const GROUPED_BOOK_DEPTHS = [10, 25, 100, 250, 1000] as const;
export const GROUPED_BOOK_GROUPINGS = [1, 5, 10, 25, 50, 100, 250, 500, 1000] as const;
export const LEVEL3_DEPTHS = [0, 10, 25, 100, 250, 1000] as const;

export const MarketConfig = Section({
  /** Fraction of the tier's REST decay the planner may plan; the rest absorbs jitter. */
  utilization: Type.Number({ exclusiveMinimum: 0, maximum: 1, default: 0.8 }),
  /**
   * REST points per second other private readers of the key need, beyond the executor's periodic
   * syncs (the runner reserves those itself from executor.reconcile_interval_ms).
   */
  private_reserve_per_sec: Type.Number({ minimum: 0, default: 0 }),
  /** The spec names no public limit; a conservative rate per client address. */
  public_budget: Section({
    calls_per_sec: Type.Number({ exclusiveMinimum: 0, default: 2 }),
  }),
  /** Data older than this many planned intervals of its poll is stale. */
  stale_after_intervals: Type.Number({ minimum: 1, default: 3 }),
  request_timeout_ms: Type.Integer({ minimum: 100, maximum: 120_000, default: 5000 }),
  trades_kept: Type.Integer({ minimum: 1, maximum: 10_000, default: 200 }),
  depth_levels: Type.Integer({ minimum: 1, maximum: 500, default: 25 }),
  polls: Section({
    depth: Section({ enabled: Enabled, interval_ms: IntervalMs }),
    grouped_book: Section({
      enabled: Enabled,
      interval_ms: IntervalMs,
      depth: literals(GROUPED_BOOK_DEPTHS, 10),
      grouping: literals(GROUPED_BOOK_GROUPINGS, 10),
    }),
    /**
     * Followed with the exchange's `since` cursor; an answer of `count` rows is asked again from
     * where it ended within the public budget the plan leaves unused (docs/runner.md).
     */
    trades: Section({
      enabled: Enabled,
      interval_ms: IntervalMs,
      count: Type.Integer({ minimum: 1, maximum: 1000, default: 100 }),
    }),
    level3: Section({
      enabled: Enabled,
      interval_ms: IntervalMs,
      depth: literals(LEVEL3_DEPTHS, 25),
    }),
    /** Always on: fills and the runner's diff depend on it. One call serves every pair. */
    open_orders: Section({ interval_ms: IntervalMs }),
    /** Always on (BalanceEx): inventory. One call serves every pair. */
    balance: Section({ interval_ms: IntervalMs }),
    system_status: Section({ enabled: Enabled, interval_ms: IntervalMs }),
    /**
     * TradeVolume (one call for every pair): the key's maker and taker fees, which move with its
     * 30-day volume. Off, the fees stay those of the ladder at `fees.volume_usd`.
     */
    trade_volume: Section({ enabled: Enabled, interval_ms: IntervalMs }),
  }),
  queue: Section({
    /**
     * Where our orders stand in their queues, when Level3 is not polled: the rule that splits a
     * level's decrease not explained by trades between the volume ahead of our order and behind
     * it (src/market/queue-rule.ts). The replay's Depth-only fill model uses the same rule. `log`
     * from bench:queue's figures (docs/backtest.md, "Fill model").
     */
    rule: Type.String({
      pattern: '^(linear|log|risk-averse|power(:\\d+(\\.\\d+)?)?)$',
      default: 'log',
      description: 'linear, log, risk-averse, power (n = 2) or power:N',
    }),
  }),
  fees: Section({
    /**
     * The 30-day volume (USD) whose rung of each pair's published fee ladder (AssetPairs) is the
     * key's fee until TradeVolume answers. 0, the default, is the dearest rung: never cheaper
     * than the truth.
     */
    volume_usd: Type.Number({ minimum: 0, default: 0 }),
  }),
});
export type MarketConfig = Static<typeof MarketConfig>;
