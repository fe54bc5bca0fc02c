import { Counter, Gauge, type Registry } from 'prom-client';
import type { Clock } from '../core/index.js';
import type { RiskReading } from './risk.js';

/** Why makerd halted: the `cause` label of makerd_halts_total. */
export type HaltCause = 'emergency' | 'maintenance' | 'operator' | 'risk' | 'order_entry';

/** The supervisor's metric families (DESIGN.md §4). */
export class SupervisorMetrics {
  readonly heartbeats: Counter<'outcome'>;
  readonly triggerTime: Gauge;
  readonly deadManFirings: Counter;
  readonly halted: Gauge;
  readonly halts: Counter<'cause'>;
  readonly cancelAlls: Counter<'outcome'>;
  readonly exchangeStatus: Gauge<'status'>;
  readonly emergency: Gauge;
  readonly roleAlive: Gauge<'role'>;
  readonly riskBreaches: Counter<'limit'>;
  readonly limitUsage: Gauge<'limit' | 'pair'>;
  readonly markedPnl: Gauge<'pair'>;
  /** Epoch ms of the last heartbeat the exchange acknowledged; NaN before the first. */
  readonly #beat = { lastMs: Number.NaN };

  constructor(registry: Registry, clock: Clock) {
    const registers = [registry];
    const beat = this.#beat;
    new Gauge({
      name: 'makerd_heartbeat_age_seconds',
      help: 'Seconds since the exchange last acknowledged a CancelAllOrdersAfter heartbeat (NaN before the first)',
      registers,
      collect() {
        this.set((clock.now() - beat.lastMs) / 1000);
      },
    });
    this.heartbeats = new Counter({
      name: 'makerd_heartbeats_total',
      help: 'CancelAllOrdersAfter calls by outcome: ok, failed, skipped (a role not alive), disarmed',
      labelNames: ['outcome'],
      registers,
    });
    this.triggerTime = new Gauge({
      name: 'makerd_deadman_trigger_timestamp_seconds',
      help: 'When the exchange will cancel every order of the key unless refreshed (0: disarmed)',
      registers,
    });
    this.deadManFirings = new Counter({
      name: 'makerd_deadman_firings_total',
      help: 'Times the CancelAllOrdersAfter timer ran out (the exchange cancelled every order of the key), as the supervisor learned',
      registers,
    });
    this.halted = new Gauge({
      name: 'makerd_halted',
      help: '1 while the halt flag is set (by the supervisor or an operator)',
      registers,
    });
    this.halts = new Counter({
      name: 'makerd_halts_total',
      help: 'Halts the supervisor set or acted on, by cause',
      labelNames: ['cause'],
      registers,
    });
    this.cancelAlls = new Counter({
      name: 'makerd_supervisor_cancel_all_total',
      help: 'CancelAll calls of the supervisor by outcome (ok, failed)',
      labelNames: ['outcome'],
      registers,
    });
    this.exchangeStatus = new Gauge({
      name: 'makerd_exchange_status',
      help: "1 for the exchange's current SystemStatus status, 0 for the others",
      labelNames: ['status'],
      registers,
    });
    this.emergency = new Gauge({
      name: 'makerd_exchange_emergency',
      help: '1 while SystemStatus reports an emergency that halts makerd',
      registers,
    });
    this.riskBreaches = new Counter({
      name: 'makerd_risk_breaches_total',
      help: 'Risk limits breached (each halts), by limit name',
      labelNames: ['limit'],
      registers,
    });
    this.limitUsage = new Gauge({
      name: 'makerd_risk_limit_usage_ratio',
      help: 'Position or loss over its configured risk limit, by limit and pair (all: the loss limits); 1 halts',
      labelNames: ['limit', 'pair'],
      registers,
    });
    this.markedPnl = new Gauge({
      name: 'makerd_marked_pnl_quote',
      help: "Realized PnL plus the position marked to the supervisor's mid, in quote units (for charts)",
      labelNames: ['pair'],
      registers,
    });
    this.roleAlive = new Gauge({
      name: 'makerd_role_alive',
      help: 'Whether the role proved liveness recently (fresh beat in Redis)',
      labelNames: ['role'],
      registers,
    });
  }

  /** Charts a risk round: each limit's usage and each pair's marked PnL. */
  observeRisk(reading: RiskReading): void {
    for (const u of reading.usage) this.limitUsage.set({ limit: u.limit, pair: u.pair }, u.ratio);
    for (const [pair, pnl] of reading.markedPnl) this.markedPnl.set({ pair }, pnl.toNumber());
  }

  beatAcknowledged(atMs: number, triggerAtMs: number): void {
    this.#beat.lastMs = atMs;
    this.triggerTime.set(triggerAtMs / 1000);
  }
}
