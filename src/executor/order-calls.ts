import { encodeUserref, parseSlotKey, type OrderIntent } from '../core/index.js';
import type { CallOptions } from '../exchange/index.js';
import { errorLabel } from './metrics.js';
import { classifyFailure, pointsBack, type Failure } from './outcome.js';
import { MODE_HOLD_MS, type PairContext, type WireStart } from './pair-context.js';
import type { AddItem, CancelItem, EditItem, PlannedCall } from './plan/index.js';
import {
  addFields,
  addOrderBatchRequest,
  addOrderRequest,
  editOrderRequest,
} from './order-requests.js';
import { openedRecord, pendingRecord, retiredAsGone } from './records.js';
import type { TrackedOrder } from './types.js';

/** A call that waited longer than this in its lane gets a fresh deadline before it goes. */
const QUEUED_MS = 100;

/** A planned call made ready: the records to write before it is sent, and its sending. */
export interface ReadyCall {
  readonly call: PlannedCall;
  /** Write-ahead records: persisted (for all ready calls at once) before any is sent. */
  readonly records: readonly TrackedOrder[];
  /**
   * Sends it and records the outcome; `start` is where its tick-to-wire counts from if not from
   * its snapshots (the budget due, a retry's answer), and nothing leaves before `journaled` (the
   * write of `records`) has resolved.
   */
  send(start: WireStart, journaled: Promise<unknown>): Promise<void>;
}

/**
 * Runs planned calls and moves the records they touch through their states. The record of an
 * order is written before its call is sent (write-ahead: a crash mid-call leaves a `pending-new`
 * or a `pendingCall` the next owner resolves by query), and every call carries a `deadline` so an
 * unanswered one is known dead soon after. The points of a call the exchange refused are given
 * back: a refusal is not charged (the penalties are for orders added, edited or cancelled).
 */
export class OrderCalls {
  readonly #ctx: PairContext;

  constructor(ctx: PairContext) {
    this.#ctx = ctx;
  }

  /** Userrefs of orders a cancel of this plan removed: their replacements may go out. */
  readonly cancelled = new Set<number>();

  /** Whether the call completes an amend done as cancel + add (it waits for the cancel). */
  static replaces(call: PlannedCall): boolean {
    return (
      (call.kind === 'AddOrder' && call.item.replacing !== undefined) ||
      (call.kind === 'AddOrderBatch' && call.items.some((i) => i.replacing !== undefined))
    );
  }

  /**
   * Builds the call's records and sender; undefined when nothing is left to send (every add of
   * it replaced an order whose cancel failed).
   */
  prepare(call: PlannedCall): ReadyCall | undefined {
    switch (call.kind) {
      case 'CancelOrder':
        return this.#cancel(call, [call.item]);
      case 'CancelOrderBatch':
        return this.#cancel(call, call.items);
      case 'EditOrder':
        return this.#edit(call, call.item);
      case 'AddOrder':
      case 'AddOrderBatch': {
        const items = (call.kind === 'AddOrder' ? [call.item] : call.items).filter(
          (i) => i.replacing === undefined || this.cancelled.has(i.replacing.userref),
        );
        if (items.length === 0) return undefined;
        return this.#add(call, items);
      }
    }
  }

  // ---- add ------------------------------------------------------------------------------------

  #add(call: PlannedCall, items: readonly AddItem[]): ReadyCall {
    const ctx = this.#ctx;
    const { client, instance } = ctx.deps;
    const single = items.length === 1;
    const sentAtMs = ctx.now();
    const deadlineMs = sentAtMs + ctx.deps.config.deadline_ms;
    let records = items.map((item) => {
      const userref = encodeUserref(
        instance,
        parseSlotKey(item.intent.slot),
        item.intent.generation,
      );
      return pendingRecord(ctx.id, item.intent, userref, item, sentAtMs, deadlineMs);
    });
    const fields = items.map((item, i) => addFields((records[i] as TrackedOrder).userref, item));
    const action = single ? 'AddOrder' : 'AddOrderBatch';
    const send = async (start: WireStart, journaled: Promise<unknown>): Promise<void> => {
      records = await this.#fresh(records);
      const deadline = new Date((records[0] as TrackedOrder).deadlineMs).toISOString();
      try {
        if (single) {
          const f = fields[0] as (typeof fields)[number];
          const res = await this.#wire(action, items, start, journaled, (o) =>
            client.addOrder(addOrderRequest(ctx.id, f, deadline), o),
          );
          const txid = res.result.txid?.[0];
          const rec = records[0] as TrackedOrder;
          if (txid === undefined) await this.#unknown([rec], action, 'no txid in answer');
          else await this.#opened(rec, txid, action);
          return;
        }
        const res = await this.#wire(action, items, start, journaled, (o) =>
          client.addOrderBatch(addOrderBatchRequest(ctx.id, fields, deadline), o),
        );
        const answers = res.result.orders;
        for (const [i, rec] of records.entries()) {
          const answer = answers[i] as { txid?: unknown; error?: unknown } | undefined;
          if (typeof answer?.txid === 'string') await this.#opened(rec, answer.txid, action);
          else if (typeof answer?.error === 'string') {
            await this.#failed([rec], action, {
              kind: 'rejected',
              reason: answer.error,
              then: 'drop',
            });
          } else await this.#unknown([rec], action, 'batch answer without txid');
        }
      } catch (err) {
        await this.#refused(call, records, action, classifyFailure(err));
      }
    };
    return { call, records, send };
  }

  async #opened(rec: TrackedOrder, txid: string, action: string): Promise<void> {
    const ctx = this.#ctx;
    ctx.deps.metrics.actions.inc({ pair: ctx.label, action, outcome: 'ok' });
    await ctx.persist([openedRecord(rec, txid, ctx.now())]);
  }

  // ---- edit -----------------------------------------------------------------------------------

  #edit(call: PlannedCall, item: EditItem): ReadyCall {
    const ctx = this.#ctx;
    const { client, instance } = ctx.deps;
    const orig = item.order;
    const sentAtMs = ctx.now();
    const deadlineMs = sentAtMs + ctx.deps.config.deadline_ms;
    const userref = encodeUserref(instance, parseSlotKey(item.intent.slot), item.intent.generation);
    let next: TrackedOrder = {
      ...pendingRecord(
        ctx.id,
        item.intent,
        userref,
        { ...item, side: orig.side },
        sentAtMs,
        deadlineMs,
      ),
      volume: item.volume,
      volumeExecuted: orig.volumeExecuted,
      cost: orig.cost,
      fee: orig.fee,
      feeIn: orig.feeIn,
      pendingCall: 'edit',
      replaces: orig.txid,
    };
    let origSent: TrackedOrder = { ...orig, pendingCall: 'edit', sentAtMs, deadlineMs };
    const send = async (start: WireStart, journaled: Promise<unknown>): Promise<void> => {
      [origSent, next] = (await this.#fresh([origSent, next])) as [TrackedOrder, TrackedOrder];
      try {
        const res = await this.#wire('EditOrder', [item], start, journaled, (o) =>
          client.editOrder(
            editOrderRequest(
              orig.txid as string,
              ctx.id,
              item,
              userref,
              new Date(next.deadlineMs).toISOString(),
            ),
            o,
          ),
        );
        const txid = res.result.txid;
        if (txid === undefined) {
          await this.#unknown([origSent, next], 'EditOrder', 'no txid in answer');
          return;
        }
        ctx.deps.metrics.actions.inc({ pair: ctx.label, action: 'EditOrder', outcome: 'ok' });
        const now = ctx.now();
        await ctx.persist([
          {
            ...origSent,
            state: 'canceled',
            pendingCall: null,
            reason: 'replaced',
            updatedAtMs: now,
          },
          openedRecord(next, txid, now),
        ]);
      } catch (err) {
        const answeredAtMs = ctx.now();
        const failure = classifyFailure(err);
        if (failure.kind === 'unknown') {
          await this.#failed([origSent, next], 'EditOrder', failure);
          return;
        }
        // Refused: the replacement never existed, and the original is as it was, or gone.
        if (failure.then !== 'gone') {
          await this.#refused(call, [next], 'EditOrder', failure, [
            { ...orig, updatedAtMs: ctx.now() },
          ]);
          return;
        }
        // Gone: not on the book (filled or cancelled since our last view), so the slot is free
        // now; the intent goes back to the register and is placed by the drain the restore wakes:
        // both records are in memory by then (written early), and the writes leave together
        // (one round trip for the restore, not four in a row). What the order executed is
        // recorded by the next full sync, from ClosedOrders (settleRetired).
        ctx.noteRetry(item.intent, answeredAtMs);
        await Promise.all([
          this.#refused(call, [next], 'EditOrder', failure, [retiredAsGone(orig, ctx.now())]),
          ctx.deps.bus.restore(ctx.id, [item.intent]),
        ]);
      }
    };
    return { call, records: [origSent, next], send };
  }

  // ---- cancel ---------------------------------------------------------------------------------

  #cancel(call: PlannedCall, items: readonly CancelItem[]): ReadyCall {
    const ctx = this.#ctx;
    const { client } = ctx.deps;
    const kind = call.kind;
    const sentAtMs = ctx.now();
    const deadlineMs = sentAtMs + ctx.deps.config.deadline_ms;
    let sent = items.map((i): TrackedOrder => ({
      ...i.order,
      pendingCall: 'cancel',
      sentAtMs,
      deadlineMs,
    }));
    const txids = sent.map((o) => o.txid as string);
    const send = async (start: WireStart, journaled: Promise<unknown>): Promise<void> => {
      sent = await this.#fresh(sent);
      try {
        const res = await this.#wire(kind, items, start, journaled, (o) =>
          kind === 'CancelOrder'
            ? client.cancelOrder({ txid: txids[0] as string }, o)
            : client.cancelOrderBatch({ orders: txids }, o),
        );
        if (res.result.count === sent.length) {
          ctx.deps.metrics.actions.inc({ pair: ctx.label, action: kind, outcome: 'ok' });
          const now = ctx.now();
          await ctx.persist(
            sent.map((o) => ({
              ...o,
              state: 'canceled' as const,
              pendingCall: null,
              reason: 'cancelled',
              updatedAtMs: now,
            })),
          );
          for (const o of sent) this.cancelled.add(o.userref);
          return;
        }
        // Fewer than asked: some were filled or gone already. Which ones, a query says.
        ctx.deps.metrics.actions.inc({ pair: ctx.label, action: kind, outcome: 'partial' });
        await ctx.persist(sent.map((o) => ({ ...o, state: 'unknown' as const, deadlineMs: 0 })));
      } catch (err) {
        const failure = classifyFailure(err);
        await this.#refused(call, sent, kind, failure);
        if (failure.kind === 'rejected' && failure.then === 'gone') {
          // Not on the book any more: what the cancel wanted. Executions are settled later.
          await ctx.persist(sent.map((o) => retiredAsGone(o, ctx.now())));
          for (const o of sent) this.cancelled.add(o.userref);
        } else if (failure.kind === 'rejected') {
          await ctx.persist(sent.map((o) => ({ ...o, pendingCall: null })));
        }
      }
    };
    return { call, records: sent, send };
  }

  // ---- shared ---------------------------------------------------------------------------------

  /** Sends with our own timeout, measuring tick-to-wire and the intent's wait. */
  #wire<T>(
    action: string,
    items: readonly { readonly intent: OrderIntent }[],
    start: WireStart,
    gate: Promise<unknown>,
    send: (options: CallOptions) => Promise<T>,
  ): Promise<T> {
    const ctx = this.#ctx;
    const { metrics, config, clock } = ctx.deps;
    // A timer cleared when the call settles: AbortSignal.timeout's fires for every call, answered
    // or not, and builds a DOMException with a stack trace each time, on whatever tick it lands.
    const timeout = new AbortController();
    const timer = setTimeout(() => {
      timeout.abort(
        new DOMException(`no answer within ${config.request_timeout_ms} ms`, 'TimeoutError'),
      );
    }, config.request_timeout_ms);
    timer.unref();
    // Stamped once the request is written to the socket; observed once the call is over, off the
    // path to the wire.
    let atMs: number | undefined;
    const onWritten = (): void => {
      atMs = clock.now();
    };
    const observe = (): void => {
      if (atMs === undefined) return;
      for (const { intent } of items) {
        // A due still ahead (the budget freed early, a refund) gives no credit: from snapshot.
        const credited = start.atMs <= atMs && start.atMs > intent.snapshotAtMs;
        const tickToWireMs = Math.max(0, atMs - (credited ? start.atMs : intent.snapshotAtMs));
        const intentAgeMs = Math.max(0, atMs - intent.createdAtMs);
        metrics.tickToWire.observe({ pair: ctx.label }, tickToWireMs / 1000);
        metrics.intentWait.observe({ pair: ctx.label }, intentAgeMs / 1000);
        ctx.deps.onWire?.({
          pair: ctx.id,
          action,
          tickToWireMs,
          from: credited ? start.from : 'snapshot',
          intentAgeMs,
          writtenAtMs: atMs,
        });
      }
    };
    return send({ signal: timeout.signal, gate, onWritten }).finally(() => {
      clearTimeout(timer);
      observe();
    });
  }

  /**
   * A call's records as it leaves its lane: one that waited there (behind max_calls_in_flight)
   * is stamped sent now, with a deadline from now, and journaled again, so the exchange gets a
   * deadline it accepts and the record never says the deadline passed before it has.
   */
  async #fresh(records: TrackedOrder[]): Promise<TrackedOrder[]> {
    const ctx = this.#ctx;
    const now = ctx.now();
    const first = records[0];
    if (first === undefined || now - first.sentAtMs <= QUEUED_MS) return records;
    const out = records.map((r) => ({
      ...r,
      sentAtMs: now,
      deadlineMs: now + ctx.deps.config.deadline_ms,
      updatedAtMs: now,
    }));
    await ctx.journal(out);
    return out;
  }

  /**
   * A call that failed as a whole: its records' outcome (with `also`, records it settled, in the
   * same write), and its points back if refused.
   */
  async #refused(
    call: PlannedCall,
    records: readonly TrackedOrder[],
    action: string,
    failure: Failure,
    also: readonly TrackedOrder[] = [],
  ): Promise<void> {
    // Together: points waiting intents may need, and records the next drain reads.
    await Promise.all([
      this.#failed(records, action, failure, also),
      pointsBack(failure) && call.cost > 0 ? this.#ctx.refund(call.cost) : undefined,
    ]);
  }

  async #unknown(records: readonly TrackedOrder[], action: string, reason: string): Promise<void> {
    await this.#failed(records, action, { kind: 'unknown', reason });
  }

  async #failed(
    records: readonly TrackedOrder[],
    action: string,
    failure: Failure,
    also: readonly TrackedOrder[] = [],
  ): Promise<void> {
    const ctx = this.#ctx;
    const { metrics, log, ratecount } = ctx.deps;
    const now = ctx.now();
    if (failure.kind === 'unknown') {
      metrics.actions.inc({ pair: ctx.label, action, outcome: 'unknown' });
      log.warn(
        { action, reason: failure.reason, orders: records.length },
        'order-entry outcome unknown',
      );
      await ctx.persist(
        records.map((r) => ({ ...r, state: 'unknown' as const, updatedAtMs: now })),
      );
      return;
    }
    if (failure.then === 'unsent') {
      metrics.actions.inc({ pair: ctx.label, action, outcome: 'not_sent' });
      log.info({ action, reason: failure.reason }, 'order entry not sent');
    } else {
      metrics.actions.inc({ pair: ctx.label, action, outcome: 'rejected' });
      metrics.rejections.inc({ pair: ctx.label, error: errorLabel(failure.reason) });
      log.warn({ action, error: failure.reason }, 'order entry refused');
    }
    const placed = records.filter((r) => r.state === 'pending-new');
    // In memory at once, so the next drain sees the slot as it is now (free, or the original's).
    await ctx.persist(
      [
        ...placed.map((r) => ({
          ...r,
          state: 'rejected' as const,
          pendingCall: null,
          reason: failure.reason,
          updatedAtMs: now,
        })),
        ...also,
      ],
      true,
    );
    switch (failure.then) {
      case 'mode':
        ctx.learnedMode = failure.reason.includes('cancel_only') ? 'cancel_only' : 'post_only';
        ctx.modeUntilMs = now + MODE_HOLD_MS;
        break;
      case 'ratecount':
        // Our model was behind the exchange's: take its word and start from full.
        metrics.ratecountLevel.set({ pair: ctx.label }, (await ratecount.fill(ctx.id, now)).level);
        break;
      case 'wait':
        ctx.pausedUntilMs = Math.max(ctx.pausedUntilMs, failure.untilMs ?? now + 1_000);
        break;
      default:
        break;
    }
  }
}
