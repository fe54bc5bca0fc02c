import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { BudgetPlan, PollScope, PollSource } from './budget-planner.js';
import type { PollOutcome } from './poll-loop.js';

/** The exchange endpoint each poll calls: the `endpoint` label. */
export const ENDPOINT_OF: Readonly<Record<PollSource, string>> = {
  depth: 'Depth',
  groupedBook: 'GroupedBook',
  level3: 'Level3',
  trades: 'Trades',
  openOrders: 'OpenOrders',
  balance: 'BalanceEx',
  systemStatus: 'SystemStatus',
  tradeVolume: 'TradeVolume',
};

/** The `pair` label of a key-wide poll (OpenOrders, BalanceEx, SystemStatus, QueryOrders). */
export const ALL_PAIRS = 'all';

/**
 * A poll's pair id (undefined for a key-wide poll) to its `pair` label: the pair's altname
 * (`XBTUSD`), as every metric family labels pairs, or ALL_PAIRS for a key-wide poll.
 */
export type PairLabeler = (pairId: string | undefined) => string;

/** What the feed reports at scrape time; `pair` is the label (altname or ALL_PAIRS). */
export interface MarketMetricsSource {
  /** Age of each poll's data; Infinity before its first answer. */
  dataAges(): readonly { endpoint: string; pair: string; ageSeconds: number }[];
  staleByPair(): readonly { pair: string; stale: boolean }[];
  budgetUsedPerSec(scope: PollScope): number;
  /** Per pair and side, the queue place of our order nearest the touch. */
  queueFronts(): readonly QueueFront[];
}

/** Where our order nearest the touch on one side of a pair stands in its queue. */
export interface QueueFront {
  readonly pair: string;
  readonly side: 'buy' | 'sell';
  /** The market's volume ahead of it, in the base asset. */
  readonly ahead: number;
  /** ahead / (ahead + behind): 0 at the front, 1 at the back; 0 when alone at its price. */
  readonly aheadShare: number;
}

const SCOPES: readonly PollScope[] = ['private', 'public'];

/**
 * The market feed's metric families (DESIGN.md §4: makerd_ prefix, base units, low-cardinality
 * labels). Figures that describe state rather than events are read from the feed at scrape time.
 */
export class MarketMetrics {
  readonly pollDuration: Histogram<'endpoint' | 'pair'>;
  readonly polls: Counter<'endpoint' | 'pair' | 'outcome'>;
  readonly dataAge: Gauge<'endpoint' | 'pair'>;
  readonly snapshotStale: Gauge<'pair'>;
  readonly pollInterval: Gauge<'endpoint' | 'pair'>;
  readonly budgetPlanned: Gauge<'scope'>;
  readonly budgetUsed: Gauge<'scope'>;
  readonly budgetAvailable: Gauge<'scope'>;
  readonly tradesMissedTotal: Counter<'pair'>;
  readonly tradesCatchUpTotal: Counter<'pair'>;
  readonly queueAhead: Gauge<'pair' | 'side'>;
  readonly queueAheadRatio: Gauge<'pair' | 'side'>;
  #source: MarketMetricsSource | undefined;

  constructor(registry: Registry) {
    const registers = [registry];
    // Closures, not methods: prom-client calls collect() with the metric as `this`.
    const source = (): MarketMetricsSource | undefined => this.#source;
    this.pollDuration = new Histogram({
      name: 'makerd_poll_duration_seconds',
      help: 'Time of one poll, REST budget wait included',
      labelNames: ['endpoint', 'pair'],
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    });
    this.polls = new Counter({
      name: 'makerd_polls_total',
      help: 'Polls by outcome: ok, error, throttled (EService:Throttled or EAPI:Rate limit exceeded), skipped (no REST budget in time)',
      labelNames: ['endpoint', 'pair', 'outcome'],
      registers,
    });
    this.dataAge = new Gauge({
      name: 'makerd_data_age_seconds',
      help: 'Age of the newest good answer of each poll (+Inf before the first)',
      labelNames: ['endpoint', 'pair'],
      registers,
      collect() {
        this.reset();
        for (const a of source()?.dataAges() ?? []) {
          this.set({ endpoint: a.endpoint, pair: a.pair }, a.ageSeconds);
        }
      },
    });
    this.snapshotStale = new Gauge({
      name: 'makerd_snapshot_stale',
      help: '1 when a source the runner needs for this pair is stale (quotes are pulled), else 0',
      labelNames: ['pair'],
      registers,
      collect() {
        this.reset();
        for (const s of source()?.staleByPair() ?? []) this.set({ pair: s.pair }, s.stale ? 1 : 0);
      },
    });
    this.pollInterval = new Gauge({
      name: 'makerd_poll_interval_seconds',
      help: 'Planned poll interval, after stretching to fit the REST budget',
      labelNames: ['endpoint', 'pair'],
      registers,
    });
    this.budgetPlanned = new Gauge({
      name: 'makerd_rest_budget_planned_per_second',
      help: 'REST points/s (private) or calls/s (public) the poll plan spends',
      labelNames: ['scope'],
      registers,
    });
    this.budgetUsed = new Gauge({
      name: 'makerd_rest_budget_used_per_second',
      help: "REST points/s (private) or calls/s (public) the market feed's own calls spent over the last 60 s; heartbeats and other processes not included",
      labelNames: ['scope'],
      registers,
      collect() {
        const s = source();
        if (s === undefined) return;
        for (const scope of SCOPES) this.set({ scope }, s.budgetUsedPerSec(scope));
      },
    });
    this.budgetAvailable = new Gauge({
      name: 'makerd_rest_budget_available_per_second',
      help: 'REST points/s (private: tier decay x utilization, less heartbeats and reserve) or calls/s (public) the polls may plan',
      labelNames: ['scope'],
      registers,
    });
    this.tradesMissedTotal = new Counter({
      name: 'makerd_trades_missed_total',
      help: 'Public trades the Trades poll skipped because the public budget could not fetch them in time (counted from the trade ids on either side of the gap)',
      labelNames: ['pair'],
      registers,
    });
    this.tradesCatchUpTotal = new Counter({
      name: 'makerd_trades_catchup_calls_total',
      help: 'Extra Trades calls made after a capped answer, paid from the public budget the plan leaves unused',
      labelNames: ['pair'],
      registers,
    });
    this.queueAhead = new Gauge({
      name: 'makerd_queue_ahead',
      help: "Base volume ahead of our order nearest the touch in its price's queue (Level3, or estimated from Depth and Trades by market.queue.rule); absent without an order",
      labelNames: ['pair', 'side'],
      registers,
      collect() {
        this.reset();
        for (const q of source()?.queueFronts() ?? []) {
          this.set({ pair: q.pair, side: q.side }, q.ahead);
        }
      },
    });
    this.queueAheadRatio = new Gauge({
      name: 'makerd_queue_ahead_ratio',
      help: 'Share of the other volume at the price of our order nearest the touch that is ahead of it: 0 at the front, 1 at the back',
      labelNames: ['pair', 'side'],
      registers,
      collect() {
        this.reset();
        for (const q of source()?.queueFronts() ?? []) {
          this.set({ pair: q.pair, side: q.side }, q.aheadShare);
        }
      },
    });
  }

  /** Called by the feed it serves; the last one attached is the one reported. */
  attach(source: MarketMetricsSource): void {
    this.#source = source;
  }

  /** The plan's intervals, each poll's pair labelled by `pairLabel` (see PairLabeler). */
  setPlan(plan: BudgetPlan, pairLabel: PairLabeler): void {
    for (const p of plan.polls) {
      this.pollInterval.set(
        { endpoint: ENDPOINT_OF[p.source], pair: pairLabel(p.pair) },
        p.intervalMs / 1000,
      );
      // A pair's series exists from the start, so a rate over it is 0 rather than absent.
      if (p.source === 'trades') {
        this.tradesMissedTotal.inc({ pair: pairLabel(p.pair) }, 0);
        this.tradesCatchUpTotal.inc({ pair: pairLabel(p.pair) }, 0);
      }
    }
    this.budgetPlanned.set({ scope: 'private' }, plan.private.plannedPerSec);
    this.budgetPlanned.set({ scope: 'public' }, plan.public.plannedPerSec);
    this.budgetAvailable.set({ scope: 'private' }, plan.private.availablePerSec);
    this.budgetAvailable.set({ scope: 'public' }, plan.public.availablePerSec);
  }

  /** `pair` is the label: the altname, or ALL_PAIRS. */
  observePoll(endpoint: string, pair: string, outcome: PollOutcome, seconds: number): void {
    this.polls.inc({ endpoint, pair, outcome });
    this.pollDuration.observe({ endpoint, pair }, seconds);
  }

  /** `pair` is the label (altname). */
  tradesMissed(pair: string, trades: number): void {
    this.tradesMissedTotal.inc({ pair }, trades);
  }

  tradesCatchUp(pair: string): void {
    this.tradesCatchUpTotal.inc({ pair });
  }
}
