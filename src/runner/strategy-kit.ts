/**
 * Helpers most quoting strategies need, part of the public strategy API (re-exported by
 * strategy-api.ts): the option fields every quote carries to the runner, decimal-string options,
 * basis points and the post-only clamp. Written once here so plugins stay small and agree.
 */
import { Type } from '@sinclair/typebox';
import { dec, Decimal } from '../core/decimal.js';
import type { MarketSnapshot } from '../core/market.js';
import type { Side } from '../core/order-types.js';

/** One basis point as a fraction. */
export const BPS = dec('0.0001');

const DECIMAL = '^[+-]?(?:\\d+\\.?\\d*|\\.\\d+)$';
const POSITIVE_DECIMAL = '^(?=.*[1-9])(?:\\d+\\.?\\d*|\\.\\d+)$';

/**
 * A decimal option written as a string (`'0.01'`), so a YAML value never passes through a float;
 * read it with dec().
 */
export function DecimalOption(options: {
  readonly default: string;
  readonly description: string;
  readonly positive?: boolean;
}) {
  return Type.String({
    pattern: options.positive === true ? POSITIVE_DECIMAL : DECIMAL,
    default: options.default,
    description: options.description,
  });
}

/** Spread these into a strategy's Type.Object to offer the standard quote-handling options. */
export const QUOTE_HANDLING_OPTIONS = {
  post_only: Type.Boolean({
    default: true,
    description: 'Send quotes post-only and keep them one tick inside the opposite best price.',
  }),
  refresh_tolerance_bps: Type.Number({
    minimum: 0,
    default: 5,
    description:
      'A live order within this many bps of its desired price is left alone (tolerance.priceBps).',
  }),
  volume_tolerance: Type.Number({
    minimum: 0,
    maximum: 1,
    default: 0.1,
    description:
      'A live order within this fraction of its desired volume is left alone (tolerance.volumeFraction).',
  }),
  max_order_age_s: Type.Number({
    minimum: 0,
    default: 0,
    description:
      'Replace a live order older than this many seconds even if unchanged; 0 defers to the runner setting max_order_age_ms (off by default).',
  }),
  queue_value_bps: Type.Number({
    minimum: 0,
    maximum: 10_000,
    default: 0,
    description:
      'What a place at the front of the queue is worth, in bps of the price: a live order that has moved up its queue is moved only when the drift exceeds the tolerance plus this times the share of the queue behind it, plus the ratecount points the move costs. 0 turns queue-aware refresh off.',
  }),
  ratecount_point_bps: Type.Number({
    minimum: 0,
    maximum: 10_000,
    default: 0.5,
    description:
      'What one matching-engine ratecount point is worth, in bps of the price, when queue-aware refresh weighs a move (an edit of a young order costs up to 6 points).',
  }),
};

export interface QuoteHandlingValues {
  readonly post_only: boolean;
  readonly refresh_tolerance_bps: number;
  readonly volume_tolerance: number;
  readonly max_order_age_s: number;
  readonly queue_value_bps: number;
  readonly ratecount_point_bps: number;
}

/** The DesiredQuote fields the standard options stand for. */
export function quoteHandling(o: QuoteHandlingValues): {
  readonly postOnly: boolean;
  readonly tolerance: { readonly priceBps: number; readonly volumeFraction: number };
  readonly maxAgeMs?: number;
  readonly queue?: { readonly valueBps: number; readonly ratecountPointBps: number };
} {
  return {
    postOnly: o.post_only,
    tolerance: { priceBps: o.refresh_tolerance_bps, volumeFraction: o.volume_tolerance },
    ...(o.max_order_age_s > 0 ? { maxAgeMs: Math.round(o.max_order_age_s * 1000) } : {}),
    ...(o.queue_value_bps > 0
      ? { queue: { valueBps: o.queue_value_bps, ratecountPointBps: o.ratecount_point_bps } }
      : {}),
  };
}

/** Spread these into a strategy's Type.Object to keep its quotes outside the costs of a fill. */
export const EDGE_OPTIONS = {
  fee_floor: Type.Boolean({
    default: true,
    description:
      "Keep each quote's half-spread (its distance from the mid) at least the maker fee plus the measured adverse selection plus min_edge_bps; off, a quote may lose on every round trip.",
  }),
  min_edge_bps: Type.Number({
    minimum: 0,
    maximum: 10_000,
    default: 2,
    description:
      'Edge kept per fill beyond the maker fee and the measured adverse selection, in bps of the mid (fee_floor).',
  }),
};

export interface EdgeValues {
  readonly fee_floor: boolean;
  readonly min_edge_bps: number;
}

/**
 * The least half-spread a quote may have and its parts, in bps of the mid: what a maker fill pays
 * (the key's maker fee), what the mid took back after our recent fills (10 s markouts, never
 * counted as a gain), and the edge the strategy wants on top. Strategies return it with their
 * quotes (QuoteResult.floor) so /status, the console and the metrics show it.
 */
export interface QuoteFloor {
  readonly enabled: boolean;
  readonly makerFeeBps: Decimal;
  readonly adverseBps: Decimal;
  readonly minEdgeBps: Decimal;
  /** The sum of the three; 0 when the floor is off. */
  readonly halfSpreadBps: Decimal;
}

const ZERO = new Decimal(0);

export function quoteFloor(snapshot: MarketSnapshot, o: EdgeValues): QuoteFloor {
  const makerFeeBps = snapshot.fees.makerBps;
  const adverse = snapshot.adverseSelection.bps;
  const adverseBps = adverse.gt(0) ? adverse : ZERO;
  const minEdgeBps = dec(o.min_edge_bps);
  return {
    enabled: o.fee_floor,
    makerFeeBps,
    adverseBps,
    minEdgeBps,
    halfSpreadBps: o.fee_floor ? makerFeeBps.plus(adverseBps).plus(minEdgeBps) : ZERO,
  };
}

/**
 * A quote price kept at least the floor's half-spread away from `mid`: a bid no higher than
 * mid × (1 − floor), an ask no lower than mid × (1 + floor). Farther quotes pass unchanged.
 */
export function applyFloor(side: Side, price: Decimal, mid: Decimal, floor: QuoteFloor): Decimal {
  if (!floor.enabled || floor.halfSpreadBps.isZero()) return price;
  const distance = mid.times(floor.halfSpreadBps).times(BPS);
  if (side === 'buy') {
    const cap = mid.minus(distance);
    return price.gt(cap) ? cap : price;
  }
  const least = mid.plus(distance);
  return price.lt(least) ? least : price;
}

/**
 * Keeps a post-only quote one tick inside the opposite best price as the exchange shows it (our
 * own orders included: a post-only order that would meet any resting order is rejected by the
 * engine, which costs ratecount and leaves the slot empty).
 */
export function clampPostOnly(
  side: Side,
  price: Decimal,
  snapshot: MarketSnapshot,
  postOnly: boolean,
): Decimal {
  if (!postOnly) return price;
  const tick = snapshot.pair.tickSize;
  if (side === 'buy') {
    const cap = snapshot.venueBook.asks[0]?.price.minus(tick);
    return cap !== undefined && price.gt(cap) ? cap : price;
  }
  const floor = snapshot.venueBook.bids[0]?.price.plus(tick);
  return floor !== undefined && price.lt(floor) ? floor : price;
}
