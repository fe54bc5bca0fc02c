/**
 * Helpers most quoting strategies need, part of the public strategy API (re-exported by
 * strategy-api.ts): the option fields every quote carries to the runner, decimal-string options,
 * basis points and the post-only clamp. Written once here so plugins stay small and agree.
 */
import { Type } from '@sinclair/typebox';
import { dec, type Decimal } from '../core/decimal.js';
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
};

export interface QuoteHandlingValues {
  readonly post_only: boolean;
  readonly refresh_tolerance_bps: number;
  readonly volume_tolerance: number;
  readonly max_order_age_s: number;
}

/** The DesiredQuote fields the standard options stand for. */
export function quoteHandling(o: QuoteHandlingValues): {
  readonly postOnly: boolean;
  readonly tolerance: { readonly priceBps: number; readonly volumeFraction: number };
  readonly maxAgeMs?: number;
} {
  return {
    postOnly: o.post_only,
    tolerance: { priceBps: o.refresh_tolerance_bps, volumeFraction: o.volume_tolerance },
    ...(o.max_order_age_s > 0 ? { maxAgeMs: Math.round(o.max_order_age_s * 1000) } : {}),
  };
}

/**
 * Keeps a post-only quote one tick inside the opposite best price: a post-only order that would
 * cross is rejected by the engine, which costs ratecount and leaves the slot empty.
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
    const cap = snapshot.bestAsk?.minus(tick);
    return cap !== undefined && price.gt(cap) ? cap : price;
  }
  const floor = snapshot.bestBid?.plus(tick);
  return floor !== undefined && price.lt(floor) ? floor : price;
}
