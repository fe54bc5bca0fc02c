import type { ControlFlags, IntentBus } from '../bus/index.js';
import type { Clock, Log, OrderIntent, PairInfo, TradingMode } from '../core/index.js';
import type { SpotClient } from '../exchange/index.js';
import type { MatchingEngineLimits } from '../exchange/limits/index.js';
import type { ExecutorConfig } from './config.js';
import type { OrderReads } from './exchange-orders.js';
import type { PairLease } from './lease.js';
import { pairLabel, type ExecutorMetrics } from './metrics.js';
import type { RatecountStore } from './ratecount-store.js';
import type { OrderTracker } from './tracker/index.js';
import { TERMINAL_STATES, type Fill, type TrackedOrder } from './types.js';
import { ExecutorError } from './errors.js';

/** Everything one pair's executor works with; built by Executor for each pair it holds. */
export interface PairDeps {
  readonly pair: PairInfo;
  readonly instance: number;
  readonly client: SpotClient;
  readonly bus: IntentBus;
  readonly tracker: OrderTracker;
  readonly ratecount: RatecountStore;
  readonly reads: OrderReads;
  readonly lease: PairLease;
  readonly flags: ControlFlags | undefined;
  readonly config: ExecutorConfig;
  readonly limits: MatchingEngineLimits;
  readonly clock: Clock;
  readonly metrics: ExecutorMetrics;
  readonly log: Log;
  /**
   * Whether calls may go out without waiting for their Redis writes (the executor's connection
   * is up): otherwise they would wait in ioredis's offline queue while the calls left.
   */
  readonly fastPath: () => boolean;
  /** Holds the executor's Redis writes until the turn is over (holdWritesForTurn). */
  readonly holdWrites: () => void;
  /** Issues Redis commands at the end of that hold, off the way to the wire (issueAfterHold). */
  readonly afterHold: <T>(issue: () => Promise<T>) => Promise<T>;
  /** Called once per intent sent, with its latencies (benchmarks collect raw samples). */
  readonly onWire?: ((sample: WireSample) => void) | undefined;
}

export interface WireSample {
  readonly pair: string;
  readonly action: string;
  /**
   * From the snapshot ready (or the budget available, or the answer that found the order gone:
   * `from`) to the request written to the socket.
   */
  readonly tickToWireMs: number;
  /**
   * What tick-to-wire counts from: the snapshot; the budget due, for an intent that waited for
   * points; the answer that found its order gone, for an intent placed again after one.
   */
  readonly from: 'snapshot' | 'budget' | 'retry';
  /** From the intent's creation to the request written to the socket. */
  readonly intentAgeMs: number;
  /** When the request was written to the socket, on the executor's clock. */
  readonly writtenAtMs: number;
}

/**
 * Where a call's tick-to-wire counts from when not from its intents' snapshots (`atMs` 0, or
 * before a snapshot: from the snapshot).
 */
export interface WireStart {
  readonly atMs: number;
  readonly from: 'budget' | 'retry';
}

/** Intents keyed by slot and generation (one intent per generation of a slot). */
export function intentKey(i: OrderIntent): string {
  return `${i.slot}#${i.generation}`;
}

/** How many retry starts a PairContext keeps (one per order found gone, until its intent goes). */
const RETRIES_KEPT = 64;

/** How long a mode learned from a refusal holds before order entry tries again. */
export const MODE_HOLD_MS = 5_000;

/**
 * The pair's live orders in memory, written through to the tracker. This process is the pair's
 * only writer while it holds the lease, so the copy in memory is the tracker's, and reading it
 * costs no Redis round trip on the way to the wire.
 */
export class PairContext {
  readonly deps: PairDeps;
  readonly orders = new Map<number, TrackedOrder>();
  /** Orders of the key on this pair that are not ours, from the last OpenOrders. */
  foreignOpen = 0;
  /** A mode the exchange told us by refusing (cancel_only...), until `modeUntilMs`. */
  learnedMode: TradingMode | undefined;
  modeUntilMs = 0;
  /** No order entry before this time (throttled, engine unavailable). */
  pausedUntilMs = 0;
  /** When points last came back ahead of plan (a refused or unsent call). */
  budgetFreedAtMs = 0;
  /**
   * When each slot last became empty (its order filled, cancelled or gone, none other holding
   * it): an amend waiting there for budget is now a cheaper place.
   */
  readonly slotFreedAtMs = new Map<string, number>();
  /** Told when a slot became empty, so intents waiting on it are planned again at once. */
  onSlotFreed: (() => void) | undefined;
  /**
   * Intents given back to go again once an answer found their order gone (intentKey → when that
   * answer came): their tick-to-wire counts from it. The last RETRIES_KEPT only.
   */
  readonly #retryFromMs = new Map<string, number>();

  /** The `pair` label of its metrics: the altname (`id` stays for Redis keys, calls and logs). */
  readonly label: string;

  constructor(deps: PairDeps) {
    this.deps = deps;
    this.label = pairLabel(deps.pair);
  }

  /** `intent` goes again: the answer that came at `atMs` found its order gone. */
  noteRetry(intent: OrderIntent, atMs: number): void {
    const retries = this.#retryFromMs;
    retries.delete(intentKey(intent));
    retries.set(intentKey(intent), atMs);
    for (const key of retries.keys()) {
      if (retries.size <= RETRIES_KEPT) break;
      retries.delete(key);
    }
  }

  /** When the answer came that gave `intent` back to go again, if one did; forgotten once read. */
  takeRetry(intent: OrderIntent): number | undefined {
    const key = intentKey(intent);
    const atMs = this.#retryFromMs.get(key);
    this.#retryFromMs.delete(key);
    return atMs;
  }

  get id(): string {
    return this.deps.pair.id;
  }

  now(): number {
    return this.deps.clock.now();
  }

  /** The order a slot holds: the newest live record of that slot. */
  slotOrder(slot: string): TrackedOrder | undefined {
    let found: TrackedOrder | undefined;
    for (const o of this.orders.values()) {
      if (o.slot === slot && (found === undefined || o.sentAtMs >= found.sentAtMs)) found = o;
    }
    return found;
  }

  byTxid(txid: string): TrackedOrder | undefined {
    for (const o of this.orders.values()) if (o.txid === txid) return o;
    return undefined;
  }

  /** Orders of the key on the pair as the exchange counts them for its open-orders limit. */
  openCount(): number {
    return this.orders.size + this.foreignOpen;
  }

  mode(): TradingMode {
    if (this.deps.flags?.current().halted === true) return 'halted';
    if (this.learnedMode !== undefined && this.now() < this.modeUntilMs) return this.learnedMode;
    return 'online';
  }

  assertHeld(): void {
    if (!this.deps.lease.held()) {
      throw new ExecutorError('EXECUTOR_LEASE_LOST', `lease of ${this.id} lost`);
    }
  }

  /**
   * Writes records through to the tracker (fenced by the lease) and updates the memory copy:
   * after the write, or before it when `early` (outcomes the next drain should see at once; a
   * write that then fails leaves Redis with the older state, which the reconciliation at start
   * settles by query, as for a crash before the write). Once only: remembered again after the
   * write, they could overwrite what an answer or a sync put there meanwhile.
   */
  async persist(records: readonly TrackedOrder[], early = false): Promise<void> {
    if (records.length === 0) return;
    if (early) this.remember(records);
    await this.deps.tracker.put(records, this.deps.lease.fence);
    if (!early) this.remember(records);
  }

  /**
   * persist() for the write-ahead records of calls about to be sent: one round trip. `early`
   * (calls that go out without waiting for it) puts them in memory at once, so an answer that
   * beats the reply is never overwritten by them.
   */
  async journal(records: readonly TrackedOrder[], early = false): Promise<void> {
    if (records.length === 0) return;
    const { tracker, lease, afterHold } = this.deps;
    if (early) {
      this.remember(records);
      // Not waited for before the calls go: built and issued once their requests are written.
      await afterHold(() => tracker.journal(records, lease.fence));
      return;
    }
    await tracker.journal(records, lease.fence);
    this.remember(records);
  }

  /**
   * Gives back ratecount points of calls refused or never sent: budget free ahead of plan, from
   * now: the level this process plans with has them back at once (RatecountStore.estimate), so a
   * drain before Redis's reply may spend them, and its calls count tick-to-wire from here.
   */
  async refund(points: number): Promise<void> {
    const refunded = this.deps.ratecount.refund(this.id, points, this.now());
    this.budgetFreedAtMs = this.now();
    const reading = await refunded;
    this.deps.metrics.ratecountLevel.set({ pair: this.label }, reading.level);
  }

  /** Applies an exchange view: fills are derived and recorded by the tracker. */
  async apply(view: TrackedOrder): Promise<void> {
    const fill = await this.deps.tracker.applyView(view, this.now(), this.deps.lease.fence);
    this.remember([view]);
    if (fill !== undefined) this.noteFill(fill);
  }

  noteFill(fill: Fill): void {
    this.deps.metrics.fills.inc({ pair: this.label, side: fill.side });
    this.deps.log.info(
      { txid: fill.txid, side: fill.side, price: fill.price, volume: fill.volume, fee: fill.fee },
      'fill',
    );
  }

  remember(records: readonly TrackedOrder[]): void {
    let freed = false;
    for (const r of records) {
      if (!TERMINAL_STATES.has(r.state)) this.orders.set(r.userref, r);
      else if (this.orders.delete(r.userref) && this.slotOrder(r.slot) === undefined) {
        this.slotFreedAtMs.set(r.slot, this.now());
        freed = true;
      }
    }
    // An edit's answer retires the old order but the slot holds the new one: nothing freed.
    if (freed) this.onSlotFreed?.();
  }

  /** Order-state gauges, from the memory copy (no Redis round trip). */
  publishOrderGauges(): void {
    const { metrics } = this.deps;
    const pair = this.label;
    const counts = new Map<string, number>();
    for (const o of this.orders.values()) counts.set(o.state, (counts.get(o.state) ?? 0) + 1);
    for (const state of ['pending-new', 'open', 'partially-filled', 'unknown']) {
      metrics.ordersByState.set({ pair, state }, counts.get(state) ?? 0);
    }
  }

  /** Inventory and PnL gauges: the position changes only with fills, which only syncs find. */
  async publishPosition(): Promise<void> {
    const { metrics } = this.deps;
    const position = await this.deps.tracker.position(this.id);
    const pair = this.label;
    metrics.inventoryBase.set({ pair }, Number(position.base));
    metrics.inventoryQuote.set({ pair }, Number(position.quote));
    metrics.realizedPnl.set({ pair }, Number(position.realizedPnl));
  }
}
