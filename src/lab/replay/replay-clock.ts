import { TimerQueue, type Clock } from '../../core/index.js';

interface Sleeper {
  readonly resolve: () => void;
  done: boolean;
}

/**
 * The backtest's one clock (simulator, client, runner, executor). It moves only when the driver
 * wakes the next sleeper or jumps to the next recorded event; unlike ManualClock.advance it wakes
 * one sleeper at a time and lets the driver decide when the code has settled (counted work, not a
 * fixed number of event-loop turns), and it keeps its sleepers in a heap: a replay holds dozens of
 * timers and wakes millions of them.
 */
export class ReplayClock implements Clock {
  #now: number;
  readonly #sleepers = new TimerQueue<Sleeper>();

  constructor(startMs: number) {
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
        sleeper.done = true;
        reject(abortReason(signal as AbortSignal));
      };
      const sleeper: Sleeper = {
        resolve: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
        done: false,
      };
      this.#sleepers.push(this.#now + Math.max(0, ms), sleeper);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** When the earliest live sleeper is due; undefined when nothing sleeps. */
  nextAt(): number | undefined {
    this.#dropDone();
    return this.#sleepers.peek()?.atMs;
  }

  /**
   * Moves to the earliest sleeper's time (never back) and wakes every sleeper due then, in the
   * order they went to sleep: what they resume runs together, in that order, until it settles.
   */
  wakeNext(): void {
    const at = this.nextAt();
    if (at === undefined) return;
    this.#now = Math.max(this.#now, at);
    for (;;) {
      this.#dropDone();
      const next = this.#sleepers.popDue(at);
      if (next === undefined) return;
      next.done = true;
      next.resolve();
    }
  }

  /** Moves time to `ms` (never back); sleepers due by then are the caller's to wake first. */
  jumpTo(ms: number): void {
    this.#now = Math.max(this.#now, ms);
  }

  #dropDone(): void {
    while (this.#sleepers.peek()?.item.done === true) this.#sleepers.pop();
  }
}

function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error('sleep aborted');
}
