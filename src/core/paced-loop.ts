import type { Clock } from './clock.js';

export interface PacedLoopParts {
  readonly clock: Clock;
  /** The step runs this long after its last run when nothing changed (the fallback, and ages). */
  readonly everyMs: number;
  /** ...and this long after its last run, at the soonest, once changed() is called. */
  readonly soonestMs: number;
  /** `signal` is aborted once stop() is called: a step that awaited must not act on it after. */
  readonly step: (signal: AbortSignal) => Promise<void> | void;
  readonly onError: (err: unknown) => void;
}

interface Run {
  readonly stop: AbortController;
  /** Cuts the current sleep short when a change comes. */
  wake: AbortController;
  changed: boolean;
  done: Promise<void>;
}

/**
 * A step run every `everyMs` of the clock, and soon after a change: a publisher that follows what
 * it publishes without sending each change of a burst. changed() runs the step `soonestMs` after
 * its last run (at once when that is past), once for any number of changes meanwhile, and a change
 * that comes while the step runs gets a run of its own after it, so the last change of a burst is
 * never left to the next `everyMs`. The next run without a change is `everyMs` after the last.
 */
export class PacedLoop {
  readonly #parts: PacedLoopParts;
  #run: Run | undefined;

  constructor(parts: PacedLoopParts) {
    this.#parts = parts;
  }

  get running(): boolean {
    return this.#run !== undefined;
  }

  /** Starts the loop (its first run `everyMs` from now); nothing when it is running. */
  start(): void {
    if (this.#run !== undefined) return;
    const stop = new AbortController();
    const run: Run = { stop, wake: new AbortController(), changed: false, done: Promise.resolve() };
    this.#run = run;
    run.done = this.#loop(run);
  }

  /** Something the step reads changed: it runs again soon. Nothing while the loop is stopped. */
  changed(): void {
    const run = this.#run;
    if (run === undefined || run.changed) return;
    run.changed = true;
    run.wake.abort();
  }

  /** Stops the loop, leaving no timer; resolves once a step under way has ended. */
  stop(): Promise<void> {
    const run = this.#run;
    if (run === undefined) return Promise.resolve();
    this.#run = undefined;
    run.stop.abort();
    run.wake.abort();
    return run.done;
  }

  async #loop(run: Run): Promise<void> {
    const { clock, everyMs, soonestMs, step, onError } = this.#parts;
    let lastMs = clock.now();
    while (!run.stop.signal.aborted) {
      // A change during the last step aborted it; one from now on cuts this sleep short.
      if (run.wake.signal.aborted) run.wake = new AbortController();
      const waitMs = lastMs + (run.changed ? soonestMs : everyMs) - clock.now();
      if (waitMs > 0) {
        try {
          await clock.sleep(waitMs, run.wake.signal);
        } catch {
          if (run.stop.signal.aborted) return;
          continue; // a change: sleep again, to the sooner time
        }
      }
      run.changed = false;
      lastMs = clock.now();
      try {
        await step(run.stop.signal);
      } catch (err) {
        onError(err);
      }
    }
  }
}
