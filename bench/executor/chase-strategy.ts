/**
 * The benchmark's strategy: N levels per side around the mid, with an offset of 0, 1 or 2 ticks
 * taken from the snapshot's seq, so consecutive snapshots never want the same price and every
 * quote differs from the live order at every poll. Both contenders run it; a capturing wrapper
 * keeps, per pair, the latest quotes it asked for (rounded as the runner rounds them) for the
 * quote-distance sampler.
 */
import type { PairInfo } from '../../src/core/index.js';
import { roundQuotes } from '../../src/runner/quote-rounding.js';
import type { PairStrategy } from '../../src/runner/runner.js';
import {
  BPS,
  DecimalOption,
  clampPostOnly,
  dec,
  defineStrategy,
  Type,
  type Decimal,
  type DesiredQuote,
  type MarketSnapshot,
} from '../../src/runner/strategy-api.js';
import { instantiateStrategy } from '../../src/runner/strategy-loader.js';
import { hrClock } from './sim-process.js';

const options = Type.Object(
  {
    levels: Type.Integer({ minimum: 1, maximum: 20, default: 2 }),
    /** Level-0 distance from the mid on each side, in bps of the mid. */
    half_spread_bps: Type.Number({ minimum: 0, default: 10 }),
    level_spacing_bps: Type.Number({ minimum: 0, default: 10 }),
    /** The offset cycles through 0..jitter_ticks ticks away from the mid with the snapshot seq. */
    jitter_ticks: Type.Integer({ minimum: 1, default: 2 }),
    order_size: DecimalOption({ positive: true, default: '0.01', description: 'base units' }),
  },
  { additionalProperties: false },
);

export const chase = defineStrategy({
  name: 'bench-chase',
  version: '1.0.0',
  description: 'Moves every quote on every snapshot (executor benchmark).',
  options,
  init: (): Record<string, never> => ({}),
  quote(snapshot, state, ctx) {
    const o = ctx.options;
    const mid = snapshot.mid;
    if (mid === undefined) return { quotes: [], state };
    const tick = ctx.pair.tickSize;
    const jitter = tick.times(snapshot.seq % (o.jitter_ticks + 1));
    const volume = dec(o.order_size);
    const quotes: DesiredQuote[] = [];
    for (let level = 0; level < o.levels; level++) {
      const half = dec(o.half_spread_bps).plus(dec(o.level_spacing_bps).times(level)).times(BPS);
      const bid = mid.times(dec(1).minus(half)).minus(jitter);
      const ask = mid.times(dec(1).plus(half)).plus(jitter);
      quotes.push({
        side: 'buy',
        level,
        price: clampPostOnly('buy', bid, snapshot, true),
        volume,
        postOnly: true,
      });
      quotes.push({
        side: 'sell',
        level,
        price: clampPostOnly('sell', ask, snapshot, true),
        volume,
        postOnly: true,
      });
    }
    return { quotes, state };
  },
});

/** A quote as the exchange would get it: on the tick and lot. */
export interface WantedQuote {
  readonly side: 'buy' | 'sell';
  readonly price: Decimal;
  readonly volume: Decimal;
  readonly postOnly: boolean;
}

/** The latest quotes the strategy asked for on one pair. */
export interface Wanted {
  readonly snapshotSeq: number;
  /** When the snapshot was ready (built; the strategy was called): tick-to-wire starts there. */
  readonly readyAtMs: number;
  /** slot key (`bid:0`) → quote. */
  readonly bySlot: ReadonlyMap<string, WantedQuote>;
}

/** Per pair id, the latest quotes; filled by the capturing plugin. */
export type WantedBook = Map<string, Wanted>;

/** Order sizes worth a few hundred USD on the simulator's default pairs. */
const ORDER_SIZE: Readonly<Record<string, string>> = { XBTUSD: '0.01', ETHUSD: '0.2' };

const silentStrategyLog = { info: (): void => undefined, warn: (): void => undefined };

/**
 * The strategy for one pair, instantiated as the runner role does, wrapped so that each quote()
 * also records its output in `wanted`, and how long its snapshot took to build (from the time it
 * is stamped with to the call) in `builds`.
 */
export function chaserFor(
  pair: PairInfo,
  levels: number,
  wanted: WantedBook,
  builds: number[] = [],
): PairStrategy {
  const made = instantiateStrategy(
    chase,
    { levels, order_size: ORDER_SIZE[pair.altname] ?? '0.01' },
    { pair, log: silentStrategyLog, field: `bench.${pair.altname}` },
  );
  const inner = made.plugin;
  const plugin: typeof inner = {
    ...inner,
    quote(snapshot, state, ctx) {
      const readyAtMs = hrClock.now();
      builds.push(readyAtMs - snapshot.takenAtMs);
      const result = inner.quote(snapshot, state, ctx);
      record(wanted, pair, snapshot, readyAtMs, result.quotes);
      return result;
    },
  };
  return {
    pair,
    plugin,
    context: made.context,
    state: made.state,
  };
}

/**
 * Notes the quotes as they came; they are rounded only when the sampler reads them (every 250 ms),
 * so the rounding the measurement needs is not part of the tick it measures.
 */
function record(
  wanted: WantedBook,
  pair: PairInfo,
  snapshot: MarketSnapshot,
  readyAtMs: number,
  quotes: readonly DesiredQuote[],
): void {
  if (quotes.length === 0) return;
  let bySlot: Map<string, WantedQuote> | undefined;
  wanted.set(pair.id, {
    snapshotSeq: snapshot.seq,
    readyAtMs,
    get bySlot() {
      if (bySlot === undefined) {
        bySlot = new Map();
        for (const q of roundQuotes(quotes, pair).accepted) {
          bySlot.set(q.slot, {
            side: q.side,
            price: q.price,
            volume: q.volume,
            postOnly: q.postOnly,
          });
        }
      }
      return bySlot;
    },
  });
}
