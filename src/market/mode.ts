import type { TradingMode } from '../core/index.js';
import type { SystemStatusResult } from '../exchange/index.js';

/**
 * What the runner may do now, from the exchange's SystemStatus and makerd's own halt flag. The
 * most restrictive wins: halted > maintenance > cancel_only > post_only > online.
 */

export interface HaltState {
  readonly halted: boolean;
  readonly reason?: string | undefined;
}

export interface ModeInput {
  readonly halt: HaltState | undefined;
  /** Whether the SystemStatus poll runs; when off, the exchange is assumed online. */
  readonly statusEnabled: boolean;
  /** The last good SystemStatus answer; undefined before the first. */
  readonly status: SystemStatusResult | undefined;
}

export interface ModeDecision {
  readonly mode: TradingMode;
  readonly reason: string | undefined;
}

export const UNKNOWN_STATUS_REASON = 'system status not yet known';

export function decideMode(input: ModeInput): ModeDecision {
  if (input.halt?.halted === true) {
    return { mode: 'halted', reason: input.halt.reason ?? 'halted' };
  }
  if (!input.statusEnabled) return { mode: 'online', reason: undefined };
  // No quoting before the exchange has said it trades: the safe default.
  if (input.status === undefined) return { mode: 'maintenance', reason: UNKNOWN_STATUS_REASON };
  const status = input.status;
  if (status.status === 'online') return { mode: 'online', reason: undefined };
  const title = status.emergency?.[0]?.title ?? status.upcoming_maintenance?.[0]?.title;
  return { mode: status.status, reason: title ?? status.status };
}
