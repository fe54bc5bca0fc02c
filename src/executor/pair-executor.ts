import type { OrderIntent } from '../core/index.js';
import { ExecutorError } from './errors.js';
import { OrderCalls } from './order-calls.js';
import { OrderSync } from './order-sync.js';
import type { PairContext } from './pair-context.js';
import { planCalls, type Plan, type PlannedCall } from './plan/index.js';

/** Plans are re-made at most this often when another process moved the ratecount meanwhile. */
const MAX_REPLANS = 3;

export interface DrainStats {
  readonly sent: number;
  readonly deferred: number;
  readonly dropped: number;
}

/**
 * One pair's order entry while this process holds its lease: drains the pair's intents into
 * planned calls, keeps unknown outcomes resolved and the records reconciled. Everything runs on
 * one promise chain, so the pair never has two drains, or a drain and a sync, at once.
 */
export class PairExecutor {
  readonly ctx: PairContext;
  readonly #calls: OrderCalls;
  readonly #sync: OrderSync;
  #chain: Promise<unknown> = Promise.resolve();
  #resolveTimer: NodeJS.Timeout | undefined;
  #reconcileTimer: NodeJS.Timeout | undefined;
  #stopped = false;
  /**
   * When the budget was due for intents deferred for it (slot#generation → epoch ms): their
   * tick-to-wire counts from then, not from their snapshot, since the wait was the exchange's.
   */
  readonly #budgetDue = new Map<string, number>();

  constructor(ctx: PairContext) {
    this.ctx = ctx;
    this.#calls = new OrderCalls(ctx);
    this.#sync = new OrderSync(ctx);
  }

  /** Loads the tracker's records, reconciles with the exchange, then drains what is pending. */
  async start(): Promise<void> {
    const { tracker } = this.ctx.deps;
    this.ctx.orders.clear();
    this.ctx.remember(await tracker.live(this.ctx.id));
    await this.#serial(() => this.#syncNow('all'));
    this.#reconcileTimer = setInterval(() => {
      void this.#serial(() => this.#syncNow('all')).then(() => this.drain());
    }, this.ctx.deps.config.reconcile_interval_ms);
    this.#reconcileTimer.unref();
    await this.drain();
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#resolveTimer);
    clearInterval(this.#reconcileTimer);
  }

  /** Waits for the drain or sync in progress. */
  idle(): Promise<unknown> {
    return this.#chain;
  }

  /** A full reconciliation now (start-up runs one; so does the periodic timer). */
  reconcile(): Promise<void> {
    return this.#serial(() => this.#syncNow('all'));
  }

  drain(): Promise<DrainStats | undefined> {
    return this.#serial(() => this.#drain());
  }

  #serial<T>(fn: () => Promise<T>): Promise<T | undefined> {
    const run = this.#chain.then(async () => {
      if (this.#stopped) return undefined;
      try {
        return await fn();
      } catch (err) {
        if (err instanceof ExecutorError && err.code === 'EXECUTOR_LEASE_LOST') throw err;
        this.ctx.deps.log.error(
          { err: err instanceof Error ? err.message : String(err) },
          'pair executor step failed',
        );
        return undefined;
      }
    });
    this.#chain = run.catch(() => undefined);
    return run;
  }

  async #syncNow(scope: 'unknowns' | 'all'): Promise<void> {
    this.ctx.assertHeld();
    const result = await this.#sync.run(scope);
    if (result.adopted > 0 || result.resolved > 0) {
      this.ctx.deps.log.info({ scope, ...result }, 'orders reconciled');
    }
    this.#armResolve();
    this.ctx.publishOrderGauges();
    await this.ctx.publishPosition();
  }

  /** A timer for the next record whose outcome can be resolved. */
  #armResolve(): void {
    clearTimeout(this.#resolveTimer);
    const due = this.#sync.dueAt();
    if (due === undefined || this.#stopped) return;
    this.#resolveTimer = setTimeout(
      () => {
        void this.#serial(() => this.#syncNow('unknowns')).then(() => this.drain());
      },
      Math.max(0, due - this.ctx.now()),
    );
    this.#resolveTimer.unref();
  }

  async #drain(): Promise<DrainStats> {
    const ctx = this.ctx;
    const { bus, ratecount, metrics, config, limits } = ctx.deps;
    ctx.assertHeld();
    const pair = ctx.id;
    let now = ctx.now();
    if (now < ctx.pausedUntilMs) {
      await bus.enqueue(pair, { delayMs: ctx.pausedUntilMs - now });
      return { sent: 0, deferred: 0, dropped: 0 };
    }
    if ((this.#sync.dueAt() ?? Infinity) <= now) await this.#syncNow('unknowns');

    const pending = await bus.pending(pair);
    if (pending.length === 0) return { sent: 0, deferred: 0, dropped: 0 };
    now = ctx.now();
    const expired = pending.filter((i) => i.deadlineMs <= now);
    const fresh = pending.filter((i) => i.deadlineMs > now);

    let plan: Plan | undefined;
    let level = await ratecount.level(pair, now);
    for (let attempt = 0; attempt < MAX_REPLANS; attempt++) {
      plan = this.#plan(fresh, level, now);
      if (plan.cost === 0) break;
      const limit = limits.max - config.headroom_points;
      const overBudget = plan.cost > limit - level;
      const reading = overBudget
        ? await ratecount.add(pair, plan.cost, now)
        : await ratecount.reserve(pair, plan.cost, limit, now);
      if (reading.ok) {
        metrics.ratecountLevel.set({ pair }, reading.level);
        break;
      }
      level = reading.level;
      plan = undefined;
    }
    if (plan === undefined) {
      await bus.enqueue(pair, { delayMs: 100 });
      return { sent: 0, deferred: fresh.length, dropped: 0 };
    }

    // Busy slots wait in the register for their order's resolution; the rest is taken.
    const dropped = plan.dropped.filter((d) => d.reason !== 'busy');
    const picks = [
      ...expired,
      ...dropped.map((d) => d.intent),
      ...plan.calls.flatMap((c) => intentsOf(c)),
    ].map((i) => ({ slot: i.slot, generation: i.generation }));
    const taken = new Set((await bus.takeSlots(pair, picks)).map(keyOf));
    const isTaken = (i: OrderIntent): boolean => taken.has(keyOf(i));
    for (const i of expired) if (isTaken(i)) metrics.intents.inc({ pair, outcome: 'expired' });
    for (const d of dropped)
      if (isTaken(d.intent)) metrics.intents.inc({ pair, outcome: d.reason });

    // A call whose intent was replaced between peek and take is not sent: the newer one waits.
    let refund = 0;
    let sent = 0;
    this.#calls.cancelled.clear();
    for (const call of plan.calls) {
      if (!intentsOf(call).every(isTaken) || !ctx.deps.lease.held()) {
        refund += call.cost;
        continue;
      }
      const freeAtMs = Math.max(
        0,
        ...intentsOf(call).map((i) => this.#budgetDue.get(keyOf(i)) ?? 0),
      );
      await this.#calls.run(call, freeAtMs);
      sent += intentsOf(call).length;
      for (const _ of intentsOf(call)) metrics.intents.inc({ pair, outcome: 'sent' });
    }
    if (refund > 0) await ratecount.refund(pair, refund, ctx.now());

    this.#budgetDue.clear();
    const retry = plan.retryInMs;
    for (const d of plan.deferred) {
      if (d.reason === 'budget' && retry !== undefined)
        this.#budgetDue.set(keyOf(d.intent), now + retry);
    }
    if (retry !== undefined) await bus.enqueue(pair, { delayMs: retry });
    else if (refund > 0 || ctx.now() < ctx.pausedUntilMs) {
      await bus.enqueue(pair, { delayMs: Math.max(0, ctx.pausedUntilMs - ctx.now()) });
    }
    this.#armResolve();
    ctx.publishOrderGauges();
    return { sent, deferred: plan.deferred.length, dropped: dropped.length };
  }

  #plan(intents: readonly OrderIntent[], level: number, now: number): Plan {
    const ctx = this.ctx;
    const { config, limits } = ctx.deps;
    return planCalls({
      nowMs: now,
      limits,
      level,
      headroom: config.headroom_points,
      openOrders: ctx.openCount(),
      mode: ctx.mode(),
      batch: { addMin: config.add_batch_min_orders, addMax: 15, cancelMax: 50 },
      work: intents.map((intent) => ({ intent, live: ctx.slotOrder(intent.slot) })),
    });
  }
}

function keyOf(i: OrderIntent): string {
  return `${i.slot}#${i.generation}`;
}

function intentsOf(call: PlannedCall): OrderIntent[] {
  switch (call.kind) {
    case 'CancelOrder':
    case 'EditOrder':
    case 'AddOrder':
      return [call.item.intent];
    case 'CancelOrderBatch':
    case 'AddOrderBatch':
      return call.items.map((i) => i.intent);
  }
}
