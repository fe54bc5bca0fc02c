import { orderEntryFailure } from '../bus/index.js';
import type { StatusReport } from './status-report.js';

/**
 * Why the deployment is not trading, from what every process left in Redis: halted, a role
 * without a fresh beat, no supervisor report or its dead-man timer not armed, a pair that no
 * executor holds. Empty: ready.
 */
export function notReady(r: StatusReport, nowMs: number): string[] {
  const reasons: string[] = [];
  if (r.halt.halted) reasons.push(`halted: ${r.halt.reason ?? 'no reason given'}`);
  for (const [role, beat] of Object.entries(r.roles)) {
    if (!beat.alive) reasons.push(`${role}: no recent liveness beat`);
  }
  const trigger = deadManTrigger(r.supervisor);
  if (r.supervisor === undefined) reasons.push('supervisor: no recent report');
  else if (trigger === undefined || trigger <= nowMs) {
    reasons.push('supervisor: dead-man timer not armed');
  }
  for (const p of r.pairs) {
    if (!p.executor) reasons.push(`${p.altname}: no executor holds it`);
    if (p.orderEntry?.failing === true) {
      reasons.push(`${p.altname}: ${orderEntryFailure(p.orderEntry)}`);
    }
  }
  return reasons;
}

function deadManTrigger(report: Record<string, unknown> | undefined): number | undefined {
  const deadMan = report?.deadMan as { triggerAtMs?: unknown } | undefined;
  return typeof deadMan?.triggerAtMs === 'number' ? deadMan.triggerAtMs : undefined;
}
