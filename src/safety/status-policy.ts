import type { EmergencyEvent, MaintenanceEvent, SystemStatusResult } from '../exchange/index.js';

/**
 * What the exchange's advisories ask of makerd now. Pure: the supervisor feeds it the last
 * SystemStatus, the maintenance events it has seen (events leave SystemStatus once their window
 * starts, so the supervisor remembers them until they end) and the time.
 */
export type Posture =
  | { readonly kind: 'normal' }
  | { readonly kind: 'emergency'; readonly event: EmergencyEvent; readonly reason: string }
  | {
      readonly kind: 'maintenance';
      readonly event: MaintenanceEvent;
      readonly reason: string;
      /** When orders had to be gone: the earlier of cancel_before_utc and start − lead. */
      readonly cancelAtMs: number;
      readonly endMs: number;
    };

export interface PolicyInput {
  readonly status: SystemStatusResult | undefined;
  readonly maintenance: readonly MaintenanceEvent[];
  readonly nowMs: number;
  readonly haltOnServices: readonly string[];
  readonly leadMs: number;
}

export function decidePosture(input: PolicyInput): Posture {
  const emergency = (input.status?.emergency ?? []).find(
    (e) => e.incident_status !== 'resolved' && touches(e.affected_services, input.haltOnServices),
  );
  if (emergency !== undefined) {
    return { kind: 'emergency', event: emergency, reason: `emergency: ${emergency.title}` };
  }
  for (const event of input.maintenance) {
    if (!touches(event.affected_services, input.haltOnServices)) continue;
    const window = windowOf(event, input.leadMs);
    if (window === undefined) continue;
    if (window.cancelAtMs <= input.nowMs && input.nowMs < window.endMs) {
      return {
        kind: 'maintenance',
        event,
        reason: `scheduled maintenance: ${event.title}`,
        ...window,
      };
    }
  }
  return { kind: 'normal' };
}

/** The part of a maintenance event the supervisor acts on; undefined when its times are unreadable. */
export function windowOf(
  event: MaintenanceEvent,
  leadMs: number,
): { cancelAtMs: number; startMs: number; endMs: number } | undefined {
  const startMs = Date.parse(event.expected_start_utc);
  const endMs = Date.parse(event.expected_end_utc);
  if (!Number.isFinite(startMs) || !Number.isFinite(endMs)) return undefined;
  const before =
    event.cancel_before_utc === undefined ? Infinity : Date.parse(event.cancel_before_utc);
  const cancelAtMs = Math.min(startMs - leadMs, Number.isFinite(before) ? before : Infinity);
  return { cancelAtMs, startMs, endMs };
}

/** An event listing no services is taken to affect everything: the safe reading. */
function touches(services: readonly string[] | undefined, watched: readonly string[]): boolean {
  if (services === undefined || services.length === 0) return true;
  return services.some((s) => watched.includes(s));
}

/** The emergency's next steps, one line each, for the halt's log line. */
export function nextStepsOf(event: EmergencyEvent): string[] {
  return (event.next_steps ?? []).map(
    (s) =>
      `${s.type ?? 'next step'}${s.expected_at_utc === undefined ? '' : ` at ${s.expected_at_utc}`}` +
      `${s.applies_to === undefined ? '' : ` (${s.applies_to.join(', ')})`}`,
  );
}
