import type { Log } from '../core/index.js';
import { cancelPenalty } from '../exchange/limits/index.js';
import type { TrackedOrder } from '../orders/types.js';
import type { ExecutorMetrics } from './metrics.js';
import type { RatecountStore } from './ratecount-store.js';

/** A closed order of the key on the pair that is not ours, as ClosedOrders tells it. */
export interface ForeignClosed {
  readonly canceled: boolean;
  readonly openedAtMs: number;
  readonly closedAtMs: number;
}

/** What charging uses of the pair's executor (PairDeps). */
export interface ChargeDeps {
  readonly ratecount: Pick<RatecountStore, 'add'>;
  readonly metrics: Pick<ExecutorMetrics, 'ratecountLevel' | 'ratecountPoints'>;
  readonly log: Log;
  /** Told of each charge: how many orders, how many points. */
  readonly onCancelledByOthers?: ((orders: number, points: number) => void) | undefined;
}

/**
 * What the exchange charged the pair for orders it cancelled without a call of ours (a CancelAll,
 * the dead-man timer, someone else on the key), ours and the key's other orders: each one's
 * cancel penalty by its age (DESIGN.md §3.4), owed to the ratecount model. An order is found so
 * once, when a view or sync first sees it cancelled (ours: its record leaves the live set then),
 * so it is charged once however many signals announced the cancel. charge() adds what was found;
 * steps call it before any order entry.
 */
export class CancelCharges {
  readonly #pair: { readonly id: string; readonly label: string };
  readonly #deps: ChargeDeps;
  /** Found and not charged yet: the order's age at the cancel, and when it was. */
  readonly #owed: { readonly ageMs: number; readonly atMs: number }[] = [];
  /**
   * Orders retired as gone ("Unknown order", or gone from the runner's view) by txid, until a
   * full sync's ClosedOrders says whether they were cancelled (owed) or filled.
   */
  readonly #gone = new Map<string, TrackedOrder>();
  /** The foreign orders the last ClosedOrders read listed, or that our own cancel took off. */
  #foreignSeen = new Set<string>();
  /** Foreign orders our own cancel took off since that read (charged as it was sent). */
  readonly #foreignCancelled = new Set<string>();

  constructor(pair: { readonly id: string; readonly label: string }, deps: ChargeDeps) {
    this.#pair = pair;
    this.#deps = deps;
  }

  /**
   * An exchange view turned a live record of ours (`known`) into `view`. Our own cancels and
   * edits were charged when sent; a cancel without one is owed.
   */
  viewed(known: TrackedOrder, view: TrackedOrder, atMs: number): void {
    if (view.state !== 'canceled' || known.pendingCall === 'cancel' || known.pendingCall === 'edit')
      return;
    this.#found(known, atMs);
  }

  /** A live record retired as gone: ClosedOrders will say how it went. */
  retiredAsGone(known: TrackedOrder): void {
    if (known.txid !== null) this.#gone.set(known.txid, known);
  }

  /**
   * A full sync's ClosedOrders answer (orders of ours closed since the one before): the gone
   * orders it lists as cancelled are owed. Every gone order has had its answer then.
   */
  settleGone(closed: readonly TrackedOrder[], closedAtMs: (view: TrackedOrder) => number): void {
    for (const view of closed) {
      const gone = view.txid === null ? undefined : this.#gone.get(view.txid);
      if (gone !== undefined && view.state === 'canceled') this.#found(gone, closedAtMs(view));
    }
    this.#gone.clear();
  }

  /** Foreign orders our own cancel took off (foreign_orders: cancel), charged as it was sent. */
  foreignCancelled(txids: readonly string[]): void {
    for (const txid of txids) this.#foreignCancelled.add(txid);
  }

  /**
   * A full sync's ClosedOrders for the key's orders on the pair that are not ours: the exchange
   * charged the same counter for each one cancelled, whoever cancelled it (a CancelAll of ours or
   * the dead-man timer's, their owner), by its age at the cancel. Owed, once: the reads overlap,
   * so one listed by the read before is not charged again. Their owner's adds and edits are not
   * in any read we make, and stay uncounted.
   */
  settleForeign(closed: ReadonlyMap<string, ForeignClosed>): void {
    for (const [txid, o] of closed) {
      if (!o.canceled || this.#foreignSeen.has(txid) || this.#foreignCancelled.has(txid)) continue;
      this.#owed.push({ ageMs: Math.max(0, o.closedAtMs - o.openedAtMs), atMs: o.closedAtMs });
    }
    this.#foreignSeen = new Set([...closed.keys(), ...this.#foreignCancelled]);
    this.#foreignCancelled.clear();
  }

  /**
   * Adds what is owed to the model, at the time of each cancel, so it decays as the exchange's
   * does. A failed add keeps what it could not add for the next try.
   */
  async charge(): Promise<void> {
    if (this.#owed.length === 0) return;
    const found = this.#owed.splice(0);
    // One add per moment: a CancelAll's orders all went at once.
    const byAt = new Map<number, number>();
    for (const o of found) byAt.set(o.atMs, (byAt.get(o.atMs) ?? 0) + cancelPenalty(o.ageMs));
    const { ratecount, metrics, log } = this.#deps;
    const { id, label } = this.#pair;
    let points = 0;
    let level: number | undefined;
    for (const [atMs, due] of [...byAt].sort((a, b) => a[0] - b[0])) {
      if (due === 0) continue;
      try {
        level = (await ratecount.add(id, due, atMs)).level;
      } catch (err) {
        this.#owed.push(...found.filter((o) => o.atMs >= atMs));
        throw err;
      }
      points += due;
    }
    if (level !== undefined) metrics.ratecountLevel.set({ pair: label }, level);
    metrics.ratecountPoints.inc({ pair: label, action: 'cancelled-by-others' }, points);
    this.#deps.onCancelledByOthers?.(found.length, points);
    log.info(
      { orders: found.length, points, atMs: Math.min(...byAt.keys()) },
      'orders cancelled without a call of ours: their penalties charged to the ratecount',
    );
  }

  #found(order: TrackedOrder, atMs: number): void {
    // Our open time is later than the exchange's: the age is younger, the penalty never under.
    this.#owed.push({ ageMs: order.openedAtMs > 0 ? atMs - order.openedAtMs : 0, atMs });
  }
}
