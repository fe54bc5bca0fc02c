import { Type, type Static } from '@sinclair/typebox';
import { parseWithSchema } from '../../core/index.js';
import { SimError } from '../errors.js';

export const SYSTEM_MODES = ['online', 'maintenance', 'cancel_only', 'post_only'] as const;
export type SystemMode = (typeof SYSTEM_MODES)[number];

const Iso = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}' });

const MaintenanceInput = Type.Object({
  event_id: Type.Optional(Type.Integer()),
  title: Type.String({ default: 'Scheduled maintenance' }),
  expected_start_utc: Iso,
  expected_end_utc: Iso,
  affected_services: Type.Array(Type.String(), {
    default: ['spot_trading', 'spot_rest', 'spot_ws'],
  }),
  order_submission: Type.Optional(Type.String()),
  recommended_action: Type.Optional(Type.String()),
  /** Defaults to 5 minutes before the start. */
  cancel_before_utc: Type.Optional(Iso),
  source_url: Type.String({ default: 'https://status.sim.invalid/maintenance' }),
});

const NextStep = Type.Object({
  applies_to: Type.Array(Type.String()),
  type: Type.String({ default: 'expected_restart' }),
  expected_at_utc: Iso,
});

const EmergencyInput = Type.Object({
  event_id: Type.Optional(Type.Integer()),
  title: Type.String({ default: 'Incident' }),
  incident_status: Type.String({ default: 'identified' }),
  impact: Type.String({ default: 'critical' }),
  affected_services: Type.Array(Type.String(), { default: ['spot_rest'] }),
  started_at_utc: Type.Optional(Iso),
  next_steps: Type.Array(NextStep, { default: [] }),
  source_url: Type.String({ default: 'https://status.sim.invalid/incident' }),
});

/** Body of POST /_sim/status: each field given replaces the current value. */
export const StatusUpdate = Type.Object({
  status: Type.Optional(Type.Union(SYSTEM_MODES.map((m) => Type.Literal(m)))),
  emergency: Type.Optional(Type.Array(EmergencyInput)),
  upcoming_maintenance: Type.Optional(Type.Array(MaintenanceInput)),
});
export type StatusUpdate = Static<typeof StatusUpdate>;

interface Maintenance {
  readonly event_id: number;
  readonly title: string;
  readonly startMs: number;
  readonly endMs: number;
  readonly cancelBeforeMs: number;
  readonly affected_services: readonly string[];
  readonly order_submission: string | undefined;
  readonly recommended_action: string | undefined;
  readonly source_url: string;
}

type Emergency = Static<typeof EmergencyInput> & { event_id: number; started_at_utc: string };

const HOUR_MS = 3_600_000;
const THIRTY_MIN_S = 1_800;

/**
 * SystemStatus and MaintenanceSchedule as state the admin API sets. `status` gates order entry
 * exactly as the spec's table; the advisory arrays are data derived against the clock.
 */
export class StatusBoard {
  #mode: SystemMode = 'online';
  #emergencies: Emergency[] = [];
  #maintenance: Maintenance[] = [];
  #nextEventId = 1000;
  readonly #listeners: ((from: SystemMode, to: SystemMode) => void)[] = [];

  get mode(): SystemMode {
    return this.#mode;
  }

  /** Called on every mode change (the dead man fires when the engine returns from maintenance). */
  onModeChange(listener: (from: SystemMode, to: SystemMode) => void): void {
    this.#listeners.push(listener);
  }

  setMode(mode: SystemMode): void {
    const from = this.#mode;
    this.#mode = mode;
    if (from !== mode) for (const l of this.#listeners) l(from, mode);
  }

  /** Applies an admin update (validated; errors name the field). */
  update(body: unknown, nowMs: number): void {
    const update = parseWithSchema(StatusUpdate, body, 'status');
    if (update.emergency !== undefined) {
      this.#emergencies = update.emergency.map((e) => ({
        ...e,
        event_id: e.event_id ?? this.#nextEventId++,
        started_at_utc: e.started_at_utc ?? iso(nowMs),
      }));
    }
    if (update.upcoming_maintenance !== undefined) {
      this.#maintenance = update.upcoming_maintenance.map((m) => {
        const startMs = Date.parse(m.expected_start_utc);
        return {
          event_id: m.event_id ?? this.#nextEventId++,
          title: m.title,
          startMs,
          endMs: Date.parse(m.expected_end_utc),
          cancelBeforeMs:
            m.cancel_before_utc === undefined ? startMs - 300_000 : Date.parse(m.cancel_before_utc),
          affected_services: m.affected_services,
          order_submission: m.order_submission,
          recommended_action: m.recommended_action,
          source_url: m.source_url,
        };
      });
    }
    if (update.status !== undefined) this.setMode(update.status);
  }

  /** AddOrder, AddOrderBatch, EditOrder: allowed only as the spec's status table says. */
  checkAdd(postOnlyLimit: boolean): void {
    switch (this.#mode) {
      case 'online':
        return;
      case 'maintenance':
        throw new SimError('EService:Unavailable');
      case 'cancel_only':
        throw new SimError('EService:Market in cancel_only mode');
      case 'post_only':
        if (!postOnlyLimit) throw new SimError('EService:Market in post_only mode');
    }
  }

  /** Cancels are allowed in every mode but maintenance. */
  checkCancel(): void {
    if (this.#mode === 'maintenance') throw new SimError('EService:Unavailable');
  }

  /** Trades happen only online (the spec: no trades in cancel_only and post_only). */
  canTrade(): boolean {
    return this.#mode === 'online';
  }

  systemStatus(nowMs: number): Record<string, unknown> {
    return {
      status: this.#mode,
      timestamp: iso(nowMs),
      upcoming_maintenance: this.#upcoming(nowMs, 72 * HOUR_MS),
      emergency: this.#emergencies
        .filter((e) => e.incident_status !== 'resolved')
        .map((e) => ({ ...e, next_steps: e.next_steps.map((s) => ({ ...s })) })),
    };
  }

  maintenanceSchedule(nowMs: number): { events: Record<string, unknown>[] } {
    return { events: this.#upcoming(nowMs, 7 * 24 * HOUR_MS) };
  }

  /** Events that have not started and start within `horizonMs`, earliest first. */
  #upcoming(nowMs: number, horizonMs: number): Record<string, unknown>[] {
    return this.#maintenance
      .filter((m) => m.startMs > nowMs && m.startMs - nowMs <= horizonMs)
      .sort((a, b) => a.startMs - b.startMs)
      .map((m) => {
        const timeToStart = Math.floor((m.startMs - nowMs) / 1000);
        const approaching = timeToStart <= THIRTY_MIN_S;
        return {
          event_id: m.event_id,
          title: m.title,
          expected_start_utc: iso(m.startMs),
          expected_end_utc: iso(m.endMs),
          time_to_start_s: timeToStart,
          phase: approaching ? 'approaching_30m' : 'announced',
          affected_services: [...m.affected_services],
          order_submission: m.order_submission ?? 'allowed',
          recommended_action:
            m.recommended_action ?? (approaching ? 'reduce_activity' : 'continue'),
          cancel_before_utc: iso(m.cancelBeforeMs),
          source_url: m.source_url,
        };
      });
  }
}

/** RFC 3339 UTC without milliseconds, as the exchange writes its timestamps. */
export function iso(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}
