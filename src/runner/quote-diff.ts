/**
 * Desired quotes vs our live orders, slot by slot: the smallest set of place/amend/cancel intents
 * that makes the book look like the strategy wants. Tolerances keep a live order that is close
 * enough, because every amend costs ratecount and loses queue priority.
 */
import { Decimal, toWire } from '../core/decimal.js';
import { slotKey, type DesiredOrder, type IntentTarget, type OrderIntent } from '../core/intent.js';
import type { OwnOrder } from '../core/market.js';
import { queueCostBps, type QueueContext } from './queue-refresh.js';
import type { RoundedQuote } from './quote-rounding.js';

/** An intent before the bus and the runner fill in identity, timing and snapshot fields. */
export type IntentDraft = Omit<
  OrderIntent,
  | 'generation'
  | 'instance'
  | 'createdAtMs'
  | 'deadlineMs'
  | 'snapshotSeq'
  | 'snapshotAtMs'
  | 'ordersAsOfMs'
  | 'depthSeen'
  | 'pair'
>;

export interface DiffDefaults {
  readonly priceBps: number;
  readonly volumeFraction: number;
  /** 0 turns age-based replacement off. */
  readonly maxAgeMs: number;
}

export interface DiffInput {
  /** Output of roundQuotes: at most one per slot, positive price and volume. */
  readonly desired: readonly RoundedQuote[];
  /** Our orders in this pair; orders without a decoded slot are foreign and ignored. */
  readonly live: readonly OwnOrder[];
  readonly nowMs: number;
  readonly defaults: DiffDefaults;
  /** Reason on cancels of slots the strategy no longer wants; default `pulled:strategy`. */
  readonly reasonForMissing?: string;
  /** For quotes that value their queue place (queue-refresh.ts); without it, queue-blind. */
  readonly queue?: QueueContext;
}

type SlottedOrder = OwnOrder & { readonly slot: NonNullable<OwnOrder['slot']> };

const BPS_PER_UNIT = new Decimal(10_000);

export function diffQuotes(input: DiffInput): IntentDraft[] {
  const reasonForMissing = input.reasonForMissing ?? 'pulled:strategy';
  const desiredBySlot = new Map(input.desired.map((q) => [q.slot, q]));
  const liveBySlot = new Map<string, SlottedOrder[]>();
  for (const order of input.live) {
    if (order.slot === undefined) continue;
    const key = slotKey(order.slot);
    liveBySlot.set(key, [...(liveBySlot.get(key) ?? []), order as SlottedOrder]);
  }

  const drafts: IntentDraft[] = [];
  for (const slot of new Set([...desiredBySlot.keys(), ...liveBySlot.keys()])) {
    const want = desiredBySlot.get(slot);
    const orders = liveBySlot.get(slot) ?? [];
    // An order whose own side disagrees with its userref's slot cannot be amended into shape.
    const mismatched = orders.filter((o) => o.side !== o.slot.side);
    for (const o of mismatched) drafts.push(cancel(slot, o, 'side-mismatch'));

    const candidates = orders.filter((o) => o.side === o.slot.side);
    const keep = pickKeeper(candidates, want);
    for (const o of candidates) if (o !== keep) drafts.push(cancel(slot, o, 'duplicate'));

    if (want === undefined) {
      if (keep !== undefined) drafts.push(cancel(slot, keep, reasonForMissing));
    } else if (keep === undefined) {
      drafts.push(place(slot, want, mismatched.length > 0 ? 'side-mismatch' : 'new'));
    } else {
      const why = amendReason(keep, want, input.nowMs, input.defaults, input.queue);
      if (why !== undefined) drafts.push(amend(slot, keep, want, why));
    }
  }
  return sortDrafts(drafts);
}

/** The order worth keeping: nearest the desired price (then volume), else the newest. */
function pickKeeper(
  orders: readonly SlottedOrder[],
  want: RoundedQuote | undefined,
): SlottedOrder | undefined {
  const byDistance = (o: SlottedOrder): [Decimal, Decimal] =>
    want === undefined
      ? [new Decimal(0), new Decimal(0)]
      : [o.price.minus(want.price).abs(), remaining(o).minus(want.volume).abs()];
  let best: SlottedOrder | undefined;
  for (const o of orders) {
    if (best === undefined) {
      best = o;
      continue;
    }
    const [dp, dv] = byDistance(o);
    const [bp, bv] = byDistance(best);
    const cmp = dp.comparedTo(bp) || dv.comparedTo(bv) || best.openedAtMs - o.openedAtMs;
    if (cmp < 0 || (cmp === 0 && o.txid < best.txid)) best = o;
  }
  return best;
}

function amendReason(
  live: SlottedOrder,
  want: RoundedQuote,
  nowMs: number,
  defaults: DiffDefaults,
  queue: QueueContext | undefined,
): string | undefined {
  const priceBps = new Decimal(want.tolerance?.priceBps ?? defaults.priceBps).plus(
    queueCostBps(live, want, nowMs, queue),
  );
  const volumeFraction = new Decimal(want.tolerance?.volumeFraction ?? defaults.volumeFraction);
  const maxAgeMs = want.maxAgeMs ?? defaults.maxAgeMs;
  // Cross-multiplied so the comparison is exact and "exactly at the tolerance" stays put.
  if (live.price.minus(want.price).abs().times(BPS_PER_UNIT).gt(priceBps.times(want.price))) {
    return 'moved';
  }
  if (remaining(live).minus(want.volume).abs().gt(volumeFraction.times(want.volume))) {
    return 'resized';
  }
  if (want.postOnly && !live.postOnly) return 'flags';
  if (maxAgeMs > 0 && nowMs - live.openedAtMs >= maxAgeMs) return 'max-age';
  return undefined;
}

/** What still rests on the book: a partly filled order competes with its remainder only. */
function remaining(o: OwnOrder): Decimal {
  return o.volume.minus(o.volumeExecuted);
}

function desiredOrder(q: RoundedQuote): DesiredOrder {
  return { side: q.side, price: toWire(q.price), volume: toWire(q.volume), postOnly: q.postOnly };
}

export function targetOf(o: OwnOrder): IntentTarget {
  return {
    txid: o.txid,
    userref: o.userref,
    price: toWire(o.price),
    volume: toWire(o.volume),
    volumeExecuted: toWire(o.volumeExecuted),
    openedAtMs: o.openedAtMs,
  };
}

function place(slot: string, q: RoundedQuote, reason: string): IntentDraft {
  return { slot, action: 'place', desired: desiredOrder(q), target: undefined, reason };
}

function amend(slot: string, o: OwnOrder, q: RoundedQuote, reason: string): IntentDraft {
  return { slot, action: 'amend', desired: desiredOrder(q), target: targetOf(o), reason };
}

export function cancel(slot: string, o: OwnOrder, reason: string): IntentDraft {
  return { slot, action: 'cancel', desired: undefined, target: targetOf(o), reason };
}

const ACTION_ORDER = { cancel: 0, amend: 1, place: 2 } as const;

/**
 * Cancels first: they reduce risk and free ratecount and balance for what follows. Then by slot
 * (bids before asks, level numerically so `bid:10` follows `bid:2`), then txid for determinism.
 */
export function sortDrafts(drafts: IntentDraft[]): IntentDraft[] {
  const slotRank = (key: string): [number, number] => {
    const [side, level] = key.split(':');
    return [side === 'bid' ? 0 : 1, Number(level)];
  };
  return drafts.sort((a, b) => {
    const [sa, la] = slotRank(a.slot);
    const [sb, lb] = slotRank(b.slot);
    return (
      ACTION_ORDER[a.action] - ACTION_ORDER[b.action] ||
      sa - sb ||
      la - lb ||
      (a.target?.txid ?? '').localeCompare(b.target?.txid ?? '')
    );
  });
}
