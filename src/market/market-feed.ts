import { setMaxListeners } from 'node:events';
import {
  errorMessage,
  DATA_SOURCES,
  dec,
  InvalidInputError,
  MakerdError,
  systemClock,
  type AdverseSelection,
  type Clock,
  type DataSource,
  type FeeRates,
  type MarketSnapshot,
  type PairInfo,
} from '../core/index.js';
import type {
  CallOptions,
  DepthBook,
  Level3Result,
  Order,
  SpotClient,
  SystemStatusResult,
  endpoints,
} from '../exchange/index.js';
import type { BudgetPlan, PlannedPoll, PollScope, PollSource } from './budget-planner.js';
import { BudgetUsage } from './budget-usage.js';
import { CatchUpBudget, catchUpPerSec } from './catch-up-budget.js';
import type { MarketConfig } from './config.js';
import { withDeadline } from './deadline.js';
import { ladderFees, tradeVolumeFees } from './fees.js';
import { FillMoves, type BalanceFill } from './fill-moves.js';
import { silentLog, type Log } from '../core/log.js';
import { ALL_PAIRS, ENDPOINT_OF, type MarketMetrics, type QueueFront } from './metrics.js';
import { decideMode, type HaltState, type ModeDecision } from './mode.js';
import { outcomeOf, PollLoop, type PollRun, type PollStatus } from './poll-loop.js';
import type { QueueOrder } from './queue-book.js';
import { QueueFeed } from './queue-feed.js';
import { parseQueueRule } from './queue-rule.js';
import {
  bookView,
  buildSnapshot,
  ownOrders,
  publicTrades,
  sourceStatuses,
  type BalanceExEntry,
  type GroupedBookResult,
  type OwnResting,
  type SourceInput,
  type TradeRow,
} from './snapshot-builder.js';
import { TradesCursor, type TradesGap } from './trades-cursor.js';

export interface MarketFeedOptions {
  readonly client: SpotClient;
  readonly pairs: readonly PairInfo[];
  /** Already parsed with parseWithSchema(MarketConfig, raw, 'market'). */
  readonly config: MarketConfig;
  readonly plan: BudgetPlan;
  /** This bot's userref instance: only its orders get a slot. */
  readonly instance: number;
  readonly clock?: Clock;
  readonly metrics?: MarketMetrics;
  /** The supervisor's halt flag, read at each snapshot. */
  readonly haltSource?: () => HaltState;
  /**
   * Our resting orders in a pair as the executor's tracker holds them, read at each snapshot: with
   * OpenOrders' list, what the snapshot's book leaves out (DESIGN.md §15).
   */
  readonly ownResting?: (pairId: string) => readonly OwnResting[];
  /** The adverse selection our recent fills in a pair met (the PnL module's markouts). */
  readonly adverseSelection?: (pairId: string) => AdverseSelection;
  readonly log?: Log;
}

/** Before any fill: no adverse selection measured. */
export const NO_ADVERSE_SELECTION: AdverseSelection = Object.freeze({
  bps: dec(0),
  horizonMs: 10_000,
  fills: 0,
});

/** A pair that publishes no fee ladder is charged this (percent), both ways, until TradeVolume answers. */
const UNPUBLISHED_FEE_PERCENT = dec('0.4');

/** New data for a pair; key-wide sources (openOrders, balance) fire once per pair. */
export type UpdateListener = (pairId: string, source: DataSource) => void;
/**
 * The key's open orders as an OpenOrders call made at `askedAtMs` saw them: the executor's tracker
 * derives our fills from them (the runner role hands them over through Redis).
 */
export interface OrdersView {
  readonly askedAtMs: number;
  readonly open: Readonly<Record<string, Order>>;
}
export type OrdersViewListener = (view: OrdersView) => void;
/** The exchange's mode (SystemStatus, before the halt flag is applied) changed. */
export type ModeListener = (change: ModeDecision) => void;
/** Trades of a pair the budget could not fetch in time (the recorder writes them down). */
export type TradesGapListener = (pair: PairInfo, gap: TradesGap) => void;

interface Received<T> {
  readonly value: T;
  readonly atMs: number;
  /** When the call that answered was made (the answer reflects a moment after this). */
  readonly askedAtMs?: number;
}

/**
 * Budgeted pollers and the snapshots built from their latest answers. One loop per planned poll;
 * every loop sleeps on the injected clock under one AbortSignal, so stop() ends them all at once
 * and leaves no timer behind. Snapshots are built on demand, never shared mutable state.
 */
export class MarketFeed {
  readonly plan: BudgetPlan;
  readonly pairs: readonly PairInfo[];
  readonly #client: SpotClient;
  readonly #config: MarketConfig;
  readonly #instance: number;
  readonly #clock: Clock;
  readonly #metrics: MarketMetrics | undefined;
  readonly #halt: (() => HaltState) | undefined;
  readonly #ownResting: MarketFeedOptions['ownResting'];
  readonly #adverse: MarketFeedOptions['adverseSelection'];
  /** Per pair id: where our orders stand in their queues. */
  readonly #queues = new Map<string, QueueFeed>();
  readonly #log: Log;
  readonly #pairsById: ReadonlyMap<string, PairInfo>;
  readonly #loops = new Map<string, PollLoop>();
  readonly #updateListeners = new Set<UpdateListener>();
  readonly #viewListeners = new Set<OrdersViewListener>();
  readonly #modeListeners = new Set<ModeListener>();
  readonly #gapListeners = new Set<TradesGapListener>();
  readonly #seq = new Map<string, number>();
  #usage: BudgetUsage;
  #stop: AbortController | undefined;
  #running: Promise<void>[] = [];

  readonly #depth = new Map<string, Received<DepthBook>>();
  readonly #grouped = new Map<string, Received<GroupedBookResult>>();
  readonly #level3 = new Map<string, Received<Level3Result>>();
  readonly #trades = new Map<string, Received<readonly TradeRow[]>>();
  /** Per pair id: where its Trades poll stands on the tape, and its catch-up calls. */
  readonly #tradesFollow = new Map<string, { cursor: TradesCursor; budget: CatchUpBudget }>();
  #openOrders: Received<Readonly<Record<string, Order>>> | undefined;
  #balances: Received<Readonly<Record<string, BalanceExEntry>>> | undefined;
  readonly #fillMoves: FillMoves;
  #systemStatus: Received<SystemStatusResult> | undefined;
  #tradeVolumeAtMs: number | undefined;
  /** Per pair id: the key's fees from the last TradeVolume answer that carried them. */
  readonly #fees = new Map<string, FeeRates>();

  constructor(options: MarketFeedOptions) {
    this.#client = options.client;
    this.#config = options.config;
    this.#instance = options.instance;
    this.#clock = options.clock ?? systemClock;
    this.#metrics = options.metrics;
    this.#halt = options.haltSource;
    this.#ownResting = options.ownResting;
    this.#adverse = options.adverseSelection;
    this.#log = options.log ?? silentLog;
    this.pairs = Object.freeze([...options.pairs]);
    this.#pairsById = new Map(this.pairs.map((p) => [p.id, p]));
    this.#fillMoves = new FillMoves(this.pairs);
    this.plan = options.plan;
    checkPlan(options.plan, this.#pairsById);
    this.#usage = new BudgetUsage(this.#clock.now());
    const rule = parseQueueRule(options.config.queue.rule, 'market.queue.rule');
    for (const pair of this.pairs) {
      const trades = options.plan.polls.find((p) => p.source === 'trades' && p.pair === pair.id);
      const every = trades?.intervalMs ?? 0;
      const queue = new QueueFeed(rule, every, options.config.stale_after_intervals, () =>
        this.#ourOrders(pair),
      );
      this.#queues.set(pair.id, queue);
    }
    for (const poll of options.plan.polls) {
      this.#loops.set(
        poll.id,
        new PollLoop({ poll, clock: this.#clock, run: this.#runFor(poll), log: this.#log }),
      );
    }
    if (this.#metrics !== undefined) {
      this.#metrics.setPlan(options.plan, (pairId) => this.#pairLabel(pairId));
      this.#metrics.attach({
        dataAges: () => this.#dataAges(),
        staleByPair: () =>
          this.pairs.map((p) => ({ pair: this.#pairLabel(p.id), stale: this.snapshotStale(p.id) })),
        budgetUsedPerSec: (scope) => this.#usage.perSecond(scope, this.#clock.now()),
        queueFronts: () => this.#queueFronts(),
      });
    }
  }

  get running(): boolean {
    return this.#stop !== undefined;
  }

  /** Starts one loop per planned poll; each first runs at its offset. */
  start(): void {
    if (this.#stop !== undefined) return;
    const stop = new AbortController();
    // Every loop sleeps on this one signal, plus one listener per request in flight.
    setMaxListeners(2 * this.#loops.size + 10, stop.signal);
    this.#stop = stop;
    const startAt = this.#clock.now();
    this.#usage = new BudgetUsage(startAt);
    this.#running = [...this.#loops.values()].map((l) => l.loop(stop.signal, startAt));
  }

  /** Aborts every loop and request in flight and waits until all have ended. */
  async stop(): Promise<void> {
    const stop = this.#stop;
    if (stop === undefined) return;
    stop.abort(new MakerdError('MARKET_FEED_STOPPED', 'market feed stopped'));
    await Promise.all(this.#running);
    this.#running = [];
    this.#stop = undefined;
  }

  onUpdate(listener: UpdateListener): () => void {
    this.#updateListeners.add(listener);
    return () => this.#updateListeners.delete(listener);
  }

  /** Every OpenOrders answer, as it arrives. */
  onOrdersView(listener: OrdersViewListener): () => void {
    this.#viewListeners.add(listener);
    return () => this.#viewListeners.delete(listener);
  }

  /**
   * Fires when a SystemStatus answer changes the exchange's mode or its reason. The halt flag is
   * not watched here: its owner (the supervisor) announces it.
   */
  onModeChange(listener: ModeListener): () => void {
    this.#modeListeners.add(listener);
    return () => this.#modeListeners.delete(listener);
  }

  /** Fires when a pair's Trades poll skips trades it could not fetch within the budget. */
  onTradesGap(listener: TradesGapListener): () => void {
    this.#gapListeners.add(listener);
    return () => this.#gapListeners.delete(listener);
  }

  /**
   * One of our fills, as the executor's tracker recorded it: until the next balance answer, the
   * snapshots' inventory is the last answer moved by the fills since (FillMoves). Every pair
   * trading an asset it moved is updated.
   */
  fill(fill: BalanceFill): void {
    const assets = this.#fillMoves.add(fill);
    if (assets.length === 0) return;
    const touched = this.pairs.filter((p) => assets.includes(p.base) || assets.includes(p.quote));
    this.#emit(
      touched.map((p) => p.id),
      'balance',
    );
  }

  status(): PollStatus[] {
    return [...this.#loops.values()].map((l) => l.status());
  }

  /** A fresh, deep-frozen snapshot of one pair at the clock's now. */
  snapshot(pairId: string): MarketSnapshot {
    const pair = this.#requirePair(pairId);
    const seq = (this.#seq.get(pair.id) ?? 0) + 1;
    this.#seq.set(pair.id, seq);
    const nowMs = this.#clock.now();
    const statusEnabled = this.#loops.has('systemStatus');
    const mode = decideMode({
      halt: this.#halt?.(),
      statusEnabled,
      status: this.#systemStatus?.value,
    });
    return buildSnapshot({
      pair,
      seq,
      nowMs,
      instance: this.#instance,
      depth: this.#depth.get(pair.id)?.value,
      grouped: this.#grouped.get(pair.id)?.value,
      level3: this.#level3.get(pair.id)?.value,
      trades: this.#trades.get(pair.id)?.value ?? [],
      tradesKept: this.#config.trades_kept,
      openOrders: this.#openOrders?.value,
      ordersAsOfMs: this.#openOrders?.askedAtMs,
      ordersReceivedAtMs: this.#openOrders?.atMs,
      bookAsOfMs: this.#depth.get(pair.id)?.askedAtMs,
      bookReceivedAtMs: this.#depth.get(pair.id)?.atMs,
      ownResting: this.#ownResting?.(pair.id),
      fees: this.fees(pair.id),
      adverseSelection: this.#adverse?.(pair.id) ?? NO_ADVERSE_SELECTION,
      queue: this.#queues.get(pair.id)?.positions(nowMs),
      balances: this.#balances?.value,
      balanceMoves: this.#fillMoves.moves(),
      mode: mode.mode,
      modeReason: mode.reason,
      sources: this.#sourceInputs(pair.id),
    });
  }

  /**
   * The key's fees in a pair: its last TradeVolume answer, else the pair's ladder at the
   * configured 30-day volume.
   */
  fees(pairId: string): FeeRates {
    const pair = this.#requirePair(pairId);
    return (
      this.#fees.get(pair.id) ??
      ladderFees(pair, dec(String(this.#config.fees.volume_usd)), UNPUBLISHED_FEE_PERCENT)
    );
  }

  /** Whether any enabled source of the pair is stale now (what snapshot().stale would say). */
  snapshotStale(pairId: string): boolean {
    const inputs = this.#sourceInputs(this.#requirePair(pairId).id);
    const statuses = sourceStatuses(inputs, this.#clock.now());
    return DATA_SOURCES.some((s) => statuses[s].stale);
  }

  /** Per pair and side, the place of our order nearest the touch (the estimate as last built). */
  #queueFronts(): QueueFront[] {
    return this.pairs.flatMap((pair) => {
      const positions = this.#queues.get(pair.id)?.estimator.positions() ?? [];
      return (['buy', 'sell'] as const).flatMap((side) => {
        const p = positions.find((q) => q.side === side);
        if (p === undefined) return [];
        const level = p.ahead.plus(p.behind);
        return [
          {
            pair: this.#pairLabel(pair.id),
            side,
            ahead: p.ahead.toNumber(),
            aheadShare: level.isZero() ? 0 : p.ahead.div(level).toNumber(),
          },
        ];
      });
    });
  }

  /**
   * Our resting orders in a pair, for the queue estimator: the tracker's (fresher, and only the
   * orders this bot placed) when the feed is given them, else OpenOrders' list of the pair.
   */
  #ourOrders(pair: PairInfo): readonly QueueOrder[] {
    if (this.#ownResting !== undefined) return this.#ownResting(pair.id);
    return ownOrders(this.#openOrders?.value, pair, this.#instance).map((o) => ({
      txid: o.txid,
      side: o.side,
      price: o.price,
      remaining: o.volume.minus(o.volumeExecuted),
      openedAtMs: o.openedAtMs,
    }));
  }

  #requirePair(pairId: string): PairInfo {
    const pair = this.#pairsById.get(pairId);
    if (pair === undefined) {
      throw new InvalidInputError(
        'pair',
        `${JSON.stringify(pairId)} is not fed; fed pairs: ${[...this.#pairsById.keys()].join(', ')}`,
      );
    }
    return pair;
  }

  /**
   * The `pair` label of a poll's metrics: the pair's altname, as every metric family labels pairs
   * (ids stay everywhere else), or ALL_PAIRS for a key-wide poll. checkPlan made sure every
   * planned pair is fed.
   */
  #pairLabel(pairId: string | undefined): string {
    if (pairId === undefined) return ALL_PAIRS;
    return this.#pairsById.get(pairId)?.altname ?? pairId;
  }

  #loopFor(source: PollSource, pairId: string | undefined): PollLoop | undefined {
    return this.#loops.get(pairId === undefined ? source : `${source}:${pairId}`);
  }

  #sourceInputs(pairId: string): Record<DataSource, SourceInput> {
    const received: Record<DataSource, number | undefined> = {
      depth: this.#depth.get(pairId)?.atMs,
      groupedBook: this.#grouped.get(pairId)?.atMs,
      level3: this.#level3.get(pairId)?.atMs,
      trades: this.#trades.get(pairId)?.atMs,
      openOrders: this.#openOrders?.atMs,
      balance: this.#balances?.atMs,
    };
    const out = {} as Record<DataSource, SourceInput>;
    for (const source of DATA_SOURCES) {
      const keyWide = source === 'openOrders' || source === 'balance';
      const loop = this.#loopFor(source, keyWide ? undefined : pairId);
      out[source] = {
        enabled: loop !== undefined,
        receivedAtMs: received[source],
        lastError: loop?.lastError,
        staleAfterMs: this.#config.stale_after_intervals * (loop?.poll.intervalMs ?? Infinity),
      };
    }
    return out;
  }

  #dataAges(): { endpoint: string; pair: string; ageSeconds: number }[] {
    const nowMs = this.#clock.now();
    return this.plan.polls.map((p) => {
      const at = this.#receivedAt(p);
      return {
        endpoint: ENDPOINT_OF[p.source],
        pair: this.#pairLabel(p.pair),
        ageSeconds: at === undefined ? Infinity : (nowMs - at) / 1000,
      };
    });
  }

  #receivedAt(p: PlannedPoll): number | undefined {
    const pair = p.pair ?? '';
    switch (p.source) {
      case 'depth':
        return this.#depth.get(pair)?.atMs;
      case 'groupedBook':
        return this.#grouped.get(pair)?.atMs;
      case 'level3':
        return this.#level3.get(pair)?.atMs;
      case 'trades':
        return this.#trades.get(pair)?.atMs;
      case 'openOrders':
        return this.#openOrders?.atMs;
      case 'balance':
        return this.#balances?.atMs;
      case 'systemStatus':
        return this.#systemStatus?.atMs;
      case 'tradeVolume':
        return this.#tradeVolumeAtMs;
    }
  }

  // ---- the polls ------------------------------------------------------------------------------

  #runFor(poll: PlannedPoll): PollRun {
    const c = this.#client;
    const cfg = this.#config;
    const pairId = poll.pair ?? '';
    switch (poll.source) {
      case 'depth':
        return async (signal) => {
          const askedAtMs = this.#clock.now();
          const { result } = await this.#call(poll, 'Depth', signal, (o) =>
            c.depth({ pair: pairId, count: cfg.depth_levels }, o),
          );
          // Keyed by pair id; a venue that keys by another name still answers for one pair.
          const book = result[pairId] ?? Object.values(result)[0];
          if (book === undefined) throw new MakerdError('MARKET_EMPTY_ANSWER', 'Depth: no book');
          this.#depth.set(pairId, { ...this.#stamp(book), askedAtMs });
          this.#queues.get(pairId)?.depth(bookView(book), this.#clock.now());
          this.#emit([pairId], 'depth');
          return 1;
        };
      case 'groupedBook':
        return async (signal) => {
          const g = cfg.polls.grouped_book;
          const { result } = await this.#call(poll, 'GroupedBook', signal, (o) =>
            c.groupedBook({ pair: pairId, depth: g.depth, grouping: g.grouping }, o),
          );
          this.#grouped.set(pairId, this.#stamp(result));
          this.#emit([pairId], 'groupedBook');
          return 1;
        };
      case 'trades':
        return (signal) => this.#pollTrades(poll, signal);
      case 'level3':
        return async (signal) => {
          const { result } = await this.#call(poll, 'Level3', signal, (o) =>
            c.level3({ pair: pairId, depth: cfg.polls.level3.depth }, o),
          );
          this.#level3.set(pairId, this.#stamp(result));
          this.#queues.get(pairId)?.level3(result, this.#clock.now());
          this.#emit([pairId], 'level3');
          return 1;
        };
      case 'balance':
        return async (signal) => {
          const askedAtMs = this.#clock.now();
          const { result } = await this.#call(poll, 'BalanceEx', signal, (o) => c.balanceEx({}, o));
          this.#balances = this.#stamp(result);
          this.#fillMoves.polled(askedAtMs);
          this.#emit(this.#allPairIds(), 'balance');
          return 1;
        };
      case 'systemStatus':
        return async (signal) => {
          const { result } = await this.#call(poll, 'SystemStatus', signal, (o) =>
            c.systemStatus(o),
          );
          const before = this.#exchangeMode();
          this.#systemStatus = this.#stamp(result);
          const after = this.#exchangeMode();
          if (after.mode !== before.mode || after.reason !== before.reason) {
            this.#emitMode(after);
          }
          return 1;
        };
      case 'openOrders':
        return (signal) => this.#pollOpenOrders(poll, signal);
      case 'tradeVolume':
        return async (signal) => {
          const { result } = await this.#call(poll, 'TradeVolume', signal, (o) =>
            c.tradeVolume({ pair: this.#allPairIds().join(',') }, o),
          );
          this.#takeFees(result);
          return 1;
        };
    }
  }

  /**
   * Follows the pair's tape with the `since` cursor (TradesCursor): a capped answer is asked again
   * from its `last` while the catch-up budget has a call, and what is left waits for the next
   * poll. Catch-up calls are paid from the public budget the plan leaves unused (CatchUpBudget),
   * not from this poll's share, so they do not push the next poll back: the run reports its one
   * planned call.
   */
  async #pollTrades(poll: PlannedPoll, signal: AbortSignal): Promise<number> {
    const pairId = poll.pair ?? '';
    const { cursor, budget } = this.#followTrades(poll);
    const count = this.#config.polls.trades.count;
    const fresh: TradeRow[] = [];
    const ask = async (since: string | undefined): Promise<boolean> => {
      const { result } = await this.#call(poll, 'Trades', signal, (o) =>
        this.#client.trades(
          since === undefined ? { pair: pairId, count } : { pair: pairId, count, since },
          o,
        ),
      );
      const rows = result.pairs[pairId] ?? Object.values(result.pairs)[0] ?? [];
      fresh.push(...rows);
      const step = cursor.take(since, rows, result.last);
      if (step.gap !== undefined) this.#tradesGap(pairId, step.gap);
      return step.more;
    };
    let more = await ask(cursor.since(this.#clock.now()));
    while (more && budget.take(this.#clock.now())) {
      this.#metrics?.tradesCatchUp(this.#pairLabel(pairId));
      try {
        more = await ask(cursor.last);
      } catch (err) {
        if (signal.aborted) throw err;
        // The rows so far are good and the cursor kept: the next poll goes on from there.
        this.#log.warn(
          { poll: poll.id, err: errorMessage(err) },
          `${poll.id} catch-up call failed: ${errorMessage(err)}`,
        );
        break;
      }
    }
    const merged = mergeTrades(
      this.#trades.get(pairId)?.value ?? [],
      fresh,
      this.#config.trades_kept,
    );
    this.#trades.set(pairId, this.#stamp(merged));
    // Every new trade, however many the answers held (not only the trades_kept newest).
    this.#queues
      .get(pairId)
      ?.trades(publicTrades(fresh, fresh.length), this.#clock.now(), this.#clock.now());
    this.#emit([pairId], 'trades');
    return 1;
  }

  /**
   * The pair's cursor and catch-up budget, made at its first poll. Falling further behind than
   * the staleness limit of the poll's data, the feed jumps to the newest trades.
   */
  #followTrades(poll: PlannedPoll): { cursor: TradesCursor; budget: CatchUpBudget } {
    const pairId = poll.pair ?? '';
    let follow = this.#tradesFollow.get(pairId);
    if (follow === undefined) {
      follow = {
        cursor: new TradesCursor(
          this.#config.polls.trades.count,
          this.#config.stale_after_intervals * poll.intervalMs,
        ),
        budget: new CatchUpBudget(catchUpPerSec(this.plan), poll, this.#clock.now()),
      };
      this.#tradesFollow.set(pairId, follow);
    }
    return follow;
  }

  #tradesGap(pairId: string, gap: TradesGap): void {
    const pair = this.#requirePair(pairId);
    this.#metrics?.tradesMissed(pair.altname, gap.missed);
    this.#log.warn(
      {
        pair: pair.altname,
        missed: gap.missed,
        after_id: gap.afterId,
        resume_id: gap.resumeId,
        calls_short: gap.callsShort,
      },
      `${pair.altname}: ${gap.missed} trades missed: the public budget could not keep up`,
    );
    for (const listener of [...this.#gapListeners]) {
      try {
        listener(pair, gap);
      } catch (err) {
        this.#listenerFailed('trades gap', err);
      }
    }
  }

  async #pollOpenOrders(poll: PlannedPoll, signal: AbortSignal): Promise<number> {
    const askedAtMs = this.#clock.now();
    const { result } = await this.#call(poll, 'OpenOrders', signal, (o) =>
      this.#client.openOrders({}, o),
    );
    this.#openOrders = { ...this.#stamp(result.open), askedAtMs };
    const view: OrdersView = { askedAtMs, open: result.open };
    for (const listener of [...this.#viewListeners]) {
      try {
        listener(view);
      } catch (err) {
        this.#listenerFailed('orders view', err);
      }
    }
    this.#emit(this.#allPairIds(), 'openOrders');
    return 1;
  }

  /**
   * One exchange call with the poll's deadline. Private calls may wait for REST budget at most one
   * interval: a poll that cannot get budget by then is skipped rather than queued behind itself.
   */
  async #call<T>(
    poll: PlannedPoll,
    endpoint: string,
    signal: AbortSignal,
    fn: (options: CallOptions) => Promise<T>,
  ): Promise<T> {
    const isPrivate = poll.scope === 'private';
    const budgetWaitMs = isPrivate ? poll.intervalMs : 0;
    const timeoutMs = this.#config.request_timeout_ms + budgetWaitMs;
    const started = this.#clock.now();
    const pairLabel = this.#pairLabel(poll.pair);
    try {
      const value = await withDeadline(this.#clock, signal, timeoutMs, endpoint, (s) =>
        fn(isPrivate ? { signal: s, maxBudgetWaitMs: budgetWaitMs } : { signal: s }),
      );
      this.#spent(poll.scope, poll.cost);
      this.#metrics?.observePoll(endpoint, pairLabel, 'ok', this.#secondsSince(started));
      return value;
    } catch (err) {
      if (!signal.aborted) {
        const outcome = outcomeOf(err);
        // Nothing was sent when the budget could not be had in time.
        if (outcome !== 'skipped') this.#spent(poll.scope, poll.cost);
        this.#metrics?.observePoll(endpoint, pairLabel, outcome, this.#secondsSince(started));
      }
      throw err;
    }
  }

  /** The fees a TradeVolume answer states; a pair it leaves out keeps what it had. */
  #takeFees(result: endpoints.TradeVolumeResult): void {
    this.#tradeVolumeAtMs = this.#clock.now();
    for (const pair of this.pairs) {
      const fees = tradeVolumeFees(result, pair.id);
      if (fees === undefined) continue;
      const before = this.#fees.get(pair.id);
      this.#fees.set(pair.id, fees);
      if (before?.makerBps.eq(fees.makerBps) && before.takerBps.eq(fees.takerBps)) continue;
      this.#log.info(
        {
          pair: pair.altname,
          maker_bps: fees.makerBps.toFixed(),
          taker_bps: fees.takerBps.toFixed(),
          volume_usd: fees.volumeUsd.toFixed(),
        },
        'fees from TradeVolume',
      );
    }
  }

  #spent(scope: PollScope, points: number): void {
    this.#usage.record(scope, points, this.#clock.now());
  }

  #secondsSince(startedMs: number): number {
    return Math.max(0, this.#clock.now() - startedMs) / 1000;
  }

  #stamp<T>(value: T): Received<T> {
    return { value, atMs: this.#clock.now() };
  }

  #allPairIds(): string[] {
    return this.pairs.map((p) => p.id);
  }

  #exchangeMode(): ModeDecision {
    return decideMode({ halt: undefined, statusEnabled: true, status: this.#systemStatus?.value });
  }

  #emitMode(change: ModeDecision): void {
    this.#log.info({ mode: change.mode, reason: change.reason }, `exchange mode ${change.mode}`);
    for (const listener of [...this.#modeListeners]) {
      try {
        listener(change);
      } catch (err) {
        this.#listenerFailed('mode', err);
      }
    }
  }

  #emit(pairIds: readonly string[], source: DataSource): void {
    for (const pairId of pairIds) {
      for (const listener of [...this.#updateListeners]) {
        try {
          listener(pairId, source);
        } catch (err) {
          this.#listenerFailed('update', err);
        }
      }
    }
  }

  /** A listener's bug must not stop the polls that every other part depends on. */
  #listenerFailed(kind: string, err: unknown): void {
    this.#log.error({ listener: kind, err: errorMessage(err) }, `${kind} listener threw`);
  }
}

/** Trades rows merged by trade id, oldest first, the newest `kept` retained. */
export function mergeTrades(
  kept: readonly TradeRow[],
  fresh: readonly TradeRow[],
  max: number,
): TradeRow[] {
  const ids = new Set(kept.map((r) => r[6]));
  const merged = [...kept, ...fresh.filter((r) => !ids.has(r[6]))];
  merged.sort((a, b) => a[2] - b[2] || a[6] - b[6]);
  return merged.slice(Math.max(0, merged.length - max));
}

function checkPlan(plan: BudgetPlan, pairs: ReadonlyMap<string, PairInfo>): void {
  for (const required of ['openOrders', 'balance']) {
    if (!plan.polls.some((p) => p.id === required)) {
      throw new InvalidInputError('plan.polls', `must include the ${required} poll`);
    }
  }
  for (const [i, p] of plan.polls.entries()) {
    const keyWide =
      p.source === 'openOrders' ||
      p.source === 'balance' ||
      p.source === 'systemStatus' ||
      p.source === 'tradeVolume';
    const expectedId = keyWide ? p.source : `${p.source}:${p.pair ?? ''}`;
    if (p.id !== expectedId || (!keyWide && !pairs.has(p.pair ?? ''))) {
      throw new InvalidInputError(
        `plan.polls.${i}`,
        `poll ${JSON.stringify(p.id)} does not match a fed pair (expected ids like ${expectedId})`,
      );
    }
  }
}
