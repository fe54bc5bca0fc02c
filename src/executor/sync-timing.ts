/**
 * When a periodic full sync that has come due starts. A sync holds the pair's chain for its
 * OpenOrders and ClosedOrders round trips (10-30 ms, more when the REST budget makes them wait),
 * and a budget due or a new snapshot's drain that falls inside waits for it. Started just after a
 * drain of a fresh snapshot, with the pair's next budget wake far off, it meets neither: the
 * runner's next snapshot of the pair is a poll away. A pair with no snapshot for a while has
 * nothing coming, so it syncs at once. However busy the pair, the sync waits no longer than
 * SYNC_DEFER_MAX_MS.
 */

/** Longest a due sync waits for a quiet moment. */
export const SYNC_DEFER_MAX_MS = 5_000;
/** A drain this soon after the pair's newest snapshot is that snapshot's: the next is a poll away. */
export const FRESH_SNAPSHOT_MS = 50;
/** A pair whose newest snapshot is older than this has no runner polling it at the moment. */
export const IDLE_SNAPSHOT_MS = 1_000;
/** The pair's next budget wake must be at least this far off. */
export const WAKE_CLEARANCE_MS = 150;

export interface SyncMomentInput {
  readonly nowMs: number;
  /** When the sync came due. */
  readonly dueSinceMs: number;
  /** The pair's next budget wake; undefined when none is set. */
  readonly nextWakeMs: number | undefined;
  /** The newest snapshot the pair's intents came from (0: none seen). */
  readonly newestSnapshotAtMs: number;
}

/** Whether a due sync starts now. */
export function syncStartsNow(input: SyncMomentInput): boolean {
  const { nowMs } = input;
  if (nowMs - input.dueSinceMs >= SYNC_DEFER_MAX_MS) return true;
  if (input.nextWakeMs !== undefined && input.nextWakeMs - nowMs < WAKE_CLEARANCE_MS) return false;
  const sinceSnapshot = nowMs - input.newestSnapshotAtMs;
  return sinceSnapshot <= FRESH_SNAPSHOT_MS || sinceSnapshot >= IDLE_SNAPSHOT_MS;
}
