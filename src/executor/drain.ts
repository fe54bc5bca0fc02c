import type { OrderIntent } from '../core/index.js';
import type { OrderCalls } from './order-calls.js';
import type { PairScope } from './pair-context.js';
import { planCalls, type AddItem, type Plan, type PlannedCall } from './plan/index.js';
import { vanishedOrders } from './vanished.js';
import { keyOf, type WireTimes } from './wire-times.js';

export interface DrainResult {
  /** Intents whose calls were sent. */
  readonly sent: number;
  /** Intents left in the register for budget or the open-orders limit. */
  readonly deferred: number;
  /** Intents taken and never sent (expired, unchanged, gone, forbidden by the mode). */
  readonly dropped: number;
  /** When the first intent waiting for ratecount budget fits; undefined when none waits. */
  readonly retryAtMs: number | undefined;
  /** The intents it read from the register (`slot#generation`): what a job's record shows. */
  readonly read: readonly string[];
}

const NOTHING: DrainResult = { sent: 0, deferred: 0, dropped: 0, retryAtMs: undefined, read: [] };

/**
 * One drain of the pair's register: read the intents and the ratecount level, plan the cheapest
 * calls that fit (src/executor/plan), reserve their points and take their intents, then send them
 * and record every answer. What waits for budget stays in the register; the drain says when it
 * fits.
 */
/** What a drain uses of its pair: the register, the ratecount model, the records and gauges. */
export type DrainScope = PairScope<
  | 'id'
  | 'label'
  | 'mode'
  | 'now'
  | 'openCount'
  | 'orders'
  | 'persist'
  | 'publishOrderGauges'
  | 'refund'
  | 'slotOrder',
  'bus' | 'config' | 'limits' | 'metrics' | 'ratecount' | 'log'
>;

export class Drain {
  readonly #ctx: DrainScope;
  readonly #calls: OrderCalls;
  readonly #wire: WireTimes;

  constructor(ctx: DrainScope, calls: OrderCalls, wire: WireTimes) {
    this.#ctx = ctx;
    this.#calls = calls;
    this.#wire = wire;
  }

  async run(): Promise<DrainResult> {
    const ctx = this.#ctx;
    const { bus, ratecount, metrics, config, limits } = ctx.deps;
    const now = ctx.now();
    const [pending, reading] = await Promise.all([
      bus.pending(ctx.id),
      ratecount.level(ctx.id, now),
    ]);
    if (pending.length === 0) return NOTHING;
    const read = pending.map(keyOf);
    const expired = pending.filter((i) => i.deadlineMs <= now);
    const fresh = pending.filter((i) => i.deadlineMs > now);
    // Retired before planning, so the plan places their slots instead of amending them.
    await ctx.persist(vanishedOrders(ctx, fresh, now));

    const level = reading.level;
    const plan = this.#plan(fresh, level, now);
    const picked = [
      ...expired,
      ...plan.dropped.filter((d) => d.reason !== 'busy').map((d) => d.intent),
      ...plan.calls.flatMap(intentsOf),
    ];
    const limit = limits.max - config.headroom_points;
    // The points are reserved and the intents taken together: a newer publish for a slot keeps
    // its intent in the register (the old one is not taken and its call not sent), and points
    // another writer spent meanwhile (the supervisor's CancelAll) refuse the reserve.
    const [charged, took] = await Promise.all([
      plan.cost === 0
        ? undefined
        : plan.cost > limit - level
          ? // A batch cancel over the budget: the exchange accepts and charges it.
            ratecount.add(ctx.id, plan.cost, now)
          : ratecount.reserve(ctx.id, plan.cost, limit, now),
      bus.takeSlots(
        ctx.id,
        picked.map((i) => ({ slot: i.slot, generation: i.generation })),
      ),
    ]);
    if (charged !== undefined && !charged.ok) {
      await bus.restore(ctx.id, took);
      return { ...NOTHING, deferred: fresh.length, retryAtMs: now + charged.waitMs, read };
    }
    if (charged !== undefined) metrics.ratecountLevel.set({ pair: ctx.label }, charged.level);

    const taken = new Set(took.map(keyOf));
    const isTaken = (i: OrderIntent): boolean => taken.has(keyOf(i));
    const dropped = [
      ...expired.filter(isTaken).map((intent) => ({ intent, reason: 'expired' })),
      ...plan.dropped.filter((d) => d.reason !== 'busy' && isTaken(d.intent)),
    ];
    for (const d of dropped) metrics.intents.inc({ pair: ctx.label, outcome: d.reason });

    const sendable = plan.calls.filter((c) => intentsOf(c).every(isTaken));
    let refund = costOf(plan.calls.filter((c) => !sendable.includes(c)));
    // Cancels, edits and independent adds first; adds that replace a cancelled order after it.
    const first = sendable.filter((c) => !replaces(c));
    const outcomes = await this.#send(first);
    const cancelled = new Set(outcomes.flatMap((o) => o.cancelled));
    const then: PlannedCall[] = [];
    for (const call of sendable.filter(replaces)) {
      const kept = keepReplacing(call, cancelled);
      if (kept === undefined) refund += call.cost;
      else then.push(kept);
    }
    await this.#giveBackOrphans(sendable.filter(replaces), cancelled);
    outcomes.push(...(await this.#send(then)));
    refund += outcomes.reduce((sum, o) => sum + o.refund, 0);

    const waiting = plan.deferred.filter((d) => d.reason === 'budget').map((d) => d.intent);
    let retryAtMs = plan.retryInMs === undefined ? undefined : now + plan.retryInMs;
    if (retryAtMs !== undefined) this.#wire.deferred(waiting, retryAtMs);
    if (refund > 0) {
      await ctx.refund(refund);
      // Points came back ahead of plan: what waits for them may go now.
      this.#wire.released(ctx.now());
      if (retryAtMs !== undefined) retryAtMs = ctx.now();
    }
    ctx.publishOrderGauges();
    return {
      sent: [...first, ...then].reduce((n, c) => n + intentsOf(c).length, 0),
      deferred: plan.deferred.length,
      dropped: dropped.length,
      retryAtMs,
      read,
    };
  }

  async #send(
    calls: readonly PlannedCall[],
  ): Promise<{ refund: number; cancelled: readonly number[] }[]> {
    const ctx = this.#ctx;
    const { metrics } = ctx.deps;
    for (const call of calls) {
      metrics.ratecountPoints.inc({ pair: ctx.label, action: call.kind }, call.cost);
      metrics.intents.inc({ pair: ctx.label, outcome: 'sent' }, intentsOf(call).length);
    }
    return this.#calls.run(calls);
  }

  /**
   * Adds that were to replace an order whose cancel has an unknown outcome (no answer) were not
   * sent; their intents go back to the register, to be acted on once a query has settled the old
   * order (its slot is busy until then). A cancel the exchange refused keeps its order, and the
   * runner decides again from the next snapshot.
   */
  async #giveBackOrphans(
    calls: readonly PlannedCall[],
    cancelled: ReadonlySet<number>,
  ): Promise<void> {
    const ctx = this.#ctx;
    const orphans = calls
      .flatMap(addItemsOf)
      .filter(
        (i) =>
          i.replacing !== undefined &&
          !cancelled.has(i.replacing.userref) &&
          ctx.orders.get(i.replacing.userref)?.state === 'unknown',
      )
      .map((i) => i.intent);
    if (orphans.length > 0) await ctx.deps.bus.restore(ctx.id, orphans);
  }

  #plan(intents: readonly OrderIntent[], level: number, now: number): Plan {
    const ctx = this.#ctx;
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

function addItemsOf(call: PlannedCall): readonly AddItem[] {
  if (call.kind === 'AddOrder') return [call.item];
  return call.kind === 'AddOrderBatch' ? call.items : [];
}

/** Whether the call completes an amend done as cancel + add (it waits for the cancel). */
function replaces(call: PlannedCall): boolean {
  return addItemsOf(call).some((i) => i.replacing !== undefined);
}

/**
 * The call with only the adds whose replaced order was cancelled; undefined when none is left. A
 * batch that lost items keeps its reserved points: the model stays above the exchange's count.
 */
function keepReplacing(call: PlannedCall, cancelled: ReadonlySet<number>): PlannedCall | undefined {
  const ok = (i: AddItem): boolean =>
    i.replacing === undefined || cancelled.has(i.replacing.userref);
  if (call.kind === 'AddOrder') return ok(call.item) ? call : undefined;
  if (call.kind !== 'AddOrderBatch') return call;
  const items = call.items.filter(ok);
  if (items.length === 0) return undefined;
  return items.length === call.items.length ? call : { ...call, items };
}

function costOf(calls: readonly PlannedCall[]): number {
  return calls.reduce((sum, c) => sum + c.cost, 0);
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
