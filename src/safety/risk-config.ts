import { Type, type Static } from '@sinclair/typebox';

/** A positive decimal amount, as text (money is never a float: DESIGN.md §3.1). */
const Amount = Type.String({ pattern: '^(0|[1-9]\\d*)(\\.\\d+)?$' });

const PairLimits = Type.Object(
  {
    /** Largest |base| position (e.g. BTC held or owed). */
    max_base: Type.Optional(Amount),
    /** Largest |quote| position (e.g. USD spent or received). */
    max_quote: Type.Optional(Amount),
    /** Largest remaining volume of one of our orders. */
    max_order_volume: Type.Optional(Amount),
    /** Largest price × remaining volume of one of our orders, in quote. */
    max_order_notional: Type.Optional(Amount),
    /** Most of our orders open on the pair at once. */
    max_open_orders: Type.Optional(Type.Integer({ minimum: 1 })),
  },
  { additionalProperties: false },
);
export type PairLimits = Static<typeof PairLimits>;

/**
 * `supervisor.risk:` limits whose breach halts makerd (flag, CancelAll) with the reason in status,
 * logs and metrics. Every limit is off unless configured, except the data-freshness and quote-band
 * checks, which have safe defaults.
 */
export const RiskConfig = Type.Object(
  {
    /** How often positions, orders and prices are checked. */
    interval_ms: Type.Integer({ minimum: 100, default: 2_000 }),
    /** Limits of every pair. */
    limits: Type.Optional(PairLimits),
    /** Per pair (altname or id), on top of `limits`. */
    pairs: Type.Record(Type.String({ minLength: 1 }), PairLimits, { default: {} }),
    /**
     * Largest loss since the supervisor started, realized plus open positions marked to mid, in
     * the quote asset all pairs share.
     */
    max_loss: Type.Optional(Amount),
    /** The same since 00:00 UTC. */
    max_daily_loss: Type.Optional(Amount),
    /** More fills than this within the window trips the breaker (a runaway or a toxic market). */
    fill_rate: Type.Optional(
      Type.Object(
        {
          max_fills: Type.Integer({ minimum: 1 }),
          window_s: Type.Integer({ minimum: 1 }),
        },
        { additionalProperties: false },
      ),
    ),
    /** Market data (the mid) older than this halts: quotes would rest on a stale price. */
    stale_after_s: Type.Number({ exclusiveMinimum: 0, default: 30 }),
    /** One of our orders farther than this from mid halts (a strategy or data bug). */
    quote_band_bps: Type.Number({ exclusiveMinimum: 0, default: 1_000 }),
  },
  { default: {}, additionalProperties: false },
);
export type RiskConfig = Static<typeof RiskConfig>;
