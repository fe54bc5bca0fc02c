import { Type, type Static } from '@sinclair/typebox';
import { InvalidInputError } from '../core/index.js';
import { RiskConfig } from './risk-config.js';

/** `supervisor:` in the daemon's YAML: the dead-man switch, the status watch, halts. */
export const SupervisorConfig = Type.Object(
  {
    heartbeat: Type.Object(
      {
        /**
         * The CancelAllOrdersAfter timeout: how long after the last heartbeat the exchange cancels
         * every order of the key. The spec advises 60 s.
         */
        timeout_s: Type.Integer({ minimum: 1, maximum: 86_399, default: 60 }),
        /** Heartbeat period; the spec advises 15 to 30 s. Must be under the timeout. */
        interval_s: Type.Number({ exclusiveMinimum: 0, default: 20 }),
        /**
         * A role whose last liveness beat in Redis is older than this is taken for dead or hung:
         * heartbeats stop, so the exchange cancels our orders when the timeout runs out. Roles
         * beat every 5 s and a beat lives 15 s, so more than 15 s changes nothing.
         */
        liveness_max_age_ms: Type.Integer({ minimum: 1_000, default: 15_000 }),
        /** Roles that must prove liveness for heartbeats to go on. */
        roles: Type.Array(Type.Union([Type.Literal('runner'), Type.Literal('executor')]), {
          default: ['runner', 'executor'],
        }),
      },
      { default: {}, additionalProperties: false },
    ),
    status: Type.Object(
      {
        /** SystemStatus poll period (public endpoint: no REST counter cost). */
        interval_ms: Type.Integer({ minimum: 200, default: 3_000 }),
        /** MaintenanceSchedule poll period (announcements come days ahead). */
        schedule_interval_ms: Type.Integer({ minimum: 1_000, default: 300_000 }),
        /**
         * An emergency whose affected services include one of these halts makerd. An emergency
         * listing no services is taken to affect everything.
         */
        halt_on_services: Type.Array(Type.String({ minLength: 1 }), {
          default: ['spot_trading', 'spot_rest'],
        }),
      },
      { default: {}, additionalProperties: false },
    ),
    maintenance: Type.Object(
      {
        /**
         * Orders are cancelled and the dead-man timer disarmed this long before a scheduled
         * window starts, or at the event's `cancel_before_utc` if that is earlier.
         */
        lead_s: Type.Integer({ minimum: 0, default: 300 }),
      },
      { default: {}, additionalProperties: false },
    ),
    order_entry: Type.Object(
      {
        /**
         * An executor reporting order entry failing (no order reaches the engine before its
         * deadline, executor.deadline_max_ms) for this long halts makerd and cancels every order:
         * its live quotes can no longer follow the market. 0: never (the alert and /readyz still
         * say so).
         */
        halt_after_s: Type.Integer({ minimum: 0, maximum: 86_400, default: 60 }),
      },
      { default: {}, additionalProperties: false },
    ),
    /**
     * When an emergency clears: `operator` (default) keeps makerd halted until `makerd resume`;
     * `auto` resumes a halt the supervisor set for that emergency. Scheduled maintenance always
     * resumes by itself once its window has passed and the exchange is online.
     */
    resume: Type.Union([Type.Literal('operator'), Type.Literal('auto')], { default: 'operator' }),
    /**
     * After a halt's CancelAll, a second one this much later: a process that had not yet seen
     * the halt flag (others read it every second) may have placed an order in between.
     */
    halt_sweep_ms: Type.Integer({ minimum: 0, maximum: 60_000, default: 1_500 }),
    risk: RiskConfig,
    shutdown: Type.Object(
      {
        /** Cancel every order of the key on a clean shutdown (then disarm the timer). */
        cancel_orders: Type.Boolean({ default: true }),
        /** The shutdown's own bound: past it the process exits anyway. */
        timeout_ms: Type.Integer({ minimum: 100, maximum: 120_000, default: 10_000 }),
      },
      { default: {}, additionalProperties: false },
    ),
  },
  // A misspelt option must stop start-up, not be ignored.
  { additionalProperties: false },
);
export type SupervisorConfig = Static<typeof SupervisorConfig>;

/** What the schema cannot say: a heartbeat period under the timeout it keeps from firing. */
export function checkSupervisorConfig(config: SupervisorConfig): void {
  const hb = config.heartbeat;
  if (hb.interval_s >= hb.timeout_s) {
    throw new InvalidInputError(
      'supervisor.heartbeat.interval_s',
      `must be under timeout_s (${hb.timeout_s}), got ${hb.interval_s}: the timer would fire between heartbeats`,
    );
  }
}
