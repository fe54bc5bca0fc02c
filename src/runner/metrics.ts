import { Counter, Histogram, type Registry } from 'prom-client';

/** The runner's metric families (DESIGN.md §4: makerd_ prefix, base units, low cardinality). */
export class RunnerMetrics {
  readonly intents: Counter<'pair' | 'action'>;
  readonly coalesced: Counter<'pair'>;
  readonly suppressed: Counter<'pair' | 'reason'>;
  readonly ticks: Counter<'pair' | 'outcome'>;
  readonly computeSeconds: Histogram<'strategy' | 'pair'>;
  readonly strategyErrors: Counter<'strategy' | 'pair'>;
  readonly droppedQuotes: Counter<'pair' | 'reason'>;

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
      help: 'Runner ticks by outcome: quoted, stale (quotes pulled), idle (halted or maintenance), error',
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
  }
}
