import { Gauge, type Registry } from 'prom-client';
import type { PnlSummaryJson } from '../pnl/index.js';

/**
 * The PnL split, markouts, time at quote, distance from target and ratecount use as gauges, set
 * from the same summaries the runner reports to /status, so a scrape and /status agree.
 */
export class PnlMetrics {
  readonly #pnl: Gauge<'pair' | 'component'>;
  readonly #markout: Gauge<'pair' | 'horizon'>;
  readonly #atQuote: Gauge<'pair' | 'side'>;
  readonly #distance: Gauge<'pair' | 'side'>;
  readonly #ratecount: Gauge<'pair' | 'stat'>;

  constructor(registry: Registry) {
    const registers = [registry];
    this.#pnl = new Gauge({
      name: 'makerd_pnl_quote',
      help: 'Mark-to-market PnL since the runner started, in quote units, by component: total = spread + inventory - fees',
      labelNames: ['pair', 'component'],
      registers,
    });
    this.#markout = new Gauge({
      name: 'makerd_markout_bps',
      help: 'Volume-weighted mean markout of our fills at each horizon, in bps of the fill price (positive: the mid moved our way)',
      labelNames: ['pair', 'horizon'],
      registers,
    });
    this.#atQuote = new Gauge({
      name: 'makerd_time_at_quote_ratio',
      help: 'Share of time since the runner started with a resting quote on the side (bid, ask, both)',
      labelNames: ['pair', 'side'],
      registers,
    });
    this.#distance = new Gauge({
      name: 'makerd_quote_distance_bps',
      help: "Time-weighted distance of our resting quote from the strategy's target, in bps of the target",
      labelNames: ['pair', 'side'],
      registers,
    });
    this.#ratecount = new Gauge({
      name: 'makerd_ratecount_use_ratio',
      help: 'Ratecount level over its max since the runner started: time-weighted mean and maximum',
      labelNames: ['pair', 'stat'],
      registers,
    });
  }

  observe(pair: string, s: PnlSummaryJson): void {
    for (const component of ['total', 'spread', 'inventory', 'fees'] as const) {
      this.#pnl.set({ pair, component }, Number(s[component]));
    }
    for (const m of s.markouts) {
      this.#markout.set({ pair, horizon: `${m.horizonMs / 1000}s` }, m.meanBps ?? NaN);
    }
    for (const side of ['bid', 'ask', 'both'] as const) {
      this.#atQuote.set({ pair, side }, s.timeAtQuote[side]);
    }
    for (const side of ['bid', 'ask'] as const) {
      this.#distance.set({ pair, side }, s.quoteDistanceBps[side] ?? NaN);
    }
    this.#ratecount.set({ pair, stat: 'mean' }, s.ratecountUse.mean ?? NaN);
    this.#ratecount.set({ pair, stat: 'max' }, s.ratecountUse.max ?? NaN);
  }
}
