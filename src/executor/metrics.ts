import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { PairInfo } from '../core/index.js';

const LATENCY_BUCKETS = [
  0.0001, 0.00025, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 1, 5,
];

/**
 * The `pair` label of every executor metric: the pair's altname (`XBTUSD`), as the runner's, the
 * supervisor's and the queue-depth families label it, so that dashboards can join them. Redis
 * keys, exchange calls and logs keep the exchange pair id.
 */
export function pairLabel(pair: Pick<PairInfo, 'altname'>): string {
  return pair.altname;
}

/**
 * The `error` label of a refused call: the exchange error's family, its first two colon-separated
 * parts (`EService:Throttled: 1795321540` → `EService:Throttled`), so that details such as a
 * throttle's timestamp do not open a series each (DESIGN.md §4: low cardinality). A reason
 * without a colon (an error code) is its own label. Logs and records keep the full reason.
 */
export function errorLabel(reason: string): string {
  return reason
    .split(':', 2)
    .map((part) => part.trim())
    .join(':');
}

/** The executor's metric families (DESIGN.md §4: makerd_ prefix, base units, low cardinality). */
export class ExecutorMetrics {
  readonly ratecountLevel: Gauge<'pair'>;
  readonly ratecountMax: Gauge<'pair'>;
  readonly ratecountPoints: Counter<'pair' | 'action'>;
  readonly actions: Counter<'pair' | 'action' | 'outcome'>;
  readonly rejections: Counter<'pair' | 'error'>;
  readonly intents: Counter<'pair' | 'outcome'>;
  readonly intentWait: Histogram<'pair'>;
  readonly tickToWire: Histogram<'pair'>;
  readonly ordersByState: Gauge<'pair' | 'state'>;
  readonly inventoryBase: Gauge<'pair'>;
  readonly inventoryQuote: Gauge<'pair'>;
  readonly realizedPnl: Gauge<'pair'>;
  readonly fills: Counter<'pair' | 'side'>;
  readonly unknowns: Counter<'pair' | 'resolution'>;
  readonly reconciles: Counter<'pair' | 'outcome'>;
  readonly leases: Gauge<'pair'>;
  readonly orderEntryFailing: Gauge<'pair'>;
  readonly roundTripP99: Gauge<'pair'>;
  readonly deadline: Gauge<'pair'>;

  constructor(registry: Registry) {
    const registers = [registry];
    this.ratecountLevel = new Gauge({
      name: 'makerd_ratecount_level',
      help: 'Matching-engine ratecount of the (key, pair) by our model, after the last action',
      labelNames: ['pair'],
      registers,
    });
    this.ratecountMax = new Gauge({
      name: 'makerd_ratecount_max',
      help: "The tier's max ratecount per pair",
      labelNames: ['pair'],
      registers,
    });
    this.ratecountPoints = new Counter({
      name: 'makerd_ratecount_points_total',
      help: 'Ratecount penalty points spent, by order-entry action; cancelled-by-others: our orders the exchange cancelled without a call of ours (CancelAll, the dead-man timer)',
      labelNames: ['pair', 'action'],
      registers,
    });
    this.actions = new Counter({
      name: 'makerd_order_actions_total',
      help: 'Order-entry calls by action (AddOrder, EditOrder...) and outcome (ok, partial, rejected, unknown)',
      labelNames: ['pair', 'action', 'outcome'],
      registers,
    });
    this.rejections = new Counter({
      name: 'makerd_order_rejections_total',
      help: 'Order-entry refusals by the exchange error family (Ecat:Message, details left out)',
      labelNames: ['pair', 'error'],
      registers,
    });
    this.intents = new Counter({
      name: 'makerd_executor_intents_total',
      help: 'Intents taken by the executor by outcome: sent, dropped reasons (gone, busy, mode, unchanged, expired, rejected)',
      labelNames: ['pair', 'outcome'],
      registers,
    });
    this.intentWait = new Histogram({
      name: 'makerd_intent_wait_seconds',
      help: 'From intent creation to its order-entry call handed to the client (queue time plus any wait for budget)',
      labelNames: ['pair'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.tickToWire = new Histogram({
      name: 'makerd_tick_to_wire_seconds',
      help: 'From snapshot ready (or, if later, budget available or the answer that found the order gone) to the order-entry call handed to the client',
      labelNames: ['pair'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.ordersByState = new Gauge({
      name: 'makerd_orders',
      help: "The executor's tracked live orders by state",
      labelNames: ['pair', 'state'],
      registers,
    });
    this.inventoryBase = new Gauge({
      name: 'makerd_inventory_base',
      help: 'Base bought minus base sold since the tracker started (fills of our orders)',
      labelNames: ['pair'],
      registers,
    });
    this.inventoryQuote = new Gauge({
      name: 'makerd_inventory_quote',
      help: 'Quote received minus quote paid, fees included, since the tracker started',
      labelNames: ['pair'],
      registers,
    });
    this.realizedPnl = new Gauge({
      name: 'makerd_realized_pnl_quote',
      help: 'Realized PnL (average cost, net of fees) in quote units',
      labelNames: ['pair'],
      registers,
    });
    this.fills = new Counter({
      name: 'makerd_fills_total',
      help: 'Executions of our orders seen by the executor',
      labelNames: ['pair', 'side'],
      registers,
    });
    this.unknowns = new Counter({
      name: 'makerd_unknown_outcomes_total',
      help: 'Order-entry calls without an answer, by how the query resolved them',
      labelNames: ['pair', 'resolution'],
      registers,
    });
    this.reconciles = new Counter({
      name: 'makerd_reconciles_total',
      help: 'Reconciliations against OpenOrders/ClosedOrders by outcome',
      labelNames: ['pair', 'outcome'],
      registers,
    });
    this.leases = new Gauge({
      name: 'makerd_executor_lease',
      help: '1 while this process holds the pair (works its order entry), 0 as a standby',
      labelNames: ['pair'],
      registers,
    });
    this.orderEntryFailing = new Gauge({
      name: 'makerd_order_entry_failing',
      help: '1 while no order reaches the engine in time: a call with the longest deadline allowed (executor.deadline_max_ms) still arrived late',
      labelNames: ['pair'],
      registers,
    });
    this.roundTripP99 = new Gauge({
      name: 'makerd_order_entry_round_trip_p99_seconds',
      help: 'The p99 order-entry round trip over executor.round_trip_window_ms (an unanswered call counts its wait); 0 without any',
      labelNames: ['pair'],
      registers,
    });
    this.deadline = new Gauge({
      name: 'makerd_order_entry_deadline_seconds',
      help: 'The deadline an order-entry call sent now carries, from sending: the p99 round trip, the spec minimum and a margin, within the configured bounds',
      labelNames: ['pair'],
      registers,
    });
  }
}
