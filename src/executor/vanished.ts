import { missingFromDepth, type OrderIntent } from '../core/index.js';
import type { PairScope } from './pair-context.js';
import { retiredAsGone } from './records.js';
import type { TrackedOrder } from '../orders/types.js';

/**
 * Orders the runner's view says have left the book. Its Depth, asked for well after we saw the
 * slot's order open, showed no level at the order's price though the price lies within the levels
 * it showed (`depthSeen`); or, for a place, its OpenOrders call, made well after we saw the order
 * open, did not list it (`ordersAsOfMs`). Retired as gone, so the slot is placed at once rather
 * than amended into "Unknown order"; what the order executed is settled by the next full sync
 * (ClosedOrders). Only orders we placed: their open time is our own clock's.
 */
export function vanishedOrders(
  ctx: PairScope<'slotOrder', 'config' | 'log'>,
  intents: readonly OrderIntent[],
  nowMs: number,
): TrackedOrder[] {
  const margin = ctx.deps.config.vanished_margin_ms;
  if (margin === 0) return [];
  const out: TrackedOrder[] = [];
  for (const i of intents) {
    if (i.action === 'cancel') continue;
    const o = ctx.slotOrder(i.slot);
    if (
      o === undefined ||
      o.origin !== 'placed' ||
      o.pendingCall !== null ||
      (o.state !== 'open' && o.state !== 'partially-filled') ||
      o.openedAtMs <= 0
    ) {
      continue;
    }
    const seenAfter = (asOfMs: number | undefined): boolean =>
      asOfMs !== undefined && o.openedAtMs + margin <= asOfMs;
    const unlisted = i.action === 'place' && seenAfter(i.ordersAsOfMs);
    const seen = i.depthSeen;
    const levelGone =
      seen !== undefined &&
      seenAfter(seen.asOfMs) &&
      missingFromDepth(seen.prices, o.price, o.side);
    if (unlisted || levelGone) out.push(retiredAsGone(o, nowMs));
  }
  // Routine (a fill or a cancel shows in Depth first; issue #41 counted 57 in 90 s of the demo) and
  // nothing to act on: the fills come with the next sync, the slot is placed again.
  if (out.length > 0) {
    ctx.deps.log.debug(
      { txids: out.map((o) => o.txid) },
      'orders the runner found gone from the book retired',
    );
  }
  return out;
}
