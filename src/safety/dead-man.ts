import { errorMessage, type Clock, type Log } from '../core/index.js';
import type { ApiResponse, CallOptions } from '../exchange/index.js';
import type { SupervisorMetrics } from './metrics.js';

export interface DeadManClient {
  cancelAllOrdersAfter(
    q: { timeout: number },
    o?: CallOptions,
  ): Promise<ApiResponse<{ currentTime: string; triggerTime: string }>>;
}

/**
 * The exchange's CancelAllOrdersAfter timer for our key, as far as its answers tell: armed with a
 * trigger time, or disarmed. Heartbeats go first in the REST budget (priority 'high'): a
 * heartbeat stuck behind polls would let the exchange cancel a healthy bot's orders.
 */
export class DeadManSwitch {
  readonly #client: DeadManClient;
  readonly #timeoutS: number;
  readonly #clock: Clock;
  readonly #log: Log;
  readonly #metrics: SupervisorMetrics | undefined;
  #triggerAtMs: number | undefined;
  #lastAckMs: number | undefined;

  constructor(options: {
    client: DeadManClient;
    timeoutS: number;
    clock: Clock;
    log: Log;
    metrics?: SupervisorMetrics | undefined;
  }) {
    this.#client = options.client;
    this.#timeoutS = options.timeoutS;
    this.#clock = options.clock;
    this.#log = options.log;
    this.#metrics = options.metrics;
  }

  /** Epoch ms at which the exchange cancels everything, as its last answer said; undefined: disarmed or never armed. */
  get triggerAtMs(): number | undefined {
    return this.#triggerAtMs;
  }

  /** When the exchange last acknowledged a heartbeat. */
  get lastAckMs(): number | undefined {
    return this.#lastAckMs;
  }

  /** Arms the timer or pushes it back. False when the call failed (logged and counted). */
  async refresh(): Promise<boolean> {
    try {
      const { result } = await this.#client.cancelAllOrdersAfter(
        { timeout: this.#timeoutS },
        { priority: 'high' },
      );
      const now = this.#clock.now();
      const trigger = Date.parse(result.triggerTime);
      this.#triggerAtMs = Number.isFinite(trigger) ? trigger : now + this.#timeoutS * 1000;
      this.#lastAckMs = now;
      this.#metrics?.heartbeats.inc({ outcome: 'ok' });
      this.#metrics?.beatAcknowledged(now, this.#triggerAtMs);
      return true;
    } catch (err) {
      this.#metrics?.heartbeats.inc({ outcome: 'failed' });
      this.#log.error(
        { err: errorMessage(err), triggerAtMs: this.#triggerAtMs },
        'dead-man heartbeat failed',
      );
      return false;
    }
  }

  /** Disarms the timer (timeout 0). False when the call failed. */
  async disarm(): Promise<boolean> {
    try {
      await this.#client.cancelAllOrdersAfter({ timeout: 0 }, { priority: 'high' });
      this.#triggerAtMs = undefined;
      this.#metrics?.heartbeats.inc({ outcome: 'disarmed' });
      this.#metrics?.triggerTime.set(0);
      this.#log.info({}, 'dead-man timer disarmed');
      return true;
    } catch (err) {
      this.#log.error({ err: errorMessage(err) }, 'disarming the dead-man timer failed');
      return false;
    }
  }
}
