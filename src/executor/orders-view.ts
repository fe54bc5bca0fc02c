import { dec } from '../core/index.js';
import { endpoints, UnknownOrderError } from '../exchange/index.js';
import { executedAtMs, viewOf } from './exchange-orders.js';
import type { PairScope } from './pair-context.js';
import { retiredAsGone } from './records.js';
import type { TrackedOrder } from '../orders/types.js';

/**
 * Our fills between full syncs, from the runner's OpenOrders answers: the tracker is the one place
 * fills are derived, for strategies, PnL and metrics alike. For each order of ours resting on the
 * pair: still open in the newest view → its execution so far is applied (a partial fill); gone
 * from it → its final state comes from QueryOrders (filled, or cancelled with what executed).
 * Orders that opened too close to the view's call are left for the next view (it may predate
 * them); orders with a call in flight or in doubt are the unknown-outcome resolution's.
 */
/** What following the runner's orders view uses of its pair. */
export type ViewScope = PairScope<
  'apply' | 'id' | 'now' | 'orders' | 'persist',
  'bus' | 'config' | 'log' | 'reads'
>;

export class OrdersViewFollower {
  readonly #ctx: ViewScope;
  #appliedAtMs = 0;

  constructor(ctx: ViewScope) {
    this.#ctx = ctx;
  }

  /** Applies the newest view if this pair has not yet; returns how many orders left the book. */
  async follow(): Promise<number> {
    const ctx = this.#ctx;
    const stored = await ctx.deps.bus.readOrdersView();
    if (stored === undefined || stored.askedAtMs <= this.#appliedAtMs) return 0;
    this.#appliedAtMs = stored.askedAtMs;
    const { open } = endpoints.openOrders.decode({ open: stored.open }, undefined);
    const margin = ctx.deps.config.vanished_margin_ms;
    const gone: TrackedOrder[] = [];
    for (const rec of [...ctx.orders.values()]) {
      if (rec.txid === null || rec.pendingCall !== null || rec.openedAtMs <= 0) continue;
      if (rec.state !== 'open' && rec.state !== 'partially-filled') continue;
      if (rec.openedAtMs + margin > stored.askedAtMs) continue;
      const order = open[rec.txid];
      if (order === undefined) gone.push(rec);
      // Only a changed execution is written: most views find every order as it was.
      else if (!dec(order.vol_exec).eq(dec(rec.volumeExecuted)))
        await ctx.apply(
          viewOf(rec.txid, order, rec, ctx.id, ctx.now()),
          executedAtMs(order, ctx.now()),
        );
    }
    if (gone.length > 0) await this.#settle(gone);
    return gone.length;
  }

  async #settle(gone: readonly TrackedOrder[]): Promise<void> {
    const ctx = this.#ctx;
    let found: Awaited<ReturnType<typeof ctx.deps.reads.query>>;
    try {
      found = await ctx.deps.reads.query(gone.map((r) => r.txid as string));
    } catch (err) {
      if (!(err instanceof UnknownOrderError)) throw err;
      // The venue no longer describes one of them, and would refuse the same query every time:
      // retired now, their executions left to the full sync's ClosedOrders.
      ctx.deps.log.warn({ txids: gone.map((r) => r.txid) }, 'orders gone unqueryable: retired');
      await ctx.persist(gone.map((r) => retiredAsGone(r, ctx.now())));
      return;
    }
    for (const rec of gone) {
      const order = found[rec.txid as string];
      if (order !== undefined)
        await ctx.apply(
          viewOf(rec.txid as string, order, rec, ctx.id, ctx.now()),
          executedAtMs(order, ctx.now()),
        );
    }
  }
}
