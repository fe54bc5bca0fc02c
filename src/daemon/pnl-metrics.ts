import { Gauge, type Registry } from 'prom-client';
import type { PnlSummaryJson } from '../pnl/index.js';
import type { QuotingJson } from './quoting.js';

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
  readonly #fees: Gauge<'pair' | 'liquidity'>;
  readonly #floor: Gauge<'pair' | 'part'>;
  readonly #model: Gauge<'pair' | 'strategy' | 'name'>;

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
    this.#fees = new Gauge({
      name: 'makerd_fee_bps',
      help: "The key's fee in the pair, in bps of notional (TradeVolume, or the ladder before it answers)",
      labelNames: ['pair', 'liquidity'],
      registers,
    });
    this.#floor = new Gauge({
      name: 'makerd_quote_floor_bps',
      help: 'The least half-spread quotes are held to, in bps of the mid, and its parts: maker_fee + adverse + min_edge = total (0 when the floor is off)',
      labelNames: ['pair', 'part'],
      registers,
    });
    this.#model = new Gauge({
      name: 'makerd_strategy_model',
      help: "The strategy's model figures by name (a fitted parameter, a sample size), as it reported them with its last quotes",
      labelNames: ['pair', 'strategy', 'name'],
      registers,
    });
  }

  observeQuoting(pair: string, strategy: string, q: QuotingJson): void {
    this.#fees.set({ pair, liquidity: 'maker' }, Number(q.fees.makerBps));
    this.#fees.set({ pair, liquidity: 'taker' }, Number(q.fees.takerBps));
    if (q.floor !== undefined) {
      this.#floor.set({ pair, part: 'maker_fee' }, Number(q.floor.makerFeeBps));
      this.#floor.set({ pair, part: 'adverse' }, Number(q.floor.adverseBps));
      this.#floor.set({ pair, part: 'min_edge' }, Number(q.floor.minEdgeBps));
      this.#floor.set({ pair, part: 'total' }, Number(q.floor.halfSpreadBps));
    }
    for (const [name, value] of Object.entries(q.model ?? {})) {
      if (typeof value === 'number') this.#model.set({ pair, strategy, name }, value);
    }
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
