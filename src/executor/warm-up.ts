import { checkPublishInput, encodeBody } from '../bus/index.js';
import {
  encodeUserref,
  parseSlotKey,
  type DesiredOrder,
  type IntentAction,
  type IntentTarget,
  type OrderIntent,
  type PairInfo,
} from '../core/index.js';
import type { SpotClient } from '../exchange/index.js';
import type { MatchingEngineLimits } from '../exchange/limits/index.js';
import type { ExecutorConfig } from './config.js';
import { planCalls } from './plan/index.js';
import { openedRecord, pendingRecord } from './records.js';
import type { TrackedOrder } from './types.js';

/** Passes over the pure steps: enough for V8 to have compiled them and their inline caches. */
const ROUNDS = 30;

/**
 * Runs the pure steps of an order's way to the wire on made-up intents of `pair` before its first
 * real one: the bus's intent checks and encoding, the planner (a batch of places, edits and
 * cancels of resting orders) and the client's signing (SpotClient.warm: no nonce, nothing sent).
 * The first orders of a process otherwise run on code V8 has not compiled yet: in the benchmark
 * the first AddOrderBatch took 7-14 ms from its snapshot, against ~1 ms once warm, and the four
 * edits after it 5-9 ms. The made-up work has the shapes of the real (warmUpWork): with intents
 * lacking the runner's `ordersAsOfMs` and `depthSeen`, and records built as literals, the planner
 * compiled here was thrown away at the first real drain (`--trace-deopt`: planCalls and the
 * context's slotOrder, "wrong map"). Nothing here touches Redis, the tracker or the exchange.
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
  const plan = (work: { intent: OrderIntent; live: TrackedOrder | undefined }[]) =>
    planCalls({
      nowMs,
      limits,
      level: 0,
      headroom: config.headroom_points,
      openOrders: 0,
      mode: 'online',
      batch: { addMin: config.add_batch_min_orders, addMax: 15, cancelMax: 50 },
      work,
    });
  for (let round = 0; round < ROUNDS; round++) {
    for (const intent of [...places, ...amends, ...cancels]) encodeBody(intent);
    plan(places.map((intent) => ({ intent, live: undefined })));
    plan(amends.map((intent, i) => ({ intent, live: resting[i] })));
    plan(cancels.map((intent, i) => ({ intent, live: resting[i] })));
    client.warm();
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
  const desired = (slot: string, i: number, moved: number) => ({
    side: bid(slot) ? ('buy' as const) : ('sell' as const),
    price: `${bid(slot) ? 100 - i - moved : 101 + i + moved}.5`,
    volume: '0.01',
    postOnly: true,
  });
  const depthSeen = { asOfMs: nowMs, prices: Object.freeze(['100.5', '99.5']) };
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
