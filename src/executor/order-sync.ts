import { decodeUserref } from '../core/index.js';
import type { Order } from '../exchange/endpoints/account.js';
import { cancelBatchPenalty } from '../exchange/limits/index.js';
import { executedAtMs, isPairOrder, viewOf } from './exchange-orders.js';
import type { PairScope } from './pair-context.js';
import type { ForeignClosed } from './cancel-charges.js';
import type { FailureScope } from './failures.js';
import type { TrackedOrder } from '../orders/types.js';

/** Closed orders are searched from this long before the oldest record in question was sent. */
const CLOSED_LOOKBACK_MS = 10_000;

export interface SyncResult {
  /** Records whose outcome is still open: their calls' deadlines have not passed. */
  readonly waiting: number;
  /** Earliest time one of them can be resolved (epoch ms), if any. */
  readonly nextDueMs: number | undefined;
  readonly adopted: number;
  readonly resolved: number;
}

/**
 * Brings the pair's records in line with the exchange (DESIGN.md §3.6): unknown outcomes are
 * resolved by query once their deadline has passed, never guessed; a full sync also adopts our
 * own orders the tracker does not know (a crash between send and write), counts or cancels
 * foreign ones, and chases records that vanished from OpenOrders through ClosedOrders and
 * QueryOrders.
 */
/** What the syncs use of their pair: the exchange reads and the tracker, besides the records. */
export type SyncScope = FailureScope &
  PairScope<
    | 'answeredAtMs'
    | 'apply'
    | 'byTxid'
    | 'cancelCharges'
    | 'foreignOpen'
    | 'id'
    | 'label'
    | 'noteFill'
    | 'now'
    | 'orders'
    | 'persist',
    | 'client'
    | 'config'
    | 'instance'
    | 'lease'
    | 'limits'
    | 'log'
    | 'metrics'
    | 'pair'
    | 'ratecount'
    | 'reads'
    | 'tracker'
  >;

export class OrderSync {
  readonly #ctx: SyncScope;
  #settledUntilMs: number | undefined;

  constructor(ctx: SyncScope) {
    this.#ctx = ctx;
  }

  /** Whether any record waits for resolution, and from when it can be resolved. */
  dueAt(): number | undefined {
    let due: number | undefined;
    for (const o of this.#ctx.orders.values()) {
      if (o.state !== 'unknown' && o.state !== 'pending-new') continue;
      const at = this.#dueOf(o);
      due = due === undefined ? at : Math.min(due, at);
    }
    return due;
  }

  /**
   * `unknowns`: only records in doubt whose deadline passed. `all`: every record, plus adoption
   * of unknown own orders and the foreign count. `readsFrom`: the reads may be another pair's,
   * asked since then and after this pair's last call was answered and every subject's deadline
   * passed (-Infinity for the periodic syncs; when a CancelAll, a halt or a stall was heard of);
   * without it they are asked now.
   */
  async run(scope: 'unknowns' | 'all', readsFrom?: number): Promise<SyncResult> {
    const ctx = this.#ctx;
    const { reads, instance, metrics, log } = ctx.deps;
    const now = ctx.now();
    const doubts = [...ctx.orders.values()].filter(inDoubt);
    const due = doubts.filter((o) => this.#dueOf(o) <= now);
    const notDue = doubts.filter((o) => this.#dueOf(o) > now);
    const subjects =
      scope === 'all' ? [...ctx.orders.values()].filter((o) => !notDue.includes(o)) : due;
    if (scope === 'unknowns' && subjects.length === 0) return this.#result(notDue, 0, 0);

    // OpenOrders taken after every subject's call was answered or its deadline passed.
    const notBefore =
      readsFrom === undefined
        ? now
        : Math.max(readsFrom, ctx.answeredAtMs, ...due.map((o) => this.#dueOf(o)));
    const { orders: open } = await reads.open(notBefore, now);
    const openOurs = new Map<string, Order>();
    let foreign = 0;
    const foreignTxids: string[] = [];
    for (const [txid, o] of Object.entries(open)) {
      if (!isPairOrder(o, ctx.deps.pair)) continue;
      if (decodeUserref(o.userref)?.instance === instance) openOurs.set(txid, o);
      else {
        foreign += 1;
        foreignTxids.push(txid);
      }
    }
    const openByUserref = new Map<number, [string, Order]>();
    for (const [txid, o] of openOurs)
      if (o.userref !== null) openByUserref.set(o.userref, [txid, o]);

    let resolved = 0;
    const missing: TrackedOrder[] = [];
    const seenTxids = new Set<string>();
    for (const rec of subjects) {
      const hit =
        rec.txid !== null && openOurs.has(rec.txid)
          ? ([rec.txid, openOurs.get(rec.txid) as Order] as const)
          : rec.txid === null || rec.pendingCall === 'edit'
            ? openByUserref.get(rec.userref)
            : undefined;
      if (hit === undefined) {
        missing.push(rec);
        continue;
      }
      seenTxids.add(hit[0]);
      await ctx.apply(
        viewOf(hit[0], hit[1], rec, ctx.id, ctx.now()),
        executedAtMs(hit[1], ctx.now()),
      );
      if (inDoubt(rec)) {
        metrics.unknowns.inc({ pair: ctx.label, resolution: 'open' });
        resolved += 1;
      }
    }

    let adopted = 0;
    if (scope === 'all') {
      ctx.foreignOpen = foreign;
      for (const [txid, o] of openOurs) {
        if (seenTxids.has(txid) || ctx.byTxid(txid) !== undefined) continue;
        const pendingTwin = o.userref === null ? undefined : ctx.orders.get(o.userref);
        if (pendingTwin !== undefined && notDue.includes(pendingTwin)) continue;
        await ctx.apply(viewOf(txid, o, undefined, ctx.id, ctx.now()), executedAtMs(o, ctx.now()));
        adopted += 1;
        log.warn(
          { txid, userref: o.userref },
          'adopted an open order of ours the tracker did not know',
        );
      }
      if (ctx.deps.config.foreign_orders === 'cancel' && foreignTxids.length > 0) {
        await this.#cancelForeign(foreignTxids, open);
      }
    }

    // What left the book is read after the OpenOrders answer that found it gone.
    if (missing.length > 0) resolved += await this.#settleMissing(missing, ctx.now());
    if (scope === 'all') await this.#settleRetired(notBefore);
    metrics.reconciles.inc({ pair: ctx.label, outcome: scope });
    return this.#result(notDue, adopted, resolved);
  }

  /** Records not open any more: their final state from ClosedOrders, else QueryOrders. */
  async #settleMissing(missing: readonly TrackedOrder[], notBefore: number): Promise<number> {
    const ctx = this.#ctx;
    const { reads, metrics, log } = ctx.deps;
    const since = Math.min(...missing.map((o) => o.sentAtMs || o.openedAtMs || ctx.now()));
    const { orders: closed } = await reads.closedSince(
      since - CLOSED_LOOKBACK_MS,
      notBefore,
      ctx.now(),
    );
    const closedByUserref = new Map<number, [string, Order]>();
    for (const [txid, o] of Object.entries(closed)) {
      if (o.userref !== null && isPairOrder(o, ctx.deps.pair))
        closedByUserref.set(o.userref, [txid, o]);
    }
    let resolved = 0;
    const toQuery: TrackedOrder[] = [];
    for (const rec of missing) {
      const hit =
        rec.txid !== null && closed[rec.txid] !== undefined
          ? ([rec.txid, closed[rec.txid] as Order] as const)
          : rec.txid === null || rec.pendingCall === 'edit'
            ? closedByUserref.get(rec.userref)
            : undefined;
      if (hit !== undefined) {
        await ctx.apply(
          viewOf(hit[0], hit[1], rec, ctx.id, ctx.now()),
          executedAtMs(hit[1], ctx.now()),
        );
        if (inDoubt(rec)) metrics.unknowns.inc({ pair: ctx.label, resolution: 'closed' });
        resolved += 1;
      } else if (rec.txid !== null && rec.pendingCall !== 'edit') {
        toQuery.push(rec);
      } else {
        // Never reached the book by its deadline: the call did not execute.
        await ctx.persist([
          {
            ...rec,
            state: 'rejected',
            pendingCall: null,
            reason: 'not executed',
            updatedAtMs: ctx.now(),
          },
        ]);
        metrics.unknowns.inc({ pair: ctx.label, resolution: 'not-executed' });
        resolved += 1;
      }
    }
    if (toQuery.length > 0) {
      // An order the exchange no longer knows (a record from another venue's run, or older than
      // it keeps) must not fail every sync: it is dropped as lost below.
      const found = await reads.queryKnown(toQuery.map((o) => o.txid as string));
      for (const rec of toQuery) {
        const o = found[rec.txid as string];
        if (o !== undefined) {
          await ctx.apply(
            viewOf(rec.txid as string, o, rec, ctx.id, ctx.now()),
            executedAtMs(o, ctx.now()),
          );
          if (inDoubt(rec)) metrics.unknowns.inc({ pair: ctx.label, resolution: 'queried' });
        } else {
          log.error(
            { txid: rec.txid, userref: rec.userref },
            'order unknown to the exchange; dropped as lost',
          );
          await ctx.persist([
            {
              ...rec,
              state: 'canceled',
              pendingCall: null,
              reason: 'lost',
              updatedAtMs: ctx.now(),
            },
          ]);
          if (inDoubt(rec)) metrics.unknowns.inc({ pair: ctx.label, resolution: 'lost' });
        }
        resolved += 1;
      }
    }
    return resolved;
  }

  /**
   * Executions of our orders between our last view and their cancel show only in ClosedOrders:
   * each full sync reads the orders closed since the previous one and lets the tracker record
   * what its history entries miss. The next one reads from when this read was asked.
   */
  async #settleRetired(notBefore: number): Promise<void> {
    const ctx = this.#ctx;
    const now = ctx.now();
    const since = this.#settledUntilMs ?? now - ctx.deps.config.reconcile_interval_ms;
    const read = await ctx.deps.reads.closedSince(since - CLOSED_LOOKBACK_MS, notBefore, now);
    const closed = read.orders;
    const views: TrackedOrder[] = [];
    const executedAt = new Map<string, number>();
    const foreign = new Map<string, ForeignClosed>();
    for (const [txid, o] of Object.entries(closed)) {
      if (!isPairOrder(o, ctx.deps.pair)) continue;
      if (o.userref === null || decodeUserref(o.userref)?.instance !== ctx.deps.instance) {
        foreign.set(txid, {
          canceled: o.status === 'canceled' || o.status === 'expired',
          openedAtMs: Math.round(o.opentm * 1000),
          closedAtMs: executedAtMs(o, ctx.now()),
        });
        continue;
      }
      if (ctx.orders.has(o.userref)) continue;
      views.push(viewOf(txid, o, undefined, ctx.id, ctx.now()));
      executedAt.set(txid, executedAtMs(o, ctx.now()));
    }
    const closedAt = (view: TrackedOrder): number => executedAt.get(view.txid ?? '') ?? ctx.now();
    const fills = await ctx.deps.tracker.settle(views, closedAt, ctx.deps.lease.fence);
    for (const fill of fills) ctx.noteFill(fill);
    ctx.cancelCharges.settleGone(views, closedAt);
    ctx.cancelCharges.settleForeign(foreign);
    this.#settledUntilMs = read.atMs;
  }

  async #cancelForeign(txids: readonly string[], open: Record<string, Order>): Promise<void> {
    const ctx = this.#ctx;
    const { client, ratecount, log } = ctx.deps;
    for (let i = 0; i < txids.length; i += 50) {
      const chunk = txids.slice(i, i + 50);
      const ages = chunk.map((t) => ctx.now() - Math.round((open[t]?.opentm ?? 0) * 1000));
      await ratecount.add(ctx.id, cancelBatchPenalty(ages, ctx.deps.limits.max), ctx.now());
      ctx.cancelCharges.foreignCancelled(chunk);
      const res = await client.cancelOrderBatch({ orders: chunk });
      log.warn(
        { count: res.result.count },
        'cancelled foreign orders of the key (foreign_orders: cancel)',
      );
    }
  }

  #dueOf(o: TrackedOrder): number {
    return o.deadlineMs + this.#ctx.deps.config.resolve_grace_ms;
  }

  #result(notDue: readonly TrackedOrder[], adopted: number, resolved: number): SyncResult {
    const dues = notDue.map((o) => this.#dueOf(o));
    return {
      waiting: notDue.length,
      nextDueMs: dues.length === 0 ? undefined : Math.min(...dues),
      adopted,
      resolved,
    };
  }
}

/**
 * A record whose call got no answer (or whose process died before recording one): only these
 * count in makerd_unknown_outcomes_total; a known order that left the book is no unknown outcome.
 */
function inDoubt(rec: TrackedOrder): boolean {
  return rec.state === 'unknown' || rec.state === 'pending-new';
}
