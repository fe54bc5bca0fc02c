/**
 * `spread`: symmetric multi-level quotes around the mid (or the microprice), with an optional
 * linear inventory skew and a hard inventory cut-off.
 *
 * With ref the reference price and bps = 1/10 000, for level n (0 nearest the reference):
 *
 *   half_n   = min_spread_bps / 2 + n * level_spacing_bps          (bps of ref, each side)
 *   shift    = inventory_skew_bps * (baseShare - inventory_target) / 0.5
 *   bid_n    = ref * (1 - (half_n + shift) * bps)
 *   ask_n    = ref * (1 + (half_n - shift) * bps)
 *   volume_n = order_size * size_multiplier^n                       (base units)
 *
 * A positive shift (too much base) moves both quotes down: the ask gets more aggressive, the bid
 * less. The shift is linear in the deviation and not clamped; it equals inventory_skew_bps when the
 * deviation is ±0.5. With fee_floor (the default) every quote stays at least the maker fee plus the
 * measured adverse selection plus min_edge_bps from the mid (quoteFloor). With post_only, bids are capped at bestAsk - tick and asks floored at
 * bestBid + tick, so a quote never crosses the book and gets rejected. Prices and volumes are ideal;
 * the runner rounds them to tick and lot and drops those under ordermin/costmin.
 */
import {
  applyFloor,
  BPS,
  clampPostOnly,
  DecimalOption,
  EDGE_OPTIONS,
  QUOTE_HANDLING_OPTIONS,
  quoteFloor,
  quoteHandling,
  dec,
  defineStrategy,
  Type,
  type DesiredQuote,
} from '../src/runner/strategy-api.js';

const options = Type.Object(
  {
    reference: Type.Union([Type.Literal('mid'), Type.Literal('microprice')], {
      default: 'mid',
      description:
        'Price the quotes are centred on: the mid, or the microprice (falls back to the mid when the snapshot has none).',
    }),
    min_spread_bps: Type.Number({
      minimum: 0,
      maximum: 10_000,
      default: 20,
      description:
        'Full distance between the level-0 bid and ask, in basis points of the reference price.',
    }),
    level_spacing_bps: Type.Number({
      minimum: 0,
      maximum: 10_000,
      default: 10,
      description: 'Extra distance per level on each side, in basis points of the reference price.',
    }),
    levels: Type.Integer({
      minimum: 1,
      maximum: 20,
      default: 1,
      description: 'Quotes per side; level 0 is nearest the reference price.',
    }),
    order_size: DecimalOption({
      positive: true,
      default: '0.01',
      description: 'Level-0 order volume in base units, as a decimal string.',
    }),
    size_multiplier: Type.Number({
      exclusiveMinimum: 0,
      maximum: 10,
      default: 1,
      description: 'Level n volume is order_size * size_multiplier^n.',
    }),
    inventory_target: Type.Number({
      minimum: 0,
      maximum: 1,
      default: 0.5,
      description: 'Target share of the inventory value held in the base asset.',
    }),
    inventory_skew_bps: Type.Number({
      minimum: 0,
      maximum: 10_000,
      default: 0,
      description:
        'Shift of both quotes, in bps of the reference, when baseShare - inventory_target = ±0.5 (linear in between); too much base shifts prices down.',
    }),
    max_inventory_share: Type.Number({
      minimum: 0,
      maximum: 1,
      default: 1,
      description:
        'No bids while baseShare is above this; no asks while baseShare is below 1 - this. 1 disables the cut.',
    }),
    ...EDGE_OPTIONS,
    ...QUOTE_HANDLING_OPTIONS,
  },
  { additionalProperties: false },
);

/** Spread keeps no memory between snapshots. */
type SpreadState = Record<string, never>;

export default defineStrategy({
  name: 'spread',
  version: '1.0.0',
  description: 'Symmetric multi-level quotes around the mid or microprice, with inventory skew.',
  options,
  init: (): SpreadState => ({}),
  quote(snapshot, state, ctx) {
    const o = ctx.options;
    const mid = snapshot.mid;
    if (mid === undefined) return { quotes: [], state };
    const ref = o.reference === 'microprice' ? (snapshot.microprice ?? mid) : mid;

    const share = snapshot.inventory.baseShare;
    const deviation = share === undefined ? dec(0) : share.minus(dec(o.inventory_target));
    const shiftBps = dec(o.inventory_skew_bps).times(deviation).div(dec('0.5'));
    const quoteBids = share === undefined || share.lte(dec(o.max_inventory_share));
    const quoteAsks = share === undefined || share.gte(dec(1).minus(dec(o.max_inventory_share)));

    const orderSize = dec(o.order_size);
    const multiplier = dec(o.size_multiplier);
    const common = quoteHandling(o);
    const floor = quoteFloor(snapshot, o);

    const bids: DesiredQuote[] = [];
    const asks: DesiredQuote[] = [];
    for (let level = 0; level < o.levels; level++) {
      const halfBps = dec(o.min_spread_bps).div(2).plus(dec(o.level_spacing_bps).times(level));
      const volume = orderSize.times(multiplier.pow(level));
      if (quoteBids) {
        const raw = ref.times(dec(1).minus(halfBps.plus(shiftBps).times(BPS)));
        const price = clampPostOnly(
          'buy',
          applyFloor('buy', raw, mid, floor),
          snapshot,
          o.post_only,
        );
        if (price.gt(0)) bids.push({ side: 'buy', level, price, volume, ...common });
      }
      if (quoteAsks) {
        const raw = ref.times(dec(1).plus(halfBps.minus(shiftBps).times(BPS)));
        const price = clampPostOnly(
          'sell',
          applyFloor('sell', raw, mid, floor),
          snapshot,
          o.post_only,
        );
        if (price.gt(0)) asks.push({ side: 'sell', level, price, volume, ...common });
      }
    }
    return { quotes: [...bids, ...asks], state, floor };
  },
});
