import { encodeUserref, parseSlotKey } from '../core/index.js';
import { callTimes, sendCall } from './call-send.js';
import { recordFailure } from './failures.js';
import {
  addFields,
  addOrderBatchRequest,
  addOrderRequest,
  editOrderRequest,
} from './order-requests.js';
import { classifyFailure, pointsBack, type Failure } from './outcome.js';
import type { PairScope } from './pair-context.js';
import type { SendScope } from './call-send.js';
import type { FailureScope } from './failures.js';
import type { AddItem, CancelItem, EditItem, PlannedCall } from './plan/index.js';
import { openedRecord, pendingRecord, retiredAsGone } from './records.js';
import type { TrackedOrder } from '../orders/types.js';
import type { WireTimes } from './wire-times.js';

/** What a call's outcome asks of the drain that sent it. */
export interface CallOutcome {
  /** Ratecount points to give back: the call was refused before the matching engine. */
  readonly refund: number;
  /** Userrefs of the orders it took off the book: their replacement adds may go. */
  readonly cancelled: readonly number[];
}

interface ReadyCall {
  /** Written before the call is sent (write-ahead), with its `deadline`. */
  readonly records: readonly TrackedOrder[];
  send(): Promise<CallOutcome>;
}

const DONE: CallOutcome = { refund: 0, cancelled: [] };

/**
 * Runs planned calls and moves the records they touch through their states. The record of an
 * order is written before its call is sent (write-ahead: a crash mid-call leaves a `pending-new`
 * or a `pendingCall` the next owner resolves by query), and every call carries a `deadline` so an
 * unanswered one is known dead soon after.
 */
/** What the order calls use of their pair: the client, the records, the bus to restore. */
export type CallsScope = SendScope &
  FailureScope &
  PairScope<
    'id' | 'label' | 'now' | 'persist',
    'client' | 'instance' | 'config' | 'metrics' | 'bus'
  >;

export class OrderCalls {
  readonly #ctx: CallsScope;
  readonly #wire: WireTimes;

  constructor(ctx: CallsScope, wire: WireTimes) {
    this.#ctx = ctx;
    this.#wire = wire;
  }

  /**
   * Sends the calls in plan order, max_calls_in_flight at a time: the records of a group are
   * written in one tracker transaction just before its calls leave together (so each `deadline`
   * counts from its own send), and every answer is recorded. Resolves once every outcome is
   * recorded; a failure (Redis away) is thrown after the other calls had their turn.
   */
  async run(calls: readonly PlannedCall[]): Promise<CallOutcome[]> {
    const width = this.#ctx.deps.config.max_calls_in_flight;
    const outcomes: CallOutcome[] = [];
    let failure: { reason: unknown } | undefined;
    for (let i = 0; i < calls.length; i += width) {
      const settled = await this.#group(calls.slice(i, i + width));
      for (const s of settled) {
        if (s.status === 'fulfilled') outcomes.push(s.value);
        else failure ??= { reason: s.reason };
      }
    }
    if (failure !== undefined) throw failure.reason;
    return outcomes;
  }

  async #group(calls: readonly PlannedCall[]): Promise<PromiseSettledResult<CallOutcome>[]> {
    const ready = calls.map((call) => this.#prepare(call));
    try {
      await this.#ctx.persist(ready.flatMap((r) => r.records));
    } catch (reason) {
      return calls.map(() => ({ status: 'rejected', reason }));
    }
    return Promise.allSettled(ready.map((r) => r.send()));
  }

  #prepare(call: PlannedCall): ReadyCall {
    switch (call.kind) {
      case 'CancelOrder':
        return this.#cancel(call, [call.item]);
      case 'CancelOrderBatch':
        return this.#cancel(call, call.items);
      case 'EditOrder':
        return this.#edit(call, call.item);
      case 'AddOrder':
        return this.#add(call, [call.item]);
      case 'AddOrderBatch':
        return this.#add(call, call.items);
    }
  }

  #add(call: PlannedCall, items: readonly AddItem[]): ReadyCall {
    const ctx = this.#ctx;
    const { client, instance } = ctx.deps;
    const times = callTimes(this.#ctx);
    const { sentAtMs, deadlineMs, deadline } = times;
    const records = items.map((item) => {
      const slot = parseSlotKey(item.intent.slot);
      const userref = encodeUserref(instance, slot, item.intent.generation);
      return pendingRecord(ctx.id, item.intent, userref, item, sentAtMs, deadlineMs);
    });
    const fields = items.map((item, i) => addFields((records[i] as TrackedOrder).userref, item));
    const single = items.length === 1;
    const action = single ? 'AddOrder' : 'AddOrderBatch';
    const send = async (): Promise<CallOutcome> => {
      try {
        if (single) {
          const res = await sendCall(
            this.#ctx,
            this.#wire,
            action,
            items,
            (o) =>
              client.addOrder(
                addOrderRequest(ctx.id, fields[0] as (typeof fields)[0], deadline),
                o,
              ),
            times,
          );
          const txid = res.result.txid?.[0];
          const rec = records[0] as TrackedOrder;
          if (txid === undefined)
            await recordFailure(this.#ctx, [rec], action, unknown('no txid in answer'));
          else await this.#opened(rec, txid, action);
          return DONE;
        }
        const res = await sendCall(
          this.#ctx,
          this.#wire,
          action,
          items,
          (o) => client.addOrderBatch(addOrderBatchRequest(ctx.id, fields, deadline), o),
          times,
        );
        for (const [i, rec] of records.entries()) {
          const answer = res.result.orders[i] as { txid?: unknown; error?: unknown } | undefined;
          if (typeof answer?.txid === 'string') await this.#opened(rec, answer.txid, action);
          else if (typeof answer?.error === 'string') {
            await recordFailure(this.#ctx, [rec], action, {
              kind: 'rejected',
              reason: answer.error,
              then: 'drop',
            });
          } else
            await recordFailure(this.#ctx, [rec], action, unknown('batch answer without txid'));
        }
        return DONE;
      } catch (err) {
        return this.#refused(call.cost, records, action, classifyFailure(err));
      }
    };
    return { records, send };
  }

  async #opened(rec: TrackedOrder, txid: string, action: string): Promise<void> {
    const ctx = this.#ctx;
    ctx.deps.metrics.actions.inc({ pair: ctx.label, action, outcome: 'ok' });
    await ctx.persist([openedRecord(rec, txid, ctx.now())]);
  }

  #edit(call: PlannedCall, item: EditItem): ReadyCall {
    const ctx = this.#ctx;
    const { client, instance } = ctx.deps;
    const orig = item.order;
    const times = callTimes(this.#ctx);
    const { sentAtMs, deadlineMs, deadline } = times;
    const userref = encodeUserref(instance, parseSlotKey(item.intent.slot), item.intent.generation);
    const next: TrackedOrder = {
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
    const origSent: TrackedOrder = { ...orig, pendingCall: 'edit', sentAtMs, deadlineMs };
    const send = async (): Promise<CallOutcome> => {
      try {
        const res = await sendCall(
          this.#ctx,
          this.#wire,
          'EditOrder',
          [item],
          (o) =>
            client.editOrder(
              editOrderRequest(orig.txid as string, ctx.id, item, userref, deadline),
              o,
            ),
          times,
        );
        const txid = res.result.txid;
        if (txid === undefined) {
          await recordFailure(
            this.#ctx,
            [origSent, next],
            'EditOrder',
            unknown('no txid in answer'),
          );
          return DONE;
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
        return DONE;
      } catch (err) {
        const failure = classifyFailure(err);
        if (failure.kind === 'unknown') {
          await recordFailure(this.#ctx, [origSent, next], 'EditOrder', failure);
          return DONE;
        }
        if (failure.then !== 'gone') {
          // Refused: the replacement never existed, and the original is as it was.
          return this.#refused(call.cost, [next], 'EditOrder', failure, [
            { ...orig, updatedAtMs: ctx.now() },
          ]);
        }
        // Gone (filled or cancelled since our last view): the slot is free, and the intent goes
        // back to the register to be placed by the next drain. What the order executed is
        // recorded by the next full sync, from ClosedOrders.
        const outcome = await this.#refused(call.cost, [next], 'EditOrder', failure, [
          retiredAsGone(orig, ctx.now()),
        ]);
        this.#wire.retry(item.intent, ctx.now());
        await ctx.deps.bus.restore(ctx.id, [item.intent]);
        return outcome;
      }
    };
    return { records: [origSent, next], send };
  }

  #cancel(call: PlannedCall, items: readonly CancelItem[]): ReadyCall {
    const ctx = this.#ctx;
    const { client } = ctx.deps;
    const kind = call.kind === 'CancelOrder' ? 'CancelOrder' : 'CancelOrderBatch';
    const { sentAtMs, deadlineMs } = callTimes(this.#ctx);
    const sent = items.map((i): TrackedOrder => ({
      ...i.order,
      pendingCall: 'cancel',
      sentAtMs,
      deadlineMs,
    }));
    const txids = sent.map((o) => o.txid as string);
    const send = async (): Promise<CallOutcome> => {
      try {
        const res = await sendCall(this.#ctx, this.#wire, kind, items, (o) =>
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
          return { refund: 0, cancelled: sent.map((o) => o.userref) };
        }
        // Fewer than asked: some were filled or gone already. Which ones, a query says.
        ctx.deps.metrics.actions.inc({ pair: ctx.label, action: kind, outcome: 'partial' });
        await ctx.persist(sent.map((o) => ({ ...o, state: 'unknown' as const, deadlineMs: 0 })));
        return DONE;
      } catch (err) {
        const failure = classifyFailure(err);
        if (failure.kind === 'rejected' && failure.then === 'gone') {
          // Not on the book any more: what the cancel wanted. Executions are settled later.
          const gone = sent.map((o) => retiredAsGone(o, ctx.now()));
          const outcome = await this.#refused(call.cost, [], kind, failure, gone);
          return { ...outcome, cancelled: sent.map((o) => o.userref) };
        }
        const kept =
          failure.kind === 'rejected' ? sent.map((o) => ({ ...o, pendingCall: null })) : [];
        return this.#refused(
          call.cost,
          failure.kind === 'rejected' ? [] : sent,
          kind,
          failure,
          kept,
        );
      }
    };
    return { records: sent, send };
  }

  /** A call that failed as a whole: its outcome recorded, and its points back when refused early. */
  async #refused(
    cost: number,
    records: readonly TrackedOrder[],
    action: string,
    failure: Failure,
    also: readonly TrackedOrder[] = [],
  ): Promise<CallOutcome> {
    await recordFailure(this.#ctx, records, action, failure, also);
    return { refund: pointsBack(failure) ? cost : 0, cancelled: [] };
  }
}

function unknown(reason: string): Failure {
  return { kind: 'unknown', reason };
}
