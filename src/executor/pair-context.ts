import type { ControlFlags, IntentBus } from '../bus/index.js';
import type { Clock, Log, PairInfo, TradingMode } from '../core/index.js';
import type { SpotClient } from '../exchange/index.js';
import type { MatchingEngineLimits } from '../exchange/limits/index.js';
import { CancelCharges } from './cancel-charges.js';
import type { ExecutorConfig } from './config.js';
import { ExecutorError } from './errors.js';
import type { OrderReads } from './exchange-orders.js';
import { OrderEntryLink } from './order-entry-link.js';
import { isRetiredAsGone } from './records.js';
import type { Lease } from './lease.js';
import { pairLabel, type ExecutorMetrics } from './metrics.js';
import type { RatecountStore } from './ratecount-store.js';
import type { OrderTracker } from '../orders/index.js';
import { TERMINAL_STATES, type Fill, type TrackedOrder } from '../orders/types.js';
import type { WireSample } from './wire-times.js';

/** Everything one pair's executor works with; built by Executor for each pair it holds. */
export interface PairDeps {
  readonly pair: PairInfo;
  readonly instance: number;
  readonly client: SpotClient;
  readonly bus: IntentBus;
  readonly tracker: OrderTracker;
  readonly ratecount: RatecountStore;
  readonly reads: OrderReads;
  readonly lease: Lease;
  readonly flags: ControlFlags | undefined;
  readonly config: ExecutorConfig;
  readonly limits: MatchingEngineLimits;
  readonly clock: Clock;
  readonly metrics: ExecutorMetrics;
  readonly log: Log;
  /** Called once per intent sent, with its latencies (benchmarks collect raw samples). */
  readonly onWire?: ((sample: WireSample) => void) | undefined;
  /** Told of each charge for orders the exchange cancelled without a call of ours. */
  readonly onCancelledByOthers?: ((orders: number, points: number) => void) | undefined;
}

/**
 * The part of a pair's context one component works with: the members and the deps it names. Each
 * part of the executor declares its own (drain, order calls, syncs, failures...), so what it may
 * touch is in its signature; PairExecutor, which composes them, holds the whole PairContext.
 */
export type PairScope<C extends keyof PairContext, D extends keyof PairDeps = never> = Pick<
  PairContext,
  C
> & { readonly deps: Pick<PairDeps, D> };

/** How long a mode learned from a refusal holds before order entry tries again. */
export const MODE_HOLD_MS = 5_000;

/**
 * The pair's live orders in memory, written through to the tracker. This process is the pair's
 * only writer while it holds the lease, so the copy in memory is the tracker's.
 */
export class PairContext {
  readonly deps: PairDeps;
  readonly orders = new Map<number, TrackedOrder>();
  /** Orders of the key on this pair that are not ours, from the last OpenOrders. */
  foreignOpen = 0;
  /** A mode the exchange told us by refusing (cancel_only...), until `modeUntilMs`. */
  learnedMode: TradingMode | undefined;
  modeUntilMs = 0;
  /** No order entry before this time (throttled, rate-limited, the key refused). */
  pausedUntilMs = 0;
  /**
   * When the pair's last order-entry call ended (answered, refused or given up on): a read of the
   * book asked before then may not show it, so a sync may not take it from another pair.
   */
  answeredAtMs = 0;
  /** The `pair` label of its metrics: the altname (`id` stays for Redis keys, calls and logs). */
  readonly label: string;
  /** What the exchange charged for orders of ours it cancelled without a call of ours. */
  readonly cancelCharges: CancelCharges;
  /** The deadline and answer timeout order entry fits to the link, and whether it fails. */
  readonly link: OrderEntryLink;

  constructor(deps: PairDeps) {
    this.deps = deps;
    this.label = pairLabel(deps.pair);
    this.cancelCharges = new CancelCharges({ id: deps.pair.id, label: this.label }, deps);
    this.link = new OrderEntryLink({ ...deps, pair: deps.pair.id, label: this.label });
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

  /** Writes records through to the tracker (fenced by the lease), then to the memory copy. */
  async persist(records: readonly TrackedOrder[]): Promise<void> {
    if (records.length === 0) return;
    await this.deps.tracker.put(records, this.deps.lease.fence);
    for (const r of records) {
      const known = this.orders.get(r.userref);
      if (known !== undefined && isRetiredAsGone(r)) this.cancelCharges.retiredAsGone(known);
    }
    this.remember(records);
  }

  /** Gives back ratecount points of calls refused before the engine or never sent. */
  async refund(points: number): Promise<void> {
    const reading = await this.deps.ratecount.refund(this.id, points, this.now());
    this.deps.metrics.ratecountLevel.set({ pair: this.label }, reading.level);
  }

  /**
   * Applies an exchange view: fills are derived and recorded by the tracker, timed at
   * `executedAtMs` (exchange-orders.ts executedAtMs) when the exchange says when they happened.
   */
  async apply(view: TrackedOrder, executedAtMs = this.now()): Promise<void> {
    const known = this.orders.get(view.userref);
    const fill = await this.deps.tracker.applyView(view, executedAtMs, this.deps.lease.fence);
    this.remember([view]);
    if (fill !== undefined) this.noteFill(fill);
    if (known !== undefined) this.cancelCharges.viewed(known, view, executedAtMs);
  }

  noteFill(fill: Fill): void {
    this.deps.metrics.fills.inc({ pair: this.label, side: fill.side });
    this.deps.log.info(
      { txid: fill.txid, side: fill.side, price: fill.price, volume: fill.volume, fee: fill.fee },
      'fill',
    );
  }

  remember(records: readonly TrackedOrder[]): void {
    for (const r of records) {
      if (TERMINAL_STATES.has(r.state)) this.orders.delete(r.userref);
      else this.orders.set(r.userref, r);
    }
  }

  /** Order-state gauges, from the memory copy. */
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
