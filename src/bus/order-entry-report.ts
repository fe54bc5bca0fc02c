import type { ControlFlags } from './flags.js';

/**
 * What the executor holding a pair says of its order entry, for /readyz, `makerd status` and the
 * supervisor in any process: failing while even the longest `deadline` allowed
 * (executor.deadline_max_ms) is too short for the link, so no order reaches the engine in time.
 */
export interface OrderEntryReport {
  readonly failing: boolean;
  /** When the episode began (failing) or ended (not failing). */
  readonly sinceMs: number;
  /** The recent p99 order-entry round trip, in ms. */
  readonly roundTripP99Ms: number | undefined;
  /** The deadline the calls carry, in ms from sending. */
  readonly deadlineMs: number;
}

/** The status-report role a pair's order-entry report is kept under (one writer: the lease holder). */
export function orderEntryRole(pair: string): string {
  return `order-entry:${pair}`;
}

/** The pair's report as its executor left it; undefined when none is live or it is unreadable. */
export async function readOrderEntry(
  flags: Pick<ControlFlags, 'reported'>,
  pair: string,
): Promise<OrderEntryReport | undefined> {
  const raw = await flags.reported(orderEntryRole(pair));
  if (raw === undefined || typeof raw.failing !== 'boolean') return undefined;
  if (typeof raw.sinceMs !== 'number' || typeof raw.deadlineMs !== 'number') return undefined;
  const p99 = raw.roundTripP99Ms;
  return {
    failing: raw.failing,
    sinceMs: raw.sinceMs,
    roundTripP99Ms: typeof p99 === 'number' ? p99 : undefined,
    deadlineMs: raw.deadlineMs,
  };
}

/** The one-line reason a failing report gives (/readyz, the supervisor's log). */
export function orderEntryFailure(r: OrderEntryReport): string {
  const p99 = r.roundTripP99Ms === undefined ? '?' : String(Math.round(r.roundTripP99Ms));
  return `order entry failing: round trip p99 ${p99} ms, deadline at most ${r.deadlineMs} ms`;
}
