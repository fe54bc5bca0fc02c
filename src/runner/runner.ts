import { systemClock, type Clock } from '../core/clock.js';
import { silentLog, type Log } from '../core/log.js';
import type { DepthSeen, OrderIntent } from '../core/intent.js';
import { toWire, type Decimal } from '../core/decimal.js';
import type { MarketSnapshot, OwnOrder, PairInfo, PriceLevel } from '../core/market.js';
import type { Side } from '../core/order-types.js';
import type { RunnerConfig } from './config.js';
import type { RunnerMetrics } from './metrics.js';
import { applyMode, pullAll } from './mode-filter.js';
import {
  type FillSource,
  type IntentSink,
  type SnapshotSource,
  type UnpublishedIntent,
} from './ports.js';
import { diffQuotes, type IntentDraft } from './quote-diff.js';
import { roundQuotes, type RoundedQuote } from './quote-rounding.js';
import type { FillEvent, QuoteResult, StrategyContext, StrategyPlugin } from './strategy-api.js';

/** One pair's strategy, loaded and initialised (see strategy-loader.ts). */
export interface PairStrategy {
  readonly pair: PairInfo;
  readonly plugin: StrategyPlugin;
  readonly context: StrategyContext<unknown>;
  state: unknown;
}

export type TickOutcome = 'quoted' | 'stale' | 'pulled' | 'idle' | 'error' | 'refused';

/**
 * A last check of a strategy's quotes before they become intents (the risk limits' order checks:
 * size, notional, count, crossing, distance from mid). A reason refuses them all.
 */
export type QuoteGate = (
  pair: PairInfo,
  quotes: readonly { readonly side: Side; readonly price: Decimal; readonly volume: Decimal }[],
  snapshot: MarketSnapshot,
) => string | undefined;

export interface TickReport {
  readonly pair: string;
  /** The pair's strategy plugin (its name). */
  readonly strategy: string;
  readonly outcome: TickOutcome;
  readonly snapshotSeq: number;
  readonly intents: readonly OrderIntent[];
  readonly coalesced: number;
  /** Drafts the trading mode forbade. */
  readonly suppressedByMode: number;
  /** Drafts identical to one published less than republish_after_ms ago. */
  readonly unchanged: number;
  /** The snapshot the tick worked from (its mid and our orders, for PnL attribution). */
  readonly snapshot: MarketSnapshot;
  /** The strategy's quotes after rounding; empty when it was not asked or none passed. */
  readonly targets: readonly RoundedQuote[];
  /** The half-spread floor and model figures the strategy returned with its quotes, if any. */
  readonly floor?: QuoteResult<unknown>['floor'];
  readonly model?: QuoteResult<unknown>['model'];
}

export interface RunnerOptions {
  readonly feed: SnapshotSource;
  /** Our fills, handed to each pair's strategy (fill hook) and followed by a tick. */
  readonly fills?: FillSource;
  readonly sink: IntentSink;
  readonly strategies: readonly PairStrategy[];
  readonly config: RunnerConfig;
  /** The bot instance whose userrefs mark our orders (1..127). */
  readonly instance: number;
  readonly clock?: Clock;
  readonly metrics?: RunnerMetrics;
  readonly log?: Log;
  readonly quoteGate?: QuoteGate;
  /** Told the reason when the gate refuses a strategy's quotes (the role halts on it). */
  readonly onRefused?: (pair: PairInfo, reason: string) => void;
  /**
   * For a pair an operator pulled, our orders the executor holds (the snapshot's OpenOrders may be
   * older than the newest of them); undefined for a pair not pulled. A pulled pair gets no
   * quotes, and every order of ours in it is cancelled.
   */
  readonly pulled?: (pair: PairInfo) => readonly OwnOrder[] | undefined;
  /**
   * Ratecount points an EditOrder of an order this old costs (the exchange's penalty table): with
   * it, quotes that value their queue place are refreshed queue-aware (queue-refresh.ts).
   */
  readonly editPoints?: (ageMs: number) => number;
}

/** Totals since start for one pair, for the status line and `makerd status`. */
export interface PairRunStats {
  readonly pair: string;
  readonly strategy: string;
  ticks: number;
  intents: number;
  coalesced: number;
  lastOutcome: TickOutcome | undefined;
  lastTickAtMs: number | undefined;
}

interface PairLoop {
  readonly strategy: PairStrategy;
  readonly stats: PairRunStats;
  readonly log: Log;
  running: Promise<void> | undefined;
  dirty: boolean;
  lastTickAtMs: number;
  /** What was last published per slot, so an unchanged intent is not repeated every tick. */
  readonly sent: Map<string, { readonly fingerprint: string; readonly atMs: number }>;
}

/**
 * Turns snapshots into intents: on each market update it asks the pair's strategy for quotes,
 * rounds them, diffs them against our live orders, applies the trading mode and publishes what
 * changed. It never sends an order itself (DESIGN.md §1: the executor is the only writer).
 */
export class Runner {
  readonly #opts: RunnerOptions;
  readonly #clock: Clock;
  readonly #loops = new Map<string, PairLoop>();
  readonly #reports: ((report: TickReport) => void)[] = [];
  readonly #abort = new AbortController();
  #unsubscribe: (() => void)[] = [];

  constructor(options: RunnerOptions) {
    this.#opts = options;
    this.#clock = options.clock ?? systemClock;
    const log = options.log ?? silentLog;
    for (const strategy of options.strategies) {
      this.#loops.set(strategy.pair.id, {
        strategy,
        log: log.child({
          component: 'runner',
          pair: strategy.pair.altname,
          strategy: strategy.plugin.name,
        }),
        stats: {
          pair: strategy.pair.altname,
          strategy: strategy.plugin.name,
          ticks: 0,
          intents: 0,
          coalesced: 0,
          lastOutcome: undefined,
          lastTickAtMs: undefined,
        },
        running: undefined,
        dirty: false,
        lastTickAtMs: -Infinity,
        sent: new Map(),
      });
    }
  }

  start(): void {
    const { feed, fills } = this.#opts;
    this.#unsubscribe = [feed.onUpdate((pairId) => this.#schedule(pairId))];
    if (fills !== undefined) this.#unsubscribe.push(fills.onFill((fill) => this.#fill(fill)));
    if (feed.onModeChange) {
      // cancel_only or maintenance must reach every pair now, not at its next book update.
      this.#unsubscribe.push(
        feed.onModeChange(() => {
          for (const pairId of this.#loops.keys()) this.#schedule(pairId);
        }),
      );
    }
  }

  /** Stops reacting to updates and waits for ticks in progress; strategies get their stop hook. */
  async stop(): Promise<void> {
    // Once: a replay stops quoting before its last sync, then stops the role (hooks run once).
    if (this.#abort.signal.aborted) return;
    for (const off of this.#unsubscribe) off();
    this.#unsubscribe = [];
    this.#abort.abort();
    await Promise.allSettled(
      [...this.#loops.values()].flatMap((l) => (l.running ? [l.running] : [])),
    );
    for (const { strategy, log } of this.#loops.values()) {
      try {
        strategy.plugin.stop?.(strategy.context);
      } catch (err) {
        log.error({ err }, 'strategy stop hook threw');
      }
    }
  }

  onTick(listener: (report: TickReport) => void): void {
    this.#reports.push(listener);
  }

  /** One tick for a pair now, regardless of the update schedule (tests, the first quote). */
  async tick(pairId: string): Promise<TickReport> {
    const loop = this.#loop(pairId);
    loop.lastTickAtMs = this.#clock.now();
    const snapshot = this.#opts.feed.snapshot(pairId);
    // Tick-to-wire runs from here, the snapshot ready (built): its intents carry this moment.
    const readyAtMs = this.#clock.now();
    const report = await this.#tickWith(loop, snapshot, readyAtMs);
    this.#count(loop, report);
    for (const listener of this.#reports) listener(report);
    return report;
  }

  #loop(pairId: string): PairLoop {
    const loop = this.#loops.get(pairId);
    if (!loop) throw new Error(`runner has no strategy for pair ${pairId}`);
    return loop;
  }

  /** Folds bursts of updates into at most one tick per min_tick_interval_ms per pair. */
  #schedule(pairId: string): void {
    const loop = this.#loops.get(pairId);
    if (!loop || this.#abort.signal.aborted) return;
    if (loop.running) {
      loop.dirty = true;
      return;
    }
    loop.running = this.#run(loop, pairId).finally(() => {
      loop.running = undefined;
      if (loop.dirty) {
        loop.dirty = false;
        this.#schedule(pairId);
      }
    });
  }

  async #run(loop: PairLoop, pairId: string): Promise<void> {
    const wait = loop.lastTickAtMs + this.#opts.config.min_tick_interval_ms - this.#clock.now();
    try {
      if (wait > 0) await this.#clock.sleep(wait, this.#abort.signal);
      await this.tick(pairId);
    } catch (err) {
      if (this.#abort.signal.aborted) return;
      loop.log.error({ err }, 'runner tick failed');
    }
  }

  async #tickWith(
    loop: PairLoop,
    snapshot: MarketSnapshot,
    readyAtMs: number,
  ): Promise<TickReport> {
    const base = {
      pair: snapshot.pair.id,
      strategy: loop.strategy.plugin.name,
      snapshotSeq: snapshot.seq,
      snapshot,
    };
    if (
      snapshot.mode === 'halted' ||
      snapshot.mode === 'maintenance' ||
      (snapshot.stale && firstAnswersPending(snapshot))
    ) {
      return {
        ...base,
        outcome: 'idle',
        intents: [],
        coalesced: 0,
        suppressedByMode: 0,
        unchanged: 0,
        targets: [],
      };
    }
    const live = snapshot.openOrders.filter((o) => o.slot !== undefined);
    const pulled = this.#opts.pulled?.(snapshot.pair);
    const { outcome, drafts, targets, told } =
      pulled !== undefined
        ? {
            outcome: 'pulled' as const,
            drafts: pullAll(union(live, pulled), 'pulled:operator'),
            targets: [],
            told: {},
          }
        : snapshot.stale
          ? {
              outcome: 'stale' as const,
              drafts: pullAll(live, 'pulled:stale'),
              targets: [],
              told: {},
            }
          : this.#quote(loop, snapshot, live);
    const moded = applyMode(drafts, snapshot.mode);
    const fresh = this.#unsent(loop, moded.kept);
    const counts = {
      suppressedByMode: moded.suppressed,
      unchanged: moded.kept.length - fresh.length,
      targets,
      ...told,
    };
    if (fresh.length === 0) return { ...base, ...counts, outcome, intents: [], coalesced: 0 };
    const seen = depthSeenOf(snapshot);
    const result = await this.#opts.sink.publish(
      fresh.map((d) => this.#intent(d, snapshot, seen, readyAtMs)),
    );
    return {
      ...base,
      ...counts,
      outcome,
      intents: result.published,
      coalesced: result.coalesced,
    };
  }

  /** The strategy's quotes as drafts, with its compute time and quoted prices observed. */
  #quote(
    loop: PairLoop,
    snapshot: MarketSnapshot,
    live: readonly OwnOrder[],
  ): {
    outcome: TickOutcome;
    drafts: IntentDraft[];
    targets: readonly RoundedQuote[];
    told: Pick<TickReport, 'floor' | 'model'>;
  } {
    const { strategy } = loop;
    const { metrics } = this.#opts;
    const labels = { strategy: strategy.plugin.name, pair: strategy.pair.altname };
    const started = process.hrtime.bigint();
    let result;
    try {
      result = strategy.plugin.quote(snapshot, strategy.state, strategy.context);
    } catch (err) {
      metrics?.computeSeconds.observe(labels, Number(process.hrtime.bigint() - started) / 1e9);
      metrics?.strategyErrors.inc(labels);
      loop.log.error({ err }, 'strategy quote() threw; pulling its quotes');
      return {
        outcome: 'error',
        drafts: pullAll(live, 'pulled:strategy-error'),
        targets: [],
        told: {},
      };
    }
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    if (result.state !== undefined) strategy.state = result.state;
    const told = {
      ...(result.floor === undefined ? {} : { floor: result.floor }),
      ...(result.model === undefined ? {} : { model: result.model }),
    };
    const rounded = roundQuotes(result.quotes, strategy.pair);
    metrics?.computeSeconds.observe(labels, seconds);
    metrics?.observeQuotes(strategy.pair.altname, snapshot.mid, rounded.accepted);
    for (const { reason } of rounded.dropped) {
      metrics?.droppedQuotes.inc({ pair: strategy.pair.altname, reason });
    }
    const refused = this.#opts.quoteGate?.(strategy.pair, rounded.accepted, snapshot);
    if (refused !== undefined) {
      metrics?.droppedQuotes.inc(
        { pair: strategy.pair.altname, reason: 'risk' },
        rounded.accepted.length,
      );
      loop.log.error({ reason: refused }, 'quotes refused by the risk limits: none is sent');
      this.#opts.onRefused?.(strategy.pair, refused);
      return { outcome: 'refused', drafts: [], targets: [], told };
    }
    return {
      outcome: 'quoted',
      drafts: this.#diff(rounded.accepted, live, snapshot),
      targets: rounded.accepted,
      told,
    };
  }

  #diff(
    desired: Parameters<typeof diffQuotes>[0]['desired'],
    live: readonly OwnOrder[],
    snapshot: MarketSnapshot,
  ): IntentDraft[] {
    const { config } = this.#opts;
    const editPoints = this.#opts.editPoints;
    return diffQuotes({
      desired,
      live,
      nowMs: snapshot.takenAtMs,
      defaults: {
        priceBps: config.price_tolerance_bps,
        volumeFraction: config.volume_tolerance,
        maxAgeMs: config.max_order_age_ms,
      },
      ...(editPoints === undefined
        ? {}
        : { queue: { queue: snapshot.queue, book: snapshot.book, editPoints } }),
    });
  }

  /** Drops drafts identical to one published for the slot less than republish_after_ms ago. */
  #unsent(loop: PairLoop, drafts: readonly IntentDraft[]): IntentDraft[] {
    const now = this.#clock.now();
    const out: IntentDraft[] = [];
    for (const draft of drafts) {
      const fingerprint = fingerprintOf(draft);
      const key = `${draft.slot}|${draft.target?.txid ?? ''}`;
      const last = loop.sent.get(key);
      if (
        last &&
        last.fingerprint === fingerprint &&
        now - last.atMs < this.#opts.config.republish_after_ms
      ) {
        continue;
      }
      loop.sent.set(key, { fingerprint, atMs: now });
      out.push(draft);
    }
    if (loop.sent.size > 1_000)
      pruneOlderThan(loop.sent, now - this.#opts.config.republish_after_ms);
    return out;
  }

  #intent(
    draft: IntentDraft,
    snapshot: MarketSnapshot,
    seen: SidesSeen,
    readyAtMs: number,
  ): UnpublishedIntent {
    const now = this.#clock.now();
    const depthSeen = draft.action === 'cancel' ? undefined : seen[draft.slot.slice(0, 3)];
    return {
      ...draft,
      instance: this.#opts.instance,
      pair: snapshot.pair.id,
      createdAtMs: now,
      deadlineMs: now + this.#opts.config.intent_ttl_ms,
      snapshotSeq: snapshot.seq,
      snapshotAtMs: readyAtMs,
      ...(snapshot.ordersAsOfMs === undefined ? {} : { ordersAsOfMs: snapshot.ordersAsOfMs }),
      // The executor checks its own order of the slot against the book we saw.
      ...(depthSeen === undefined ? {} : { depthSeen }),
    };
  }

  /** A copy of each pair's totals. */
  stats(): PairRunStats[] {
    return [...this.#loops.values()].map((l) => ({ ...l.stats }));
  }

  #count(loop: PairLoop, report: TickReport): void {
    const { stats } = loop;
    stats.ticks += 1;
    stats.intents += report.intents.length;
    stats.coalesced += report.coalesced;
    stats.lastOutcome = report.outcome;
    stats.lastTickAtMs = loop.lastTickAtMs;
    const metrics = this.#opts.metrics;
    if (!metrics) return;
    const pair = loop.strategy.pair.altname;
    metrics.ticks.inc({ pair, outcome: report.outcome });
    for (const intent of report.intents) metrics.intents.inc({ pair, action: intent.action });
    if (report.coalesced > 0) metrics.coalesced.inc({ pair }, report.coalesced);
    if (report.suppressedByMode > 0) {
      metrics.suppressed.inc({ pair, reason: 'mode' }, report.suppressedByMode);
    }
    if (report.unchanged > 0)
      metrics.suppressed.inc({ pair, reason: 'unchanged' }, report.unchanged);
  }

  #fill(fill: FillEvent): void {
    const loop = this.#loops.get(fill.pair);
    if (!loop?.strategy.plugin.fill) return;
    try {
      const next = loop.strategy.plugin.fill(fill, loop.strategy.state, loop.strategy.context);
      if (next !== undefined) loop.strategy.state = next;
    } catch (err) {
      this.#opts.metrics?.strategyErrors.inc({
        strategy: loop.strategy.plugin.name,
        pair: loop.strategy.pair.altname,
      });
      loop.log.error({ err, txid: fill.txid }, 'strategy fill() threw; state kept');
    }
    this.#schedule(fill.pair);
  }
}

function fingerprintOf(d: IntentDraft): string {
  const o = d.desired;
  return `${d.action}|${o ? `${o.side}|${o.price}|${o.volume}|${o.postOnly}` : ''}`;
}

function pruneOlderThan(map: Map<string, { readonly atMs: number }>, cutoffMs: number): void {
  for (const [key, value] of map) if (value.atMs < cutoffMs) map.delete(key);
}

/** Depth's levels of each side as intents carry them (keyed `bid`, `ask`), once per tick. */
type SidesSeen = Readonly<Record<string, DepthSeen | undefined>>;

/** Each book side's prices as wire text, as intents carry them to the executor. */
function depthSeenOf(snapshot: MarketSnapshot): SidesSeen {
  const asOfMs = snapshot.bookAsOfMs;
  if (asOfMs === undefined) return {};
  const side = (levels: readonly PriceLevel[]): DepthSeen | undefined =>
    levels.length === 0 ? undefined : { asOfMs, prices: levels.map((l) => toWire(l.price)) };
  return { bid: side(snapshot.venueBook.bids), ask: side(snapshot.venueBook.asks) };
}

/**
 * Stale only because some source has not answered yet since start (no answer, no error): wait
 * for it rather than pull the orders found on the book. A restart after a crash finds its
 * predecessor's orders; pulling them for want of a first Trades answer cost their cancel penalties
 * and their queue places (issue #32 item 3). A source that fails, or grows old, still pulls.
 */
function firstAnswersPending(snapshot: MarketSnapshot): boolean {
  if (snapshot.staleSources.length === 0) return false;
  return snapshot.staleSources.every((s) => {
    const status = snapshot.sources[s];
    return status.receivedAtMs === undefined && status.lastError === undefined;
  });
}

/** Orders of both lists once each (by txid), the first list's copy kept. */
function union(a: readonly OwnOrder[], b: readonly OwnOrder[]): OwnOrder[] {
  const seen = new Set(a.map((o) => o.txid));
  return [...a, ...b.filter((o) => !seen.has(o.txid))];
}
