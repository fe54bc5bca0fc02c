import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { Decimal } from '../core/decimal.js';
import type { Side } from '../core/order-types.js';

/** The runner's metric families (DESIGN.md §4: makerd_ prefix, base units, low cardinality). */
export class RunnerMetrics {
  readonly intents: Counter<'pair' | 'action'>;
  readonly coalesced: Counter<'pair'>;
  readonly suppressed: Counter<'pair' | 'reason'>;
  readonly ticks: Counter<'pair' | 'outcome'>;
  readonly computeSeconds: Histogram<'strategy' | 'pair'>;
  readonly strategyErrors: Counter<'strategy' | 'pair'>;
  readonly droppedQuotes: Counter<'pair' | 'reason'>;
  readonly mid: Gauge<'pair'>;
  readonly quotePrice: Gauge<'pair' | 'side'>;
  readonly spreadBps: Gauge<'pair'>;

  constructor(registry: Registry) {
    const registers = [registry];
    this.intents = new Counter({
      name: 'makerd_intents_total',
      help: 'Order intents published to the queue, by action',
      labelNames: ['pair', 'action'],
      registers,
    });
    this.coalesced = new Counter({
      name: 'makerd_intents_coalesced_total',
      help: 'Pending intents replaced by a newer one for the same slot before the executor took them',
      labelNames: ['pair'],
      registers,
    });
    this.suppressed = new Counter({
      name: 'makerd_intents_suppressed_total',
      help: 'Intents not published: mode forbids them (mode) or the same intent is already on its way (unchanged)',
      labelNames: ['pair', 'reason'],
      registers,
    });
    this.ticks = new Counter({
      name: 'makerd_runner_ticks_total',
      help: 'Runner ticks by outcome: quoted, stale (quotes pulled), pulled (by an operator), idle (halted or maintenance), error',
      labelNames: ['pair', 'outcome'],
      registers,
    });
    this.computeSeconds = new Histogram({
      name: 'makerd_strategy_compute_seconds',
      help: "Time spent in a strategy's quote()",
      labelNames: ['strategy', 'pair'],
      buckets: [0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.05],
      registers,
    });
    this.strategyErrors = new Counter({
      name: 'makerd_strategy_errors_total',
      help: 'quote() or fill() threw; the quotes of that pair were pulled',
      labelNames: ['strategy', 'pair'],
      registers,
    });
    this.droppedQuotes = new Counter({
      name: 'makerd_quotes_dropped_total',
      help: 'Desired quotes dropped before diffing (below ordermin or costmin, duplicate slot...)',
      labelNames: ['pair', 'reason'],
      registers,
    });
    // Floats are fine here: these are for charts, never for money decisions (DESIGN.md §3.1).
    this.mid = new Gauge({
      name: 'makerd_mid_price',
      help: "Mid of the best bid and ask in the runner's latest snapshot, in quote units",
      labelNames: ['pair'],
      registers,
    });
    this.quotePrice = new Gauge({
      name: 'makerd_quote_price',
      help: "The strategy's innermost desired quote on each side (buy, sell) after rounding; NaN when it wants none",
      labelNames: ['pair', 'side'],
      registers,
    });
    this.spreadBps = new Gauge({
      name: 'makerd_quoted_spread_bps',
      help: 'Innermost desired ask minus bid, in basis points of mid; NaN without both sides',
      labelNames: ['pair'],
      registers,
    });
  }

  /** Charts the tick's mid and the innermost quote of each side (NaN: none, so no stale line). */
  observeQuotes(
    pair: string,
    mid: Decimal | undefined,
    quotes: readonly { readonly side: Side; readonly price: Decimal }[],
  ): void {
    let bid: Decimal | undefined;
    let ask: Decimal | undefined;
    for (const q of quotes) {
      if (q.side === 'buy' && (bid === undefined || q.price.greaterThan(bid))) bid = q.price;
      if (q.side === 'sell' && (ask === undefined || q.price.lessThan(ask))) ask = q.price;
    }
    this.mid.set({ pair }, mid?.toNumber() ?? Number.NaN);
    this.quotePrice.set({ pair, side: 'buy' }, bid?.toNumber() ?? Number.NaN);
    this.quotePrice.set({ pair, side: 'sell' }, ask?.toNumber() ?? Number.NaN);
    const spread =
      bid !== undefined && ask !== undefined && mid !== undefined && !mid.isZero()
        ? ask.minus(bid).div(mid).times(10_000).toNumber()
        : Number.NaN;
    this.spreadBps.set({ pair }, spread);
  }
}
