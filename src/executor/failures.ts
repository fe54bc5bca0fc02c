import { errorLabel } from './metrics.js';
import type { Failure } from './outcome.js';
import { MODE_HOLD_MS, type PairContext, type PairScope } from './pair-context.js';
import type { TrackedOrder } from '../orders/types.js';

/**
 * What a failed order-entry call leaves behind. Unknown: its records go to state `unknown`, to be
 * resolved by query once their deadline has passed. Refused: a placement's record is rejected
 * (the slot is free again), and the pair learns what the refusal says: the venue's mode for a
 * while, a full ratecount, or a pause. `also` are records the call settled otherwise (an edit's
 * original), written in the same write.
 */
/** What recording a failed call uses of its pair: its records, its learned mode and pause. */
export type FailureScope = Pick<PairContext, 'learnedMode' | 'modeUntilMs' | 'pausedUntilMs'> &
  PairScope<'id' | 'label' | 'now' | 'persist', 'metrics' | 'log' | 'ratecount'>;

const GONE_REASON =
  'the order had left the book (filled or cancelled) before the call reached it; its slot is ' +
  'placed anew and its fills come with the next sync';

export async function recordFailure(
  ctx: FailureScope,
  records: readonly TrackedOrder[],
  action: string,
  failure: Failure,
  also: readonly TrackedOrder[] = [],
): Promise<void> {
  const { metrics, log, ratecount } = ctx.deps;
  const now = ctx.now();
  if (failure.kind === 'unknown') {
    metrics.actions.inc({ pair: ctx.label, action, outcome: 'unknown' });
    log.warn(
      { action, reason: failure.reason, orders: records.length },
      'order-entry outcome unknown',
    );
    await ctx.persist([
      ...records.map((r) => ({ ...r, state: 'unknown' as const, updatedAtMs: now })),
      ...also,
    ]);
    return;
  }
  metrics.actions.inc({ pair: ctx.label, action, outcome: 'rejected' });
  metrics.rejections.inc({ pair: ctx.label, error: errorLabel(failure.reason) });
  if (failure.then === 'gone') {
    // An edit or cancel that raced a fill or the exchange's own cancel: routine, nothing to act
    // on (warnings are what an operator must act on). The slot is free for a new order now; what
    // the old one executed comes with the next sync.
    log.info(
      { action, error: failure.reason, reason: GONE_REASON },
      'order entry found its order gone',
    );
  } else log.warn({ action, error: failure.reason }, 'order entry refused');
  const placed = records.filter((r) => r.state === 'pending-new');
  await ctx.persist([
    ...placed.map((r) => ({
      ...r,
      state: 'rejected' as const,
      pendingCall: null,
      reason: failure.reason,
      updatedAtMs: now,
    })),
    ...also,
  ]);
  switch (failure.then) {
    case 'mode':
      ctx.learnedMode = failure.mode;
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
