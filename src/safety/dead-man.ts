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
 * Past the trigger time, this long before the timer is taken to have fired: a trigger time given
 * in whole seconds, and clocks a little apart, must not make a timer still running look fired.
 */
const FIRED_MARGIN_MS = 1_000;

/**
 * The exchange's CancelAllOrdersAfter timer for our key, as far as its answers tell: armed with a
 * trigger time, or disarmed, or fired. Heartbeats go first in the REST budget (priority 'high'): a
 * heartbeat stuck behind polls would let the exchange cancel a healthy bot's orders.
 *
 * The timer has fired when its trigger time passes with no heartbeat (a role not alive, this
 * process stopped, the exchange unreachable), or when the exchange took a heartbeat after it.
 * Either is noticed (a wait on the clock, the heartbeat's answer), logged, counted, and told to
 * `onFired` with the trigger time: the exchange cancelled every order of the key then, charging
 * each one's age penalty.
 */
export class DeadManSwitch {
  readonly #client: DeadManClient;
  readonly #timeoutS: number;
  readonly #clock: Clock;
  readonly #log: Log;
  readonly #metrics: SupervisorMetrics | undefined;
  readonly #onFired: ((atMs: number) => void) | undefined;
  #triggerAtMs: number | undefined;
  #lastAckMs: number | undefined;
  #firedAtMs: number | undefined;
  /** The heartbeat on its way: its answer says whether the timer fired before it arrived. */
  #refreshing: Promise<boolean> | undefined;
  /** Ends the wait for the trigger time: a newer one replaces it, disarm() and stop() end it. */
  #watch: AbortController | undefined;
  #stopped = false;

  constructor(options: {
    client: DeadManClient;
    timeoutS: number;
    clock: Clock;
    log: Log;
    metrics?: SupervisorMetrics | undefined;
    onFired?: (atMs: number) => void;
  }) {
    this.#client = options.client;
    this.#timeoutS = options.timeoutS;
    this.#clock = options.clock;
    this.#log = options.log;
    this.#metrics = options.metrics;
    this.#onFired = options.onFired;
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
    const refreshing = this.#refresh();
    this.#refreshing = refreshing;
    try {
      return await refreshing;
    } finally {
      if (this.#refreshing === refreshing) this.#refreshing = undefined;
    }
  }

  /**
   * Whether the timer has run out: past its trigger time (and the margin) with no heartbeat on
   * its way, the exchange has cancelled every order of the key. A heartbeat on its way answers
   * first. Returns when the timer last fired, as far as this process knows.
   */
  async check(): Promise<number | undefined> {
    await this.#refreshing;
    const at = this.#triggerAtMs;
    if (at !== undefined && this.#clock.now() >= at + FIRED_MARGIN_MS) this.#fired(at);
    return this.#firedAtMs;
  }

  /** Ends the wait for the trigger time (the supervisor stopping). */
  stop(): void {
    this.#stopped = true;
    this.#watch?.abort();
  }

  async #refresh(): Promise<boolean> {
    try {
      const { result } = await this.#client.cancelAllOrdersAfter(
        { timeout: this.#timeoutS },
        { priority: 'high' },
      );
      const now = this.#clock.now();
      const previous = this.#triggerAtMs;
      // Taken after the trigger time it had set: everything was cancelled before this re-armed it.
      // Whole seconds compared strictly, so a trigger time given in seconds cannot mislead.
      const takenAt = Date.parse(result.currentTime);
      if (previous !== undefined && takenAt > previous) this.#fired(previous);
      const trigger = Date.parse(result.triggerTime);
      this.#triggerAtMs = Number.isFinite(trigger) ? trigger : now + this.#timeoutS * 1000;
      this.#lastAckMs = now;
      this.#metrics?.heartbeats.inc({ outcome: 'ok' });
      this.#metrics?.beatAcknowledged(now, this.#triggerAtMs);
      this.#watchTrigger(this.#triggerAtMs);
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
      this.#watch?.abort();
      this.#metrics?.heartbeats.inc({ outcome: 'disarmed' });
      this.#metrics?.triggerTime.set(0);
      this.#log.info({}, 'dead-man timer disarmed');
      return true;
    } catch (err) {
      this.#log.error({ err: errorMessage(err) }, 'disarming the dead-man timer failed');
      return false;
    }
  }

  /** Looks again once the trigger time (and the margin) has passed, unless a newer one came. */
  #watchTrigger(triggerAtMs: number): void {
    this.#watch?.abort();
    if (this.#stopped) return;
    const watch = new AbortController();
    this.#watch = watch;
    const waitMs = triggerAtMs + FIRED_MARGIN_MS - this.#clock.now();
    this.#clock.sleep(waitMs, watch.signal).then(
      () => void this.check(),
      () => undefined,
    );
  }

  #fired(atMs: number): void {
    // The spec: once fired, the timer stays disabled until armed again.
    this.#triggerAtMs = undefined;
    this.#watch?.abort();
    this.#firedAtMs = atMs;
    this.#metrics?.deadManFirings.inc();
    this.#metrics?.triggerTime.set(0);
    this.#log.error(
      { firedAt: new Date(atMs).toISOString(), lastAckMs: this.#lastAckMs },
      'dead-man timer fired: the exchange cancelled every order of the key',
    );
    this.#onFired?.(atMs);
  }
}
