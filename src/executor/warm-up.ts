import { checkPublishInput, encodeBody } from '../bus/index.js';
import {
  Decimal,
  MakerdError,
  encodeUserref,
  parseSlotKey,
  type DesiredOrder,
  type IntentAction,
  type IntentTarget,
  type OrderIntent,
  type PairInfo,
  toWire,
} from '../core/index.js';
import { endpoints, type SpotClient } from '../exchange/index.js';
import type { MatchingEngineLimits } from '../exchange/limits/index.js';
import type { ExecutorConfig } from './config.js';
import {
  addFields,
  addOrderBatchRequest,
  addOrderRequest,
  editOrderRequest,
} from './order-requests.js';
import { planCalls, type PlannedCall } from './plan/index.js';
import { openedRecord, pendingRecord } from './records.js';
import type { TrackedOrder } from './types.js';

/** Passes over the pure steps: enough for V8 to have compiled them and their inline caches. */
const ROUNDS = 30;

/**
 * Runs the pure steps of an order's way to the wire on made-up intents of `pair` before its first
 * real one: the bus's intent checks and encoding, the planner (a batch of places and a single
 * one, edits, a batch of cancels and a single one) and the client's side of each planned call
 * (its checks against the pair's rules, the request's encoding and signing: SpotClient.rehearse,
 * no nonce, nothing sent). The first orders of a process otherwise run on code V8 has not
 * compiled yet: in the benchmark the first AddOrderBatch took 7-14 ms from its snapshot, against
 * ~1 ms once warm, and the four edits after it 5-9 ms; traced on 2026-11-23, the first edits spent
 * 0.45-4.2 ms between the plan and the nonce (the client's checks and request building, then not
 * rehearsed) against 0.15-0.2 ms once warm. The made-up work has the shapes of the real
 * (warmUpWork): with intents lacking the runner's `ordersAsOfMs` and `depthSeen`, and records
 * built as literals, the planner compiled here was thrown away at the first real drain
 * (`--trace-deopt`: planCalls and the context's slotOrder, "wrong map"). Nothing here touches
 * Redis, the tracker or the exchange.
 */
export function warmUp(opts: {
  readonly pair: PairInfo;
  readonly instance: number;
  readonly limits: MatchingEngineLimits;
  readonly config: ExecutorConfig;
  readonly client: SpotClient;
  readonly nowMs: number;
}): void {
  const { pair, instance, limits, config, client, nowMs } = opts;
  const { places, amends, cancels, resting } = warmUpWork(pair, instance, nowMs);
  const deadline = new Date(nowMs + config.deadline_ms).toISOString();
  const plan = (work: { intent: OrderIntent; live: TrackedOrder | undefined }[]): void => {
    const { calls } = planCalls({
      nowMs,
      limits,
      level: 0,
      headroom: config.headroom_points,
      openOrders: 0,
      mode: 'online',
      batch: { addMin: config.add_batch_min_orders, addMax: 15, cancelMax: 50 },
      work,
    });
    for (const call of calls) rehearse(client, pair.id, instance, call, deadline);
  };
  for (let round = 0; round < ROUNDS; round++) {
    for (const intent of [...places, ...amends, ...cancels]) encodeBody(intent);
    plan(places.map((intent) => ({ intent, live: undefined })));
    plan(places.slice(0, 1).map((intent) => ({ intent, live: undefined })));
    plan(amends.map((intent, i) => ({ intent, live: resting[i] })));
    plan(cancels.map((intent, i) => ({ intent, live: resting[i] })));
    plan(cancels.slice(0, 1).map((intent, i) => ({ intent, live: resting[i] })));
    client.warm();
  }
}

/** The client's side of a planned call, built as order-calls.ts builds it, up to the nonce. */
function rehearse(
  client: SpotClient,
  pairId: string,
  instance: number,
  call: PlannedCall,
  deadline: string,
): void {
  const userref = (intent: OrderIntent): number =>
    encodeUserref(instance, parseSlotKey(intent.slot), intent.generation);
  try {
    switch (call.kind) {
      case 'AddOrder':
        client.rehearse(
          endpoints.addOrder,
          addOrderRequest(pairId, addFields(userref(call.item.intent), call.item), deadline),
        );
        return;
      case 'AddOrderBatch':
        client.rehearse(
          endpoints.addOrderBatch,
          addOrderBatchRequest(
            pairId,
            call.items.map((item) => addFields(userref(item.intent), item)),
            deadline,
          ),
        );
        return;
      case 'EditOrder':
        client.rehearse(
          endpoints.editOrder,
          editOrderRequest(
            call.item.order.txid ?? '',
            pairId,
            call.item,
            userref(call.item.intent),
            deadline,
          ),
        );
        return;
      case 'CancelOrder':
        client.rehearse(endpoints.cancelOrder, { txid: call.item.order.txid ?? '' });
        return;
      case 'CancelOrderBatch':
        client.rehearse(endpoints.cancelOrderBatch, {
          orders: call.items.map((item) => item.order.txid ?? ''),
        });
        return;
    }
  } catch (err) {
    // The made-up orders are built to the pair's rules (warmUpWork); should a venue's rules still
    // refuse one (a typed error, as for a real order), its rehearsal stops at the check and
    // trading goes on. Anything else is a bug.
    if (!(err instanceof MakerdError)) throw err;
  }
}

/**
 * The made-up work, shaped as in trading: intents as the runner publishes them (with the open
 * orders' and the book's moments, through the bus's checks) and the generation the bus adds;
 * resting orders as records.ts builds them when an AddOrder is answered; amends that move them
 * and cancels that pull them.
 */
export function warmUpWork(
  pair: PairInfo,
  instance: number,
  nowMs: number,
): {
  places: OrderIntent[];
  amends: OrderIntent[];
  cancels: OrderIntent[];
  resting: TrackedOrder[];
} {
  const slots = ['bid:0', 'bid:1', 'ask:0', 'ask:1'];
  const bid = (slot: string): boolean => slot.startsWith('bid');
  const { price, volume } = madeUpOrders(pair);
  // Bids one and two ticks under the middle, asks three and four over; `moved` ticks further out.
  const desired = (slot: string, i: number, moved: number) => ({
    side: bid(slot) ? ('buy' as const) : ('sell' as const),
    price: price(bid(slot) ? -(1 + i + moved) : 1 + i + moved),
    volume,
    postOnly: true,
  });
  // The book shows the resting bids: their amends are edits, not orders found gone.
  const depthSeen = { asOfMs: nowMs, prices: Object.freeze([price(-1), price(-2)]) };
  const published = (
    drafts: {
      slot: string;
      action: IntentAction;
      desired?: DesiredOrder;
      target?: IntentTarget;
    }[],
    generation: number,
  ): OrderIntent[] =>
    checkPublishInput(
      drafts.map((d) => ({
        slot: d.slot,
        action: d.action,
        desired: d.desired,
        target: d.target,
        reason: { place: 'new', amend: 'moved', cancel: 'pulled:strategy' }[d.action],
        instance,
        pair: pair.id,
        createdAtMs: nowMs,
        deadlineMs: nowMs + 1_000,
        snapshotSeq: generation,
        snapshotAtMs: nowMs,
        ordersAsOfMs: nowMs,
        ...(d.action === 'cancel' ? {} : { depthSeen }),
      })),
    ).map((intent) => ({ ...intent, generation }));
  const places = published(
    slots.map((slot, i) => ({ slot, action: 'place', desired: desired(slot, i, 0) })),
    1,
  );
  const openedAtMs = nowMs - 60_000;
  const resting = places.map((intent, i) =>
    openedRecord(
      pendingRecord(
        pair.id,
        intent,
        encodeUserref(instance, parseSlotKey(intent.slot), intent.generation),
        desired(intent.slot, i, 0),
        openedAtMs,
        openedAtMs + 1_000,
      ),
      `OWARM${i}-WARM0-WARM00`,
      openedAtMs,
    ),
  );
  const targetOf = (o: TrackedOrder): IntentTarget => ({
    txid: o.txid ?? '',
    userref: o.userref,
    price: o.price,
    volume: o.volume,
    volumeExecuted: o.volumeExecuted,
    openedAtMs: o.openedAtMs,
  });
  const amends = published(
    resting.map((o, i) => ({
      slot: o.slot,
      action: 'amend',
      desired: desired(o.slot, i, 1),
      target: targetOf(o),
    })),
    2,
  );
  const cancels = published(
    resting.map((o) => ({ slot: o.slot, action: 'cancel', target: targetOf(o) })),
    3,
  );
  return { places, amends, cancels, resting };
}

/**
 * Prices and a volume the pair's rules accept, so each rehearsal runs the client's checks to the
 * end: prices on the tick grid around 100 000 ticks, the volume at the order minimum or, where
 * the cost minimum asks for more at a price below every made-up one, that volume rounded up to
 * the lot.
 */
function madeUpOrders(pair: PairInfo): { price: (ticks: number) => string; volume: string } {
  const middle = 100_000;
  const price = (ticks: number): string => toWire(pair.tickSize.times(middle + ticks));
  const forCost =
    pair.costMin === undefined
      ? pair.orderMin
      : pair.costMin
          .div(pair.tickSize.times(middle - 10))
          .toDecimalPlaces(pair.lotDecimals, Decimal.ROUND_UP);
  return { price, volume: toWire(Decimal.max(forCost, pair.orderMin)) };
}
