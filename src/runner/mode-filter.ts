/**
 * What the trading mode lets through (DESIGN.md §3.8). The exchange would reject the rest; sending
 * it anyway costs ratecount and fills logs with errors, so it is dropped here and counted.
 */
import { slotKey } from '../core/intent.js';
import type { OwnOrder, TradingMode } from '../core/market.js';
import { cancel, sortDrafts, type IntentDraft } from './quote-diff.js';

export interface ModeFilterResult {
  readonly kept: IntentDraft[];
  /** Drafts the mode did not allow, for a metric. */
  readonly suppressed: number;
}

export function applyMode(drafts: readonly IntentDraft[], mode: TradingMode): ModeFilterResult {
  const keep = (kept: IntentDraft[]): ModeFilterResult => ({
    kept,
    suppressed: drafts.length - kept.length,
  });
  switch (mode) {
    case 'online':
      return keep([...drafts]);
    case 'post_only':
      // The venue rejects non-post-only orders now; forcing the flag keeps the quote alive.
      return keep(
        drafts.map((d) =>
          d.desired === undefined || d.desired.postOnly
            ? d
            : { ...d, desired: { ...d.desired, postOnly: true } },
        ),
      );
    case 'cancel_only':
      return keep(drafts.filter((d) => d.action === 'cancel'));
    case 'maintenance':
    case 'halted':
      // The supervisor owns cancel-all on halt and before maintenance; the runner stays quiet.
      return keep([]);
    default: {
      // A mode added later must not trade by accident: treat the unknown as halted.
      const _unknown: never = mode;
      return keep([]);
    }
  }
}

/** Cancels every live order of ours, e.g. when the data the strategy quoted on went stale. */
export function pullAll(live: readonly OwnOrder[], reason: string): IntentDraft[] {
  const drafts: IntentDraft[] = [];
  for (const order of live) {
    if (order.slot !== undefined) drafts.push(cancel(slotKey(order.slot), order, reason));
  }
  return sortDrafts(drafts);
}
