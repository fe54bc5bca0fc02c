/**
 * Time is injected (DESIGN.md §3.10) so that limiters, pollers and the simulator run
 * deterministically under test.
 */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
  /**
   * Resolves after `ms` milliseconds of this clock's time. An aborted `signal` rejects with its
   * reason and drops the timer, so a sleep nobody needs any more never holds the process open.
   */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error('sleep aborted');
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise((resolve, reject) => {
      if (signal?.aborted === true) {
        reject(abortReason(signal));
        return;
      }
      const onAbort = (): void => {
        clearTimeout(timer);
        reject(abortReason(signal as AbortSignal));
      };
      const timer = setTimeout(
        () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
        Math.max(0, ms),
      );
      signal?.addEventListener('abort', onAbort, { once: true });
    }),
};

interface Sleeper {
  readonly at: number;
  readonly seq: number;
  readonly resolve: () => void;
}

/** A clock that moves only when told to; sleepers wake in time order as it passes them. */
export class ManualClock implements Clock {
  #now: number;
  #seq = 0;
  #sleepers: Sleeper[] = [];

  constructor(startMs = 1_700_000_000_000) {
    this.#now = startMs;
  }

  now(): number {
    return this.#now;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted === true) {
        reject(abortReason(signal));
        return;
      }
      const onAbort = (): void => {
        this.#sleepers = this.#sleepers.filter((s) => s !== sleeper);
        reject(abortReason(signal as AbortSignal));
      };
      // The listener goes when the sleep ends, so one long-lived signal reused for many sleeps
      // (a tick loop's) does not pile up listeners.
      const sleeper: Sleeper = {
        at: this.#now + Math.max(0, ms),
        seq: this.#seq++,
        resolve: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      this.#sleepers.push(sleeper);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Number of pending sleepers, so tests can wait until code under test is parked. */
  get pending(): number {
    return this.#sleepers.length;
  }

  /**
   * Moves time forward by `ms`, waking each sleeper at its own time and letting the code it
   * resumes run (and sleep again) before time moves further.
   */
  async advance(ms: number): Promise<void> {
    const target = this.#now + ms;
    for (;;) {
      await flushMicrotasks();
      const next = this.#earliest();
      if (next === undefined || next.at > target) break;
      this.#sleepers = this.#sleepers.filter((s) => s !== next);
      this.#now = Math.max(this.#now, next.at);
      next.resolve();
    }
    this.#now = target;
    await flushMicrotasks();
  }

  #earliest(): Sleeper | undefined {
    let best: Sleeper | undefined;
    for (const s of this.#sleepers) {
      if (best === undefined || s.at < best.at || (s.at === best.at && s.seq < best.seq)) best = s;
    }
    return best;
  }
}

async function flushMicrotasks(): Promise<void> {
  for (let i = 0; i < 10; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

/**
 * `work`'s outcome, or `{ done: false }` once `ms` of `clock` have passed without one; the work
 * goes on unwatched. For shutdowns that must end within a bound.
 */
export async function within<T>(
  clock: Clock,
  work: Promise<T>,
  ms: number,
): Promise<{ readonly done: true; readonly value: T } | { readonly done: false }> {
  const timer = new AbortController();
  const late = clock.sleep(ms, timer.signal).then(
    () => ({ done: false }) as const,
    () => ({ done: false }) as const,
  );
  try {
    return await Promise.race([work.then((value) => ({ done: true, value }) as const), late]);
  } finally {
    timer.abort();
  }
}

/**
 * Sleeps until `clock` reaches the next multiple of `intervalMs` (a whole interval when it is on
 * one now). Loops that wait this way share one grid: those due at the same moment wake together,
 * and the process wakes once for all of them rather than once each. Between polls a wake-up, not
 * the work it runs, is most of what a loop costs (six 1 s loops each sending a GET: 3.2-3.7 ms of
 * CPU a second apart, 1.5-1.6 together, on the 2-CPU VM); each loop keeps its interval, only its
 * phase is the grid's.
 */
export function sleepToNext(clock: Clock, intervalMs: number, signal?: AbortSignal): Promise<void> {
  const phaseMs = intervalMs > 0 ? clock.now() % intervalMs : 0;
  return clock.sleep(intervalMs - phaseMs, signal);
}

/**
 * Runs `step` every `intervalMs` of `clock`, on the grid of sleepToNext (the first run at its next
 * point, at most one interval from now), until `signal` aborts; resolves once the loop has ended.
 * A step that throws is handed to `onError` and the loop goes on.
 */
export async function every(
  clock: Clock,
  intervalMs: number,
  signal: AbortSignal,
  step: () => Promise<void> | void,
  onError: (err: unknown) => void,
): Promise<void> {
  while (!signal.aborted) {
    try {
      await sleepToNext(clock, intervalMs, signal);
    } catch {
      return;
    }
    try {
      await step();
    } catch (err) {
      onError(err);
    }
  }
}
