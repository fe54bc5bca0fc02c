import type { Clock } from '../core/index.js';

/**
 * A pair's one pending wake-up, on the injected clock. Whatever the pair waits for (ratecount
 * budget, an unknown outcome to resolve, the periodic sync, the end of a pause), the step that
 * just ended sets the earliest of them here, replacing what was set before.
 */
export class WakeTimer {
  readonly #clock: Clock;
  readonly #fire: () => void;
  #pending: { readonly atMs: number; readonly stop: AbortController } | undefined;

  constructor(clock: Clock, fire: () => void) {
    this.#clock = clock;
    this.#fire = fire;
  }

  /** When the pending wake-up is due; undefined when none is set. */
  get dueAtMs(): number | undefined {
    return this.#pending?.atMs;
  }

  /** Fires once at `atMs` (at once when it has passed); undefined or Infinity clears. */
  set(atMs: number | undefined): void {
    if (this.#pending?.atMs === atMs) return;
    this.clear();
    if (atMs === undefined || !Number.isFinite(atMs)) return;
    const pending = { atMs, stop: new AbortController() };
    this.#pending = pending;
    const waitMs = atMs - this.#clock.now();
    // Due already: fires once the caller's turn is over, without a timer.
    const due = waitMs <= 0 ? Promise.resolve() : this.#clock.sleep(waitMs, pending.stop.signal);
    due.then(
      () => {
        if (this.#pending !== pending) return;
        this.#pending = undefined;
        this.#fire();
      },
      // Cleared: a newer wake-up replaced it, or the pair stopped.
      () => undefined,
    );
  }

  clear(): void {
    this.#pending?.stop.abort();
    this.#pending = undefined;
  }
}
