import { every, type Clock } from './clock.js';
import { errorMessage } from './errors.js';

/** A time this process ran nothing: from its last look before to its first look after. */
export interface Stall {
  readonly fromMs: number;
  readonly toMs: number;
  readonly stalledMs: number;
}

/**
 * Told of each stall as it is noticed, synchronously, so that it can hold its own work back
 * before anything else runs; what it returns (or resolves with) is what it found, for the report.
 */
export type StallListener = (
  stall: Stall,
) => Promise<Record<string, unknown>> | Record<string, unknown> | void;

export interface StallWatchOptions {
  /** How often its own loop looks (default 1 s). */
  readonly everyMs?: number;
  /**
   * A gap between two looks at least this long is a stall (default 5 × everyMs: longer than a
   * loaded machine's event-loop lag, shorter than any dead-man timeout or lease TTL in use).
   */
  readonly stallAfterMs?: number;
}

/**
 * Notices that this process stood still (SIGSTOP, a paused VM, swapping, an event loop blocked):
 * the clock moved much further between two looks than the looks' period. Its own loop looks every
 * `everyMs`; code about to act on the world (the executor's steps) looks first too, so whatever
 * runs first after a stall learns of it before it acts, whichever timer node happens to run first.
 * The listeners' findings go, with the stall, to `report` (one log line).
 */
export class StallWatch {
  readonly everyMs: number;
  readonly stallAfterMs: number;
  readonly #clock: Clock;
  readonly #report: (stall: Stall, found: Record<string, unknown>) => void;
  readonly #listeners: StallListener[] = [];
  #lastMs = 0;
  /** Looks count only while the loop runs: a slow start-up before it is no stall. */
  #running = false;

  constructor(
    clock: Clock,
    report: (stall: Stall, found: Record<string, unknown>) => void,
    options: StallWatchOptions = {},
  ) {
    this.#clock = clock;
    this.#report = report;
    this.everyMs = options.everyMs ?? 1_000;
    this.stallAfterMs = options.stallAfterMs ?? 5 * this.everyMs;
  }

  onStall(listener: StallListener): void {
    this.#listeners.push(listener);
  }

  /** Looks at the clock: a gap since the previous look of stallAfterMs or more is a stall. */
  look(): void {
    if (!this.#running) return;
    const now = this.#clock.now();
    const last = this.#lastMs;
    this.#lastMs = Math.max(last, now);
    if (now - last < this.stallAfterMs) return;
    const stall: Stall = { fromMs: last, toMs: now, stalledMs: now - last };
    // Each listener runs now, synchronously; a throw becomes its rejection.
    const found = this.#listeners.map(
      (listener) =>
        new Promise<Record<string, unknown> | void>((resolve) => resolve(listener(stall))),
    );
    void Promise.allSettled(found).then((results) => {
      const merged: Record<string, unknown> = {};
      for (const r of results) {
        if (r.status === 'fulfilled') Object.assign(merged, r.value ?? {});
        else merged.error = errorMessage(r.reason);
      }
      this.#report(stall, merged);
    });
  }

  /** Looks every `everyMs` until `signal` aborts; resolves once the loop has ended. */
  async run(signal: AbortSignal): Promise<void> {
    this.#lastMs = this.#clock.now();
    this.#running = true;
    try {
      await every(
        this.#clock,
        this.everyMs,
        signal,
        () => this.look(),
        () => undefined,
      );
    } finally {
      this.#running = false;
    }
  }
}
