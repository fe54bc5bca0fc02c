import { Type, type Static } from '@sinclair/typebox';

/** `runner:` in the daemon's YAML: how desired quotes become intents. */
export const RunnerConfig = Type.Object(
  {
    /** A live order within this many bps of its desired price is left alone (per-quote override). */
    price_tolerance_bps: Type.Number({ minimum: 0, default: 5 }),
    /** A live order whose remaining volume is within this fraction of the desired one is left alone. */
    volume_tolerance: Type.Number({ minimum: 0, maximum: 1, default: 0.1 }),
    /** Replace live orders older than this (0 = never), unless the strategy says otherwise. */
    max_order_age_ms: Type.Integer({ minimum: 0, default: 0 }),
    /**
     * How long an intent stays sendable (its deadline). Within the exchange's `deadline` window of
     * 2-60 s so the executor can pass it on as is.
     */
    intent_ttl_ms: Type.Integer({ minimum: 2_000, maximum: 60_000, default: 5_000 }),
    /**
     * An unchanged intent is published again only after this long: until OpenOrders shows its
     * effect, every tick would otherwise repeat it.
     */
    republish_after_ms: Type.Integer({ minimum: 1_000, default: 10_000 }),
    /** Updates closer together than this are folded into one tick per pair. */
    min_tick_interval_ms: Type.Integer({ minimum: 0, default: 200 }),
  },
  // A misspelt option must stop start-up, not be ignored.
  { additionalProperties: false },
);
export type RunnerConfig = Static<typeof RunnerConfig>;
